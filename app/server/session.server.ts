import { and, eq, ne, sql } from "drizzle-orm";
import { cookieName, expireCookie, readCookie, serializeCookie } from "./cookies.server";
import { randomToken, sha256Hex } from "./crypto.server";
import { getDb, nowIso, schema } from "./db.server";
import { searchOriginSql } from "./geo.server";
import type { Env } from "./env.server";
import { emailNotVerified } from "./errors.server";
import { compile, selection } from "./sql.server";

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** Session lifetimes: idle (since last activity) and absolute (since sign-in). */
export const SESSION_POLICY = {
  standard: { idleMs: 2 * HOUR, absoluteMs: 12 * HOUR },
  remember: { idleMs: 30 * DAY, absoluteMs: 90 * DAY },
  /** last_active_at is written at most this often, to keep reads cheap. */
  touchEveryMs: 5 * 60_000,
  /** Sensitive actions need a password confirmation younger than this. */
  passwordConfirmationMs: 3 * HOUR,
} as const;

export const sessionCookieName = (env: Env) => cookieName(env, "heartline_session");

export interface SessionUser {
  id: string;
  username: string;
  email: string;
  emailVerifiedAt: string | null;
  role: "member" | "moderator";
  status: "active" | "suspended";
  /** Hidden from search by reports until a moderator reviews them: told on every page. */
  hiddenByReports: boolean;
  hideOnline: boolean;
  createdAt: string;
  /** The profile's first name, which greets the member wherever the app addresses them. */
  firstName: string | null;
  onboarding: "pending" | "skipped" | "done";
  /**
   * The profile's date of birth and the ages it looks for (null: no profile yet): whom the
   * member's searches find, read with the session so that a search needs no read of its own.
   */
  ages: {
    dob: string;
    ageMin: number;
    ageMax: number;
    /** The place searches start from (travel or own), null without coordinates. */
    latitude: number | null;
    longitude: number | null;
  } | null;
}

/** 403 unless the member's email is verified (what every member-to-member feature needs). */
export function requireVerifiedEmail(user: Pick<SessionUser, "emailVerifiedAt">): void {
  if (!user.emailVerifiedAt) throw emailNotVerified();
}

export interface ActiveSession {
  idHash: string;
  userId: string;
  remember: boolean;
  createdAt: string;
  /**
   * When the session ends at the latest (ISO; SESSION_POLICY's absolute lifetime from sign-in):
   * the socket tickets it mints end with it (socket-ticket.server.ts).
   */
  expiresAt: string;
  passwordConfirmedAt: string | null;
}

export async function createSession(
  env: Env,
  userId: string,
  opts: { remember: boolean; ip?: string | null; userAgent?: string | null },
  now = Date.now(),
): Promise<{ token: string; cookie: string }> {
  const token = randomToken(32);
  const policy = opts.remember ? SESSION_POLICY.remember : SESSION_POLICY.standard;
  await getDb(env.DB)
    .insert(schema.sessions)
    .values({
      idHash: await sha256Hex(token),
      userId,
      remember: opts.remember,
      createdAt: nowIso(now),
      lastActiveAt: nowIso(now),
      expiresAt: nowIso(now + policy.absoluteMs),
      passwordConfirmedAt: nowIso(now),
      ip: opts.ip ?? null,
      userAgent: opts.userAgent?.slice(0, 300) ?? null,
    });
  const cookie = serializeCookie(env, sessionCookieName(env), token, {
    maxAge: opts.remember ? policy.absoluteMs / 1000 : undefined,
  });
  return { token, cookie };
}

/** The signed-in member of a request, or null. Ends sessions that have idled or expired. */
export async function readSession(
  env: Env,
  request: Request,
  now = Date.now(),
): Promise<{ session: ActiveSession; user: SessionUser } | null> {
  const token = readCookie(request, sessionCookieName(env));
  if (!token || token.length < 40 || token.length > 64) return null;
  return readSessionById(env, await sha256Hex(token), now);
}

/**
 * What a request reads of its session, its member, their first name and the ages their searches
 * find: one statement, its text made once (every request runs it: the floor under every call),
 * its rows read as drizzle would.
 */
