import { createMiddleware } from "hono/factory";
import { requestMeta, type RequestContext } from "~/server/context.server";
import { csrfTokenFor, newCsrfSecret, readCsrfSecret } from "~/server/csrf.server";
import { readSession } from "~/server/session.server";
import { addResponseHeaders } from "../http";
import type { AppBindings } from "../types";

/**
 * Resolves the session and the CSRF secret once, and queues cookies onto the final response. A
 * websocket upgrade renders no page, submits nothing and ends in a 101 that no cookie needs: it
 * gets the session only (the CSRF secret and token cost a random draw and an HMAC per socket),
 * and not even that when it carries a socket ticket (`?ticket=`: no D1 read at all, see
 * worker/realtime.ts) or a channel token (`?auth=`: the token names its session, which
 * upgradeTokenAuth reads instead, one D1 read, not two).
 */
export const requestContext = (buildVersion: string) =>
  createMiddleware<AppBindings>(async (c, next) => {
    const env = c.env;
    const cookies: string[] = [];
    const upgrade = c.req.header("Upgrade")?.toLowerCase() === "websocket";
    let csrfSecret = readCsrfSecret(env, c.req.raw) ?? "";
    if (!csrfSecret && !upgrade) {
      const fresh = newCsrfSecret(env);
      csrfSecret = fresh.secret;
      cookies.push(fresh.cookie);
    }
    const byToken =
      upgrade &&
      c.req.path.startsWith("/ws/") &&
      (c.req.query("ticket") !== undefined || c.req.query("auth") !== undefined);
    const resolved = byToken ? null : await readSession(env, c.req.raw);
    const rc: RequestContext = {
      env,
      executionCtx: c.executionCtx,
      requestId: c.get("requestId"),
      user: resolved?.user ?? null,
      session: resolved?.session ?? null,
      csrfToken: upgrade ? "" : await csrfTokenFor(env, csrfSecret),
      buildVersion,
      appendCookie: (cookie) => void cookies.push(cookie),
      rotateCsrf: async () => {
        const fresh = newCsrfSecret(env);
        cookies.push(fresh.cookie);
        rc.csrfToken = await csrfTokenFor(env, fresh.secret);
        return rc.csrfToken;
      },
      meta: requestMeta(c.req.raw),
      cspNonce: c.get("cspNonce"),
    };
    c.set("rc", rc);
    c.set("cookies", cookies);
    c.set("csrfSecret", csrfSecret);
    await next();
    if (cookies.length) {
      addResponseHeaders(c, (headers) => {
        for (const cookie of cookies) headers.append("Set-Cookie", cookie);
      });
    }
  });
