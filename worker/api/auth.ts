import { Hono } from "hono";
import {
  confirmPasswordSchema,
  forgotPasswordSchema,
  loginSchema,
  registerSchema,
  resetPasswordSchema,
  updatePasswordSchema,
} from "~/schemas/auth";
import { appealCookie } from "~/server/appeals.server";
import * as auth from "~/server/auth.server";
import { deviceCookie, knownDevice } from "~/server/device.server";
import { signIn, signOut } from "~/server/web-auth.server";
import { parseInput, readBody } from "~/server/validation.server";
import { currentUser, requirePasswordConfirmed, requireUser } from "../middleware/auth";
import { wantsJson } from "../http";
import type { AppBindings } from "../types";

/**
 * The JSON side of docs/api.md "Authentication". A browser's plain form posts to the same paths
 * fall through to the Remix pages, whose actions call the same domain module.
 */
export const authApi = new Hono<AppBindings>();

authApi.post("/register", async (c, next) => {
  if (!wantsJson(c)) return next();
  const rc = c.get("rc");
  const input = parseInput(registerSchema, await readBody(c.req.raw));
  const { user, session } = await auth.register(c.env, input, rc.meta);
  const csrfToken = await signIn(rc, session.cookie, user.id);
  return c.json({ user: auth.publicUser(user), csrf_token: csrfToken }, 201);
});

authApi.post("/login", async (c, next) => {
  if (!wantsJson(c)) return next();
  const rc = c.get("rc");
  const input = parseInput(loginSchema, await readBody(c.req.raw));
  const device = await knownDevice(c.env, c.req.raw);
  const { user, session } = await auth.login(c.env, input, rc.meta, device).catch(async (error) => {
    // A suspended member who proved their password may read why and appeal (GET/POST /my/appeal).
    if (error instanceof auth.SuspendedError)
      rc.appendCookie(await appealCookie(c.env, error.userId));
    throw error;
  });
  const csrfToken = await signIn(rc, session.cookie, user.id);
  return c.json({ user: auth.publicUser(user), csrf_token: csrfToken });
});

authApi.post("/logout", async (c, next) => {
  if (!wantsJson(c)) return next();
  await signOut(c.get("rc"));
  return c.body(null, 204);
});

authApi.post("/forgot-password", async (c, next) => {
  if (!wantsJson(c)) return next();
  const { email } = parseInput(forgotPasswordSchema, await readBody(c.req.raw));
  return c.json(await auth.requestPasswordReset(c.env, email, c.get("rc").meta));
});

authApi.post("/reset-password", async (c, next) => {
  if (!wantsJson(c)) return next();
  const input = parseInput(resetPasswordSchema, await readBody(c.req.raw));
  const rc = c.get("rc");
  const { status, memberId } = await auth.resetPassword(c.env, input, rc.meta);
  rc.appendCookie(await deviceCookie(c.env, memberId));
  return c.json({ status });
});

authApi.post("/confirm-password", requireUser, async (c, next) => {
  if (!wantsJson(c)) return next();
  const { user, session } = currentUser(c);
  const input = parseInput(confirmPasswordSchema, await readBody(c.req.raw));
  await auth.confirmPassword(c.env, user, session, input);
  return c.json({ status: "Password confirmed." });
});

authApi.put("/settings/password", requireUser, requirePasswordConfirmed, async (c) => {
  const { user, session } = currentUser(c);
  const input = parseInput(updatePasswordSchema, await readBody(c.req.raw));
  await auth.changePassword(c.env, user, session, input, c.get("rc").meta.origin);
  return c.json({ status: "Password updated." });
});

authApi.get("/verify-email/:id/:hash", async (c) => {
  const params = {
    id: c.req.param("id"),
    hash: c.req.param("hash"),
    expires: c.req.query("expires") ?? null,
    signature: c.req.query("signature") ?? null,
  };
  if (wantsJson(c)) {
    await auth.verifyEmail(c.env, params);
    return c.json({ verified: true });
  }
  try {
    await auth.verifyEmail(c.env, params);
  } catch {
    return c.redirect("/verify-email?invalid=1", 303);
  }
  return c.redirect("/dashboard?verified=1", 303);
});

authApi.post("/email/verification-notification", requireUser, async (c, next) => {
  if (!wantsJson(c)) return next();
  const rc = c.get("rc");
  const { user } = currentUser(c);
  const result = await auth.resendVerificationEmail(c.env, user, rc.meta);
  return c.json(
    { status: result.alreadyVerified ? "already-verified" : "verification-link-sent" },
    202,
  );
});

authApi.get("/csrf-token", (c) => c.json({ token: c.get("rc").csrfToken }));
