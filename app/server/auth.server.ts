import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { z } from "zod";
import {
  CURRENT_PASSWORD_INCORRECT,
  type confirmPasswordSchema,
  type LoginInput,
  type RegisterInput,
  type resetPasswordSchema,
  type updatePasswordSchema,
} from "~/schemas/auth";
import { hmacSign, hmacVerify, newId, randomToken, sha256Hex } from "./crypto.server";
import { getDb, nowIso, schema } from "./db.server";
import { displayName } from "~/lib/members";
import {
  passwordChangedEmail,
  passwordResetEmail,
  passwordResetNoAccountEmail,
  verificationEmail,
} from "./emails.server";
import { DISPOSABLE_EMAIL, isDisposableEmail } from "./email-domains.server";
import type { KnownDevice } from "./device.server";
import type { Env, RateLimitName } from "./env.server";
import { HttpError, tooManyRequests, ValidationError } from "./errors.server";
import { queueEmail, queueMail, type Email } from "./mail.server";
import { endMemberSockets } from "./member-channel.server";
import { DUMMY_HASH, hashPassword, needsRehash, verifyPassword } from "./password.server";
import * as rateLimit from "./rate-limit.server";
import { reviewReasonFor } from "./returning.server";
import {
  createSession,
  destroyAllSessions,
  destroyOtherSessions,
  markPasswordConfirmed,
  type ActiveSession,
  type SessionUser,
} from "./session.server";

export const CREDENTIALS_MESSAGE = "These credentials do not match our records.";
export const SUSPENDED_MESSAGE =
  "This account has been suspended after reports. You can read why and appeal once.";

/**
 * Sign-in refused to a suspended account whose password was right: the same 422 as before, and
 * the caller may let the member read why and appeal (appeals.server.ts, appealCookie).
 */
export class SuspendedError extends ValidationError {
  constructor(readonly userId: string) {
    super({ email: [SUSPENDED_MESSAGE] });
  }
}
export const RESET_TOKEN_INVALID = "This password reset token is invalid.";
export const VERIFICATION_LINK_INVALID = "This verification link is invalid or has expired.";
export const RESET_LINK_SENT =
  "If an account exists for that email address, we have emailed a password reset link.";
export const PASSWORD_RESET_DONE = "Your password has been reset.";

const VERIFICATION_TTL_MS = 60 * 60_000;
const RESET_TTL_MS = 60 * 60_000;

export interface RequestMeta {
  ip: string;
  userAgent: string | null;
  origin: string;
}

/** The `user` object of docs/api.md "Authentication". */
export function publicUser(
  user: Pick<SessionUser, "id" | "username" | "email" | "emailVerifiedAt" | "createdAt">,
) {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    email_verified_at: user.emailVerifiedAt,
    created_at: user.createdAt,
  };
}

/**
 * The network an address belongs to, for limits that should not follow one address: an IPv4
 * /24 or an IPv6 /64 (one household, office or phone carrier's block).
 */
export function networkOf(ip: string): string {
  if (!ip.includes(":")) return ip.split(".").slice(0, 3).join(".");
  const [head = "", tail = ""] = ip.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = ip.includes("::")
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  return groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":");
}

async function limited(result: Promise<rateLimit.RateLimitResult>) {
  const r = await result;
  if (!r.allowed) throw tooManyRequests(r.retryAfter);
}

