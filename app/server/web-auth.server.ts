import type { RequestContext } from "./context.server";
import { deviceCookie } from "./device.server";
import { endMemberSockets } from "./member-channel.server";
import { clearSessionCookie, destroySession } from "./session.server";

/**
 * Finishes a sign-in for the web: the new session's cookie (a fresh id, so a planted id is never
 * promoted), a new CSRF secret, and the cookie that makes this browser a device the member signed
 * in from (app/server/device.server.ts), renewed at each sign-in. Returns the new CSRF token.
 */
export async function signIn(
  rc: RequestContext,
  sessionCookie: string,
  memberId: string,
): Promise<string> {
  if (rc.session) {
    await destroySession(rc.env, rc.session.idHash);
    // The replaced session's socket tickets open nothing any more.
    await endMemberSockets(rc.env, rc.session.userId, {
      sessions: { only: rc.session.idHash },
    });
  }
  rc.appendCookie(sessionCookie);
  rc.appendCookie(await deviceCookie(rc.env, memberId));
  return rc.rotateCsrf();
}

/**
 * Destroys the session server-side, clears its cookie and replaces the CSRF secret. The member's
 * open sockets close: their pages still signed in (other devices) reconnect, this one cannot.
 */
export async function signOut(rc: RequestContext): Promise<void> {
  if (rc.session) await destroySession(rc.env, rc.session.idHash);
  if (rc.user && rc.session) {
    await endMemberSockets(rc.env, rc.user.id, { sessions: { only: rc.session.idHash } });
  }
  rc.appendCookie(clearSessionCookie(rc.env));
  await rc.rotateCsrf();
}
