import { fromBase64Url, hmacSign, hmacVerify, toBase64Url } from "./crypto.server";
import type { Env } from "./env.server";
import type { EndedSessions, TicketSession } from "./room-api.server";

export type { EndedSessions, TicketSession };

/**
 * Socket tickets (docs/decisions/044): what opens a member's sockets without a D1 read. A page
 * signed in with a verified email gets one with its data; it names the member and the session
 * that minted it, and is signed with APP_KEY. The Worker checks it by HMAC alone; the member's
 * hub, which hears every end of their sessions, answers whether that session still may open
 * sockets (`TicketClaims` against `TicketRevocations`). So a deploy's reconnect wave costs D1
 * nothing, and sign-out, a password change, a reset, a suspension or a deletion still shut the
 * door at once.
 */

/** How long a ticket opens sockets; a page asks for a fresh one well before (SOCKET_TICKET_RENEW_MS). */
export const SOCKET_TICKET_TTL_MS = 60 * 60_000;

export interface TicketClaims {
  /** The member. */
  sub: string;
  /** The session that minted it (its id hash). */
  sid: string;
  /** Minted at, and good until (ms since the epoch): never after its session's end. */
  iat: number;
  exp: number;
  /**
   * When the session ends by itself (its absolute expiry, ms since the epoch): the member's hub
   * closes the sockets the ticket opened then. Absent from tickets minted before it was carried
   * (accepted: they end within the hour).
   */
  sxp?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The HMAC message of a ticket: its own prefix, so no other signature of APP_KEY passes as one. */
const signed = (payload: string) => `socket-ticket:v1:${payload}`;

/**
 * A ticket for the session: good for SOCKET_TICKET_TTL_MS, or until the session's absolute
 * expiry if that comes first (a ticket never outlives its session). Its idle expiry cannot come
 * first: reading the session to mint the ticket made it active at most SESSION_POLICY.touchEveryMs
 * ago, and the shortest idle lifetime is longer than that plus a ticket's.
 */
export async function mintSocketTicket(
  env: Env,
  session: { userId: string; idHash: string; expiresAt: string },
  now = Date.now(),
): Promise<{ ticket: string; expiresAt: number }> {
  const ends = Date.parse(session.expiresAt);
  const claims: TicketClaims = {
    sub: session.userId,
    sid: session.idHash,
    iat: now,
    exp: Math.min(now + SOCKET_TICKET_TTL_MS, ends),
    sxp: ends,
  };
  const payload = toBase64Url(encoder.encode(JSON.stringify(claims)));
  return {
    ticket: `${payload}.${await hmacSign(env.APP_KEY, signed(payload))}`,
    expiresAt: claims.exp,
  };
}

/** A genuine, unexpired ticket's claims, or null (forged, altered, expired or malformed). */
export async function verifySocketTicket(
  env: Env,
  ticket: string,
  now = Date.now(),
): Promise<TicketClaims | null> {
  if (ticket.length > 1024) return null;
  const [payload, mac, extra] = ticket.split(".");
  if (!payload || !mac || extra !== undefined) return null;
  if (!(await hmacVerify(env.APP_KEY, signed(payload), mac))) return null;
  let claims: Partial<TicketClaims>;
  try {
    claims = JSON.parse(decoder.decode(fromBase64Url(payload))) as Partial<TicketClaims>;
  } catch {
    return null;
  }
  const { sub, sid, iat, exp, sxp } = claims;
  if (typeof sub !== "string" || typeof sid !== "string") return null;
  if (typeof iat !== "number" || typeof exp !== "number" || exp <= now) return null;
  if (sxp === undefined) return { sub, sid, iat, exp };
  if (typeof sxp !== "number" || sxp <= now) return null;
  return { sub, sid, iat, exp, sxp };
}

/**
 * What the member's hub remembers of their ended sessions, for the tickets' lifetime:
 * `validFrom` ends every ticket minted before it (all sessions ended: a password reset, a
 * suspension, a deletion) except those of `kept` (a password change keeps the session that made
 * it); `ended` lists single sessions that ended (a sign-out), each until its tickets expire.
 */
export interface TicketRevocations {
  validFrom: number;
  kept: string | null;
  ended: Record<string, number>;
}

export const NO_REVOCATIONS: TicketRevocations = { validFrom: 0, kept: null, ended: {} };

/** Whether a ticket's session may still open sockets. */
export function ticketAdmitted(
  revocations: TicketRevocations,
  ticket: Pick<NonNullable<TicketSession>, "sid" | "iat">,
): boolean {
  if (revocations.ended[ticket.sid] !== undefined) return false;
  return ticket.iat >= revocations.validFrom || ticket.sid === revocations.kept;
}

/** The revocations after some sessions ended at `now` (entries older than a ticket's life go). */
export function revoke(
  revocations: TicketRevocations,
  sessions: EndedSessions,
  now: number,
): TicketRevocations {
  const ended = Object.fromEntries(
    Object.entries(revocations.ended).filter(([, at]) => at > now - SOCKET_TICKET_TTL_MS),
  );
  if (typeof sessions === "object" && "only" in sessions) {
    return { ...revocations, ended: { ...ended, [sessions.only]: now } };
  }
  // Every older ticket ends; a session that ended before stays ended.
  const kept = sessions === "all" ? null : sessions.allBut;
  return { validFrom: now, kept, ended };
}