export async function register(env: Env, input: RegisterInput, meta: RequestMeta) {
  await limited(rateLimit.hit(env, "register_ip", meta.ip));
  if (isDisposableEmail(input.email)) throw new ValidationError({ email: [DISPOSABLE_EMAIL] });
  const db = getDb(env.DB);
  const taken = await db
    .select({ username: schema.users.username, email: schema.users.email })
    .from(schema.users)
    .where(
      sql`${schema.users.username} = ${input.username} COLLATE NOCASE OR ${schema.users.email} = ${input.email} COLLATE NOCASE`,
    )
    .all();
  const errors: Record<string, string[]> = {};
  if (taken.some((u) => u.username.toLowerCase() === input.username.toLowerCase()))
    errors.username = ["This username is already taken."];
  if (taken.some((u) => u.email.toLowerCase() === input.email.toLowerCase()))
    errors.email = ["This email address is already registered."];
  if (Object.keys(errors).length) throw new ValidationError(errors);

  const id = newId();
  const now = nowIso();
  // The address of a member deleted after reports, or suspended: the account is made as any
  // other and waits in the moderators' review queue (returning.server.ts).
  const reviewReason = await reviewReasonFor(env, input.email);
  try {
    await db.batch([
      db.insert(schema.users).values({
        id,
        username: input.username,
        email: input.email,
        reviewReason,
        passwordHash: await hashPassword(input.password),
        onboarding: "pending",
        createdAt: now,
        updatedAt: now,
      }),
      db.insert(schema.profiles).values({ userId: id, dateOfBirth: input.dateOfBirth }),
    ]);
  } catch (error) {
    // A concurrent registration won the unique index between the check and the insert.
    const message = String(error);
    if (message.includes("UNIQUE")) {
      throw new ValidationError(
        message.includes("username")
          ? { username: ["This username is already taken."] }
          : { email: ["This email address is already registered."] },
      );
    }
    throw error;
  }
  const user = {
    id,
    username: input.username,
    email: input.email,
    emailVerifiedAt: null,
    createdAt: now,
  };
  await sendVerificationEmail(env, user, meta.origin);
  const session = await createSession(env, id, {
    remember: false,
    ip: meta.ip,
    userAgent: meta.userAgent,
  });
  return { user, session };
}

/** A rate-limit counter one sign-in attempt hit, to give back if the password was right. */
type Counted = [name: RateLimitName, subject: string];

/**
 * Counts a failed sign-in (until proven otherwise) the way strangers' are counted: per account
 * and network, so that a stranger's guesses do not lock the owner out at home, and per account
 * from everywhere, a slower backstop against guesses spread over many networks
 * (docs/decisions/009).
 */
async function countAccountAttempt(
  env: Env,
  email: string,
  ip: string,
  attemptAt: number,
): Promise<Counted[]> {
  const account = email.toLowerCase();
  const here = `${account}|${networkOf(ip)}`;
  await limited(rateLimit.hit(env, "login_account", here, attemptAt));
  const global = await rateLimit.hit(env, "login_account_global", account, attemptAt);
  if (!global.allowed) {
    await rateLimit.release(env, "login_account", here, attemptAt);
    throw tooManyRequests(global.retryAfter);
  }
  return [
    ["login_account", here],
    ["login_account_global", account],
  ];
}

/**
 * Counts an attempt from a device the account's member signed in from before in that device's
 * own bucket (docs/decisions/021 "An owner's known device"): strangers have no such cookie, so
 * however many networks they guess from, this bucket stays the owner's; and the device's own
 * failures are still limited, whoever holds a copy of its cookie.
 */
async function countDeviceAttempt(
  env: Env,
  device: KnownDevice,
  attemptAt: number,
): Promise<Counted[]> {
  const subject = `${device.memberId}|${device.deviceId}`;
  await limited(rateLimit.hit(env, "login_device", subject, attemptAt));
  return [["login_device", subject]];
}

/**
 * Signs in with an email and password. `device` is the known device the request's cookie names
 * (`knownDevice`), if any: it changes which failure limits count the attempt, nothing else.
 */
