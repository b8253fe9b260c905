import type { RequestContext } from "./context.server";
import { endMemberSockets } from "./member-channel.server";
import { clearSessionCookie, destroySession } from "./session.server";

/**
 * Finishes a sign-in for the web: the new session's cookie (a fresh id, so a planted id is never
 * promoted) and a new CSRF secret. Returns the new CSRF token.
 */
export async function signIn(rc: RequestContext, sessionCookie: string): Promise<string> {
  if (rc.session) await destroySession(rc.env, rc.session.idHash);
  rc.appendCookie(sessionCookie);
  return rc.rotateCsrf();
}

/**
 * Destroys the session server-side, clears its cookie and replaces the CSRF secret. The member's
 * open sockets close: their pages still signed in (other devices) reconnect, this one cannot.
 */
export async function signOut(rc: RequestContext): Promise<void> {
  if (rc.session) await destroySession(rc.env, rc.session.idHash);
  if (rc.user) await endMemberSockets(rc.env, rc.user.id);
  rc.appendCookie(clearSessionCookie(rc.env));
  await rc.rotateCsrf();
}
