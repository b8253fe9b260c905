import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { CHAT_CLOSE_FORBIDDEN, CHAT_CLOSED_REASON } from "~/realtime/chat";
import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import { channelForPath, verifyChannelToken } from "~/server/broadcasting.server";
import { HttpError, unauthenticated } from "~/server/errors.server";
import { readSessionById } from "~/server/session.server";
import { verifySocketTicket, type TicketSession } from "~/server/socket-ticket.server";
import { verifiedUser } from "./middleware/auth";
import type { AppBindings } from "./types";

/** The member a socket opens for, and the ticket it came with (null: its session was read). */
export interface SocketMember {
  id: string;
  ticket: TicketSession;
}

/**
 * Checks a websocket upgrade before it reaches a room: a browser cannot put a CSRF header on an
 * upgrade, so a cross-site Origin is refused (403); then the member is the socket ticket's
 * (`?ticket=`, checked by socketTicketAuth), or the session's, who must be signed in (401) with a
 * verified email (403).
 */
export function authorizeUpgrade(c: Context<AppBindings>): SocketMember {
  if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
    throw new HttpError(426, "Expected a websocket upgrade.");
  }
  const origin = c.req.header("Origin");
  if (origin && origin !== new URL(c.req.url).origin) {
    throw new HttpError(403, "Cross-origin websocket refused.");
  }
  const ticket = c.get("socketTicket");
  if (ticket) {
    const { sub, sid, iat, sxp } = ticket;
    return { id: sub, ticket: { sid, iat, sub, ends: sxp ?? null } };
  }
  return { id: verifiedUser(c).id, ticket: null };
}

/**
 * The upgrade request forwarded to a room, carrying the member the Worker authenticated, their
 * ticket's session (the member's hub checks it) and the request id (the room logs the socket's
 * lines under the request that opened it).
 */
export function forwardUpgrade(c: Context<AppBindings>, member: SocketMember): Request {
  const headers = new Headers(c.req.raw.headers);
  headers.set("X-Member-Id", member.id);
  headers.set("X-Request-Id", c.get("requestId"));
  // Only the Worker says what ticket a socket came with: a client's own headers of that name go.
  for (const name of ["X-Ticket-Session", "X-Ticket-Issued", "X-Ticket-Ends"]) headers.delete(name);
  if (member.ticket) {
    headers.set("X-Ticket-Session", member.ticket.sid);
    headers.set("X-Ticket-Issued", String(member.ticket.iat));
    if (member.ticket.ends !== null) headers.set("X-Ticket-Ends", String(member.ticket.ends));
  }
  return new Request(c.req.raw, { headers });
}

/**
 * A socket accepted by the Worker itself (no object behind it) and closed at once with `code`: a
 * browser sees no HTTP status on a failed upgrade, only a failed connection, but it does read the
 * code a socket closes with. Nothing is sent on it.
 */
function closedSocket(code: number, reason: string): Response {
  const pair = new WebSocketPair();
  pair[1].accept();
  pair[1].close(code, reason);
  return new Response(null, { status: 101, webSocket: pair[0] });
}

/**
 * The answer to an upgrade whose ticket opens nothing (forged, expired, or of a session that
 * ended): a socket closed at once with 4401, as sockets are when a session ends. The page asks
 * for a fresh ticket before it reconnects (app/realtime/ticket.ts).
 */
export function refusedSocket(): Response {
  return closedSocket(SESSION_ENDED_CLOSE, "Ticket refused.");
}

/**
 * Whether the upgrade is a websocket client's handshake: every one (a browser's always) carries
 * `Sec-WebSocket-Key` (RFC 6455). A request that only asks for an upgrade is an HTTP client's,
 * which reads a refusal's status as API.md "Realtime" gives it (401 or 403).
 */
export function isHandshake(c: Context<AppBindings>): boolean {
  return Boolean(c.req.header("Sec-WebSocket-Key"));
}

/**
 * A conversation's socket refused to a handshake (unknown, not the member's, ended by an unmatch,
 * across a block): a socket closed at once with the room's own code, 4403, which the page reads as
 * the conversation closed to it for good (no reconnect, the composer disabled).
 */
export function refusedConversationSocket(): Response {
  return closedSocket(CHAT_CLOSE_FORBIDDEN, CHAT_CLOSED_REASON);
}

/**
 * `?ticket=` on a websocket path (docs/decisions/044): the page's socket ticket stands in for the
 * session cookie, checked by its HMAC alone (no D1 read); the member's hub answers whether its
 * session ended. A ticket that is not genuine or has expired is refused at once.
 */
export const socketTicketAuth = createMiddleware<AppBindings>(async (c, next) => {
  const raw = c.req.query("ticket");
  if (raw === undefined) return next();
  if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
    throw new HttpError(426, "Expected a websocket upgrade.");
  }
  const ticket = await verifySocketTicket(c.env, raw);
  if (!ticket) return refusedSocket();
  c.set("socketTicket", ticket);
  return next();
});

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