export async function login(
  env: Env,
  input: LoginInput,
  meta: RequestMeta,
  device: KnownDevice | null,
) {
  // Per address, for everyone: it bounds the sign-ins (each a password hash) one address can ask
  // for, successful or not, and a device cookie is had for signing in to one's own account. A
  // stranger reaches the owner through it only from the owner's very address (docs/decisions/021).
  await limited(rateLimit.hit(env, "login_ip", meta.ip));
  const findUser = () =>
    getDb(env.DB)
      .select()
      .from(schema.users)
      .where(sql`${schema.users.email} = ${input.email} COLLATE NOCASE`)
      .get();
  // A device cookie counts only for the member who earned it, so with one the account is read
  // before the limits (without one, nothing changes). The cookie names the member's id, not the
  // address: it survives an email change, and an address that passes to another account later
  // does not bring the old owner's devices with it.
  const early = device ? await findUser() : undefined;
  // Only failures count against an account, so the member can still sign in once the window ends.
  // The attempt is counted before the password check (so parallel guesses cannot all get past the
  // limit) and given back below when the password was right.
  const attemptAt = Date.now();
  const counted =
    device && early?.id === device.memberId
      ? await countDeviceAttempt(env, device, attemptAt)
      : await countAccountAttempt(env, input.email, meta.ip, attemptAt);

  const user = device ? early : await findUser();
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) throw new ValidationError({ email: [CREDENTIALS_MESSAGE] });
  for (const [name, subject] of counted) await rateLimit.release(env, name, subject, attemptAt);
  if (user.status === "suspended") throw new SuspendedError(user.id);
  if (needsRehash(user.passwordHash)) {
    await getDb(env.DB)
      .update(schema.users)
      .set({ passwordHash: await hashPassword(input.password) })
      .where(eq(schema.users.id, user.id));
  }
  const session = await createSession(env, user.id, {
    remember: input.remember,
    ip: meta.ip,
    userAgent: meta.userAgent,
  });
  return { user, session };
}

function verificationPayload(userId: string, emailHash: string, expires: number) {
  return `verify-email:${userId}:${emailHash}:${expires}`;
}

export async function verificationUrl(
  env: Env,
  user: { id: string; email: string },
  origin: string,
  now = Date.now(),
) {
  const emailHash = await sha256Hex(user.email.toLowerCase());
  const expires = Math.floor((now + VERIFICATION_TTL_MS) / 1000);
  const signature = await hmacSign(env.APP_KEY, verificationPayload(user.id, emailHash, expires));
  const url = new URL(`/verify-email/${user.id}/${emailHash}`, origin);
  url.searchParams.set("expires", String(expires));
  url.searchParams.set("signature", signature);
  return url.toString();
}

export async function sendVerificationEmail(
  env: Env,
  user: { id: string; email: string; username: string; firstName?: string | null },
  origin: string,
) {
  const name = displayName({ firstName: user.firstName ?? null, username: user.username });
  await queueEmail(
    env,
    verificationEmail(user.email, name, await verificationUrl(env, user, origin)),
  );
}

export async function resendVerificationEmail(env: Env, user: SessionUser, meta: RequestMeta) {
  if (user.emailVerifiedAt) return { alreadyVerified: true };
  await limited(rateLimit.hit(env, "verification_resend_ip", meta.ip));
  await limited(rateLimit.hit(env, "verification_resend_account", user.id));
  await sendVerificationEmail(env, user, meta.origin);
  return { alreadyVerified: false };
}

/** Checks a signed verification link and marks the email verified. */
export async function verifyEmail(
  env: Env,
  params: { id: string; hash: string; expires: string | null; signature: string | null },
  now = Date.now(),
) {
  const expires = Number(params.expires);
  if (!params.signature || !Number.isInteger(expires))
    throw new HttpError(403, VERIFICATION_LINK_INVALID);
  const valid = await hmacVerify(
    env.APP_KEY,
    verificationPayload(params.id, params.hash, expires),
    params.signature,
  );
  if (!valid || expires * 1000 < now) throw new HttpError(403, VERIFICATION_LINK_INVALID);
  const db = getDb(env.DB);
  const user = await db.select().from(schema.users).where(eq(schema.users.id, params.id)).get();
  // The link names the address it was sent to: after an email change, old links stop working.
  if (!user || (await sha256Hex(user.email.toLowerCase())) !== params.hash) {
    throw new HttpError(403, VERIFICATION_LINK_INVALID);
  }
  if (!user.emailVerifiedAt) {
    await db
      .update(schema.users)
      .set({ emailVerifiedAt: nowIso(now), updatedAt: nowIso(now) })
      .where(eq(schema.users.id, user.id));
  }
  return { userId: user.id };
}

