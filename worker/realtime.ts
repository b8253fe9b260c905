import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { channelForPath, verifyChannelToken } from "~/server/broadcasting.server";
import { HttpError, unauthenticated } from "~/server/errors.server";
import { readSessionById, type SessionUser } from "~/server/session.server";
import { verifiedUser } from "./middleware/auth";
import type { AppBindings } from "./types";

/**
 * Checks a websocket upgrade before it reaches a room: a browser cannot put a CSRF header on an
 * upgrade, so a cross-site Origin is refused (403), and the member must be signed in (401) with a
 * verified email (403). Returns the member.
 */
export function authorizeUpgrade(c: Context<AppBindings>): SessionUser {
  if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
    throw new HttpError(426, "Expected a websocket upgrade.");
  }
  const origin = c.req.header("Origin");
  if (origin && origin !== new URL(c.req.url).origin) {
    throw new HttpError(403, "Cross-origin websocket refused.");
  }
  return verifiedUser(c);
}

/**
 * The upgrade request forwarded to a room, carrying the member the Worker authenticated and the
 * request id (the room logs the socket's lines under the request that opened it).
 */
export function forwardUpgrade(c: Context<AppBindings>, user: SessionUser): Request {
  const headers = new Headers(c.req.raw.headers);
  headers.set("X-Member-Id", user.id);
  headers.set("X-Member-Hidden", user.hideOnline ? "1" : "0");
  headers.set("X-Request-Id", c.get("requestId"));
  return new Request(c.req.raw, { headers });
}

/**
 * `?auth=` on a websocket path (docs/realtime.md "Authentication"): a token from POST
 * /broadcasting/auth stands in for the session cookie. It must be genuine and unexpired, and the
 * session that minted it still alive (401), and name this path's channel (403); the socket then
 * opens as that session's member, through the same checks as a cookie.
 */
export const upgradeTokenAuth = createMiddleware<AppBindings>(async (c, next) => {
  const token = c.req.query("auth");
  if (token === undefined) return next();
  const claims = await verifyChannelToken(c.env, token);
  if (!claims) throw unauthenticated();
  if (claims.channel !== channelForPath(c.req.path, claims.memberId)) {
    throw new HttpError(403, "The token is for another channel.");
  }
  // The session that minted the token must still be alive (not signed out, not ended by a
  // password change, suspension or deletion); when it ends, endMemberSockets closes this socket.
  const live = await readSessionById(c.env, claims.sessionId);
  if (!live || live.user.id !== claims.memberId) throw unauthenticated();
  const rc = c.get("rc");
  rc.user = live.user;
  rc.session = live.session;
  return next();
});
