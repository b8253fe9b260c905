import { createMiddleware } from "hono/factory";
import { scopeDatabase } from "~/server/d1-sessions.server";
import { addResponseHeaders } from "../http";
import type { AppBindings } from "../types";

/**
 * Gives the request its D1 session (app/server/d1-sessions.server.ts, docs/decisions/046): every
 * handler after this one reads `c.env.DB` through it, and a write's bookmark goes back to the
 * browser. A websocket upgrade keeps the database itself: it writes through the rooms, and its
 * 101 answer carries no cookie.
 */
export const d1Session = createMiddleware<AppBindings>(async (c, next) => {
  if (c.req.header("Upgrade")?.toLowerCase() === "websocket") return next();
  const scoped = scopeDatabase(c.env, c.req.raw);
  c.env = scoped.env;
  await next();
  const cookie = scoped.bookmarkCookie();
  if (cookie) addResponseHeaders(c, (headers) => headers.append("Set-Cookie", cookie));
});