/**
 * Always answers the same, whether or not the address belongs to a member, and does the same work
 * before answering (docs/decisions/021, 027): the two limits, then one job on the email queue that
 * names the address. Whether the address is a member's is only looked at by the queue's consumer
 * (`passwordResetMail`), after the answer has gone.
 */
export async function requestPasswordReset(env: Env, email: string, meta: RequestMeta) {
  await limited(rateLimit.hit(env, "forgot_password_ip", meta.ip));
  const account = await rateLimit.hit(env, "forgot_password_account", email.toLowerCase());
  if (!account.allowed) throw tooManyRequests(account.retryAfter);
  await queueMail(env, { kind: "password_reset", address: email, origin: meta.origin });
  return { status: RESET_LINK_SENT };
}

/**
 * The email a password-reset job sends (the email queue's consumer calls it): an active member
 * gets a link with a fresh token, stored now; an address without an active account gets a note
 * saying so, with a link to register and nothing that resets anything.
 */
export async function passwordResetMail(
  env: Env,
  address: string,
  origin: string,
  now = Date.now(),
): Promise<Email> {
  const db = getDb(env.DB);
  const row = await db
    .select({ user: schema.users, firstName: schema.profiles.firstName })
    .from(schema.users)
    .leftJoin(schema.profiles, eq(schema.profiles.userId, schema.users.id))
    .where(sql`${schema.users.email} = ${address} COLLATE NOCASE`)
    .get();
  if (row?.user.status !== "active") {
    return passwordResetNoAccountEmail(address, new URL("/register", origin).toString());
  }
  const user = row.user;
  const token = randomToken(32);
  await db.insert(schema.passwordResetTokens).values({
    tokenHash: await sha256Hex(token),
    userId: user.id,
    createdAt: nowIso(now),
    expiresAt: nowIso(now + RESET_TTL_MS),
  });
  const url = new URL(`/reset-password/${token}`, origin);
  url.searchParams.set("email", user.email);
  const name = displayName({ firstName: row.firstName, username: user.username });
  return passwordResetEmail(user.email, name, url.toString());
}

/** The reset token stored under `tokenHash` and its member, while it is unused and unexpired. */
async function usableResetToken(env: Env, tokenHash: string, now: number) {
  const row = await getDb(env.DB)
    .select({ token: schema.passwordResetTokens, user: schema.users })
    .from(schema.passwordResetTokens)
    .innerJoin(schema.users, eq(schema.users.id, schema.passwordResetTokens.userId))
    .where(eq(schema.passwordResetTokens.tokenHash, tokenHash))
    .get();
  if (!row || row.token.usedAt || Date.parse(row.token.expiresAt) <= now) return null;
  return row;
}

/**
 * Whether a reset link can still be used, so that its page can say at once when it cannot. Only
 * reads: the token is spent by `resetPassword`, not here.
 */
export async function isResetTokenUsable(env: Env, token: string, now = Date.now()) {
  if (token.length < 16 || token.length > 128) return false;
  return (await usableResetToken(env, await sha256Hex(token), now)) !== null;
}

