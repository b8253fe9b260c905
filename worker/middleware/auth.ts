import { createMiddleware } from "hono/factory";
import { passwordConfirmationRequired, unauthenticated } from "~/server/errors.server";
import {
  isPasswordRecentlyConfirmed,
  requireVerifiedEmail,
  type SessionUser,
} from "~/server/session.server";
import type { AppBindings } from "../types";

/** A signed-in member (401 otherwise). */
export const requireUser = createMiddleware<AppBindings>(async (c, next) => {
  if (!c.get("rc").user) throw unauthenticated();
  return next();
});

/** A signed-in member whose email is verified (401, 403 otherwise). */
export const requireVerified = createMiddleware<AppBindings>(async (c, next) => {
  verifiedUser(c);
  return next();
});

/**
 * The signed-in member, whose email is verified (401, 403 otherwise): requireVerified's check, for
 * handlers that make it themselves (a browser's request falls through to its page first).
 */
export function verifiedUser(c: { get(key: "rc"): AppBindings["Variables"]["rc"] }): SessionUser {
  const user = c.get("rc").user;
  if (!user) throw unauthenticated();
  requireVerifiedEmail(user);
  return user;
}

/** A password confirmation younger than 3 hours on this session (423 otherwise). */
export const requirePasswordConfirmed = createMiddleware<AppBindings>(async (c, next) => {
  const { user, session } = c.get("rc");
  if (!user || !session) throw unauthenticated();
  if (!isPasswordRecentlyConfirmed(session)) throw passwordConfirmationRequired();
  return next();
});

/** The signed-in member of a handler behind requireUser. */
export function currentUser(c: { get(key: "rc"): AppBindings["Variables"]["rc"] }) {
  const { user, session } = c.get("rc");
  if (!user || !session) throw unauthenticated();
  return { user, session };
}