const sessionFields = selection({
  userId: schema.sessions.userId,
  remember: schema.sessions.remember,
  createdAt: schema.sessions.createdAt,
  lastActiveAt: schema.sessions.lastActiveAt,
  expiresAt: schema.sessions.expiresAt,
  passwordConfirmedAt: schema.sessions.passwordConfirmedAt,
});
const userFields = selection({
  id: schema.users.id,
  username: schema.users.username,
  email: schema.users.email,
  emailVerifiedAt: schema.users.emailVerifiedAt,
  role: schema.users.role,
  status: schema.users.status,
  hiddenByReports: schema.users.hiddenByReports,
  hideOnline: schema.users.hideOnline,
  userCreatedAt: schema.users.createdAt,
  onboarding: schema.users.onboarding,
  firstName: schema.profiles.firstName,
  dob: schema.profiles.dateOfBirth,
  ageMin: schema.profiles.ageMin,
  ageMax: schema.profiles.ageMax,
  // The place the member searches from: their travel place while they travel, else their own.
  ...searchOriginSql("profiles"),
});
const SESSION_QUERY = compile(
  sql`SELECT ${sessionFields.sql}, ${userFields.sql} FROM ${schema.sessions}
      JOIN ${schema.users} ON ${schema.users.id} = ${schema.sessions.userId}
      LEFT JOIN ${schema.profiles} ON ${schema.profiles.userId} = ${schema.sessions.userId}
      WHERE ${schema.sessions.idHash} = ${""}`,
).text;

/**
 * The session stored under `idHash` and its member, or null when it does not exist or has ended
 * (ending it then). Channel tokens name the session that minted them and come back here.
 */
export async function readSessionById(
  env: Env,
  idHash: string,
  now = Date.now(),
): Promise<{ session: ActiveSession; user: SessionUser } | null> {
  if (!/^[0-9a-f]{64}$/.test(idHash)) return null;
  const row = await env.DB.prepare(SESSION_QUERY).bind(idHash).first<Record<string, unknown>>();
  if (!row) return null;
  const session = sessionFields.read(row);
  const user = userFields.read(row);
  const policy = session.remember ? SESSION_POLICY.remember : SESSION_POLICY.standard;
  const lastActive = Date.parse(session.lastActiveAt);
  if (
    now >= Date.parse(session.expiresAt) ||
    now - lastActive >= policy.idleMs ||
    user.status !== "active"
  ) {
    await destroySession(env, idHash);
    return null;
  }
  if (now - lastActive >= SESSION_POLICY.touchEveryMs) {
    await getDb(env.DB)
      .update(schema.sessions)
      .set({ lastActiveAt: nowIso(now) })
      .where(eq(schema.sessions.idHash, idHash));
  }
  return {
    session: {
      idHash,
      userId: session.userId,
      remember: session.remember,
      createdAt: session.createdAt,
      expiresAt: session.expiresAt,
      passwordConfirmedAt: session.passwordConfirmedAt,
    },
    user: {
      id: user.id,
      username: user.username,
      email: user.email,
      emailVerifiedAt: user.emailVerifiedAt,
      role: user.role,
      status: user.status,
      hiddenByReports: user.hiddenByReports,
      hideOnline: user.hideOnline,
      createdAt: user.userCreatedAt,
      firstName: user.firstName,
      onboarding: user.onboarding,
      ages:
        user.dob !== null && user.ageMin !== null && user.ageMax !== null
          ? {
              dob: user.dob,
              ageMin: user.ageMin,
              ageMax: user.ageMax,
              latitude: user.latitude,
              longitude: user.longitude,
            }
          : null,
    },
  };
}

export async function destroySession(env: Env, idHash: string): Promise<void> {
  await getDb(env.DB).delete(schema.sessions).where(eq(schema.sessions.idHash, idHash));
}

export async function destroyOtherSessions(env: Env, userId: string, keepIdHash: string) {
  await getDb(env.DB)
    .delete(schema.sessions)
    .where(and(eq(schema.sessions.userId, userId), ne(schema.sessions.idHash, keepIdHash)));
}

export async function destroyAllSessions(env: Env, userId: string) {
  await getDb(env.DB).delete(schema.sessions).where(eq(schema.sessions.userId, userId));
}

export async function markPasswordConfirmed(env: Env, idHash: string, now = Date.now()) {
  await getDb(env.DB)
    .update(schema.sessions)
    .set({ passwordConfirmedAt: nowIso(now) })
    .where(eq(schema.sessions.idHash, idHash));
}

export function isPasswordRecentlyConfirmed(session: ActiveSession, now = Date.now()): boolean {
  if (!session.passwordConfirmedAt) return false;
  return now - Date.parse(session.passwordConfirmedAt) < SESSION_POLICY.passwordConfirmationMs;
}

export const clearSessionCookie = (env: Env) => expireCookie(env, sessionCookieName(env));