/** Uses a reset token once: the password changes, the token is spent and every session ends. */
export async function resetPassword(
  env: Env,
  input: z.infer<typeof resetPasswordSchema>,
  meta: RequestMeta,
  now = Date.now(),
) {
  await limited(rateLimit.hit(env, "reset_password_ip", meta.ip));
  const db = getDb(env.DB);
  const tokenHash = await sha256Hex(input.token);
  const row = await usableResetToken(env, tokenHash, now);
  if (!row || row.user.email.toLowerCase() !== input.email.toLowerCase()) {
    throw new ValidationError({ email: [RESET_TOKEN_INVALID] });
  }
  // Spend the token first, conditionally, so two concurrent uses cannot both succeed.
  const spent = await db
    .update(schema.passwordResetTokens)
    .set({ usedAt: nowIso(now) })
    .where(
      and(
        eq(schema.passwordResetTokens.tokenHash, tokenHash),
        isNull(schema.passwordResetTokens.usedAt),
        gt(schema.passwordResetTokens.expiresAt, nowIso(now)),
      ),
    )
    .returning({ tokenHash: schema.passwordResetTokens.tokenHash });
  if (spent.length === 0) throw new ValidationError({ email: [RESET_TOKEN_INVALID] });
  await db.batch([
    db
      .update(schema.users)
      .set({
        passwordHash: await hashPassword(input.password),
        passwordChangedAt: nowIso(now),
        updatedAt: nowIso(now),
        // Following a link from the inbox proves the address.
        emailVerifiedAt: row.user.emailVerifiedAt ?? nowIso(now),
      })
      .where(eq(schema.users.id, row.user.id)),
    db
      .update(schema.passwordResetTokens)
      .set({ usedAt: nowIso(now) })
      .where(
        and(
          eq(schema.passwordResetTokens.userId, row.user.id),
          isNull(schema.passwordResetTokens.usedAt),
        ),
      ),
  ]);
  await destroyAllSessions(env, row.user.id);
  await endMemberSockets(env, row.user.id);
  // The owner proved the address: strangers' guesses no longer hold them back (the backstop
  // across networks, and this network's count). The caller also makes this browser one of their
  // known devices, whose sign-ins strangers' failures never reach (docs/decisions/021).
  const account = row.user.email.toLowerCase();
  await Promise.all([
    rateLimit.clear(env, "login_account_global", account),
    rateLimit.clear(env, "login_account", `${account}|${networkOf(meta.ip)}`),
  ]);
  return { status: PASSWORD_RESET_DONE, memberId: row.user.id };
}

/**
 * Checks the member's own password for a sensitive step (confirming it, changing it): counted
 * before the check and given back on success, as for login; a wrong one is a 422 on `field`.
 */
async function checkOwnPassword(env: Env, userId: string, password: string, field: string) {
  const attemptAt = Date.now();
  await limited(rateLimit.hit(env, "confirm_password_account", userId, attemptAt));
  const row = await getDb(env.DB)
    .select({ passwordHash: schema.users.passwordHash })
    .from(schema.users)
    .where(eq(schema.users.id, userId))
    .get();
  if (!row || !(await verifyPassword(password, row.passwordHash))) {
    throw new ValidationError({ [field]: [CURRENT_PASSWORD_INCORRECT] });
  }
  await rateLimit.release(env, "confirm_password_account", userId, attemptAt);
}

export async function confirmPassword(
  env: Env,
  user: SessionUser,
  session: ActiveSession,
  input: z.infer<typeof confirmPasswordSchema>,
) {
  await checkOwnPassword(env, user.id, input.password, "password");
  await markPasswordConfirmed(env, session.idHash);
}

/**
 * Changes the password (behind a recent confirmation and the current password, which a session
 * left open cannot know) and ends every other session.
 */
export async function changePassword(
  env: Env,
  user: SessionUser,
  session: ActiveSession,
  input: z.infer<typeof updatePasswordSchema>,
  origin: string,
) {
  await checkOwnPassword(env, user.id, input.current_password, "current_password");
  const now = nowIso();
  await getDb(env.DB)
    .update(schema.users)
    .set({
      passwordHash: await hashPassword(input.password),
      passwordChangedAt: now,
      updatedAt: now,
    })
    .where(eq(schema.users.id, user.id));
  await destroyOtherSessions(env, user.id, session.idHash);
  await endMemberSockets(env, user.id, { sessions: { allBut: session.idHash } });
  await queueEmail(
    env,
    passwordChangedEmail(
      user.email,
      displayName(user),
      new URL("/forgot-password", origin).toString(),
    ),
  );
}
