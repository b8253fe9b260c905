import { sql } from "drizzle-orm";
import { z } from "zod";
import type { ReportReasonType } from "~/schemas/report";
import {
  APPEAL_MESSAGES,
  type AppealInput,
  type AppealKind,
  type StandingView,
} from "~/schemas/verification";
import { tellAppealDecision } from "./account-notices.server";
import { cookieName, expireCookie, readCookie, serializeCookie } from "./cookies.server";
import { hmacSign, hmacVerify, newId } from "./crypto.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { HttpError, notFound } from "./errors.server";
import { erasePhotosAfter } from "./evidence.server";
import { emailKey } from "./returning.server";
import type { SessionUser } from "./session.server";
import { all, first, run, statement } from "./sql.server";

/**
 * Appeals (docs/decisions/042): a member hidden from search by reports, or suspended, is told why
 * (the kinds of reports that led to it, in plain words, never who made them) and may appeal once.
 * A moderator grants an appeal (the measure is lifted: the open reports are dismissed, or the
 * account is active again) or denies it (the measure stays, and there is no second appeal). A
 * granted appeal leaves the right to appeal a later measure.
 *
 * A suspended member has no session (suspension ends them all, and sign-in refuses the account):
 * signing in with the right password leaves instead a signed appeal cookie, good for an hour,
 * that opens their standing and the appeal form and nothing else.
 */

/** What a member is told for each kind of report that led to the measure. */
export const REASON_WORDS: Record<ReportReasonType, string> = {
  spam: "Members reported messages or a profile of yours as spam.",
  harassment: "Members reported that you harassed or threatened them.",
  inappropriate: "Members reported content of yours as inappropriate.",
  fake_profile: "Members reported that your profile may not be really you.",
  underage: "Members reported that you may be under 18.",
  scam: "Members reported that you asked them for money or tried to scam them.",
  other: "Members reported your behaviour to our moderators.",
};

/** The measure a member is under, read from their account. */
async function measureOf(
  env: Env,
  userId: string,
): Promise<{ kind: AppealKind | null; exists: boolean }> {
  const row = await first<{ status: string; hidden: number }>(
    env.DB,
    sql`SELECT status, hidden_by_reports AS hidden FROM users WHERE id = ${userId}`,
  );
  if (!row) return { kind: null, exists: false };
  if (row.status === "suspended") return { kind: "suspended", exists: true };
  return { kind: row.hidden ? "hidden" : null, exists: true };
}

/** GET /my/appeal: the measure, why, the member's appeal of it, and whether they may appeal. */
export async function standingOf(env: Env, userId: string): Promise<StandingView> {
  const { kind } = await measureOf(env, userId);
  if (!kind) return { measure: null, reasons: [], appeal: null, can_appeal: false };
  // Hidden: the open reports; suspended: the reports the suspension upheld.
  const status = kind === "hidden" ? "open" : "actioned";
  const [kinds, appeal] = await Promise.all([
    all<{ reason_type: ReportReasonType }>(
      env.DB,
      sql`SELECT DISTINCT reason_type FROM reports
          WHERE reported_id = ${userId} AND status = ${status} ORDER BY reason_type`,
    ),
    first<{ status: "open" | "granted" | "denied"; created_at: string }>(
      env.DB,
      sql`SELECT status, created_at FROM appeals WHERE user_id = ${userId} AND kind = ${kind}
          ORDER BY created_at DESC, id DESC LIMIT 1`,
    ),
  ]);
  const reasons = kinds.map((k) => REASON_WORDS[k.reason_type]);
  const current = appeal && appeal.status !== "granted" ? appeal : null;
  return {
    measure: kind,
    reasons: reasons.length ? reasons : [REASON_WORDS.other],
    appeal: current,
    can_appeal: current === null,
  };
}

/** POST /my/appeal: 201 once per measure; 409 with nothing to appeal or a second time. */
export async function submitAppeal(
  env: Env,
  userId: string,
  input: AppealInput,
  now = Date.now(),
): Promise<{ message: string; appeal: { status: "open"; created_at: string } }> {
  const { kind } = await measureOf(env, userId);
  if (!kind) throw new HttpError(409, APPEAL_MESSAGES.nothing);
  const createdAt = nowIso(now);
  // Once (the partial unique index appeals_once): a second appeal, even a concurrent one, fails.
  const stored = await all(
    env.DB,
    sql`INSERT INTO appeals (id, user_id, kind, text, status, created_at)
        VALUES (${newId()}, ${userId}, ${kind}, ${input.text}, 'open', ${createdAt})
        ON CONFLICT DO NOTHING RETURNING id`,
  );
  if (stored.length === 0) throw new HttpError(409, APPEAL_MESSAGES.once);
  return { message: APPEAL_MESSAGES.sent, appeal: { status: "open", created_at: createdAt } };
}

// ---------------------------------------------------------------------------------------------
// The suspended member's appeal cookie

const APPEAL_COOKIE_SECONDS = 3600;

export const appealCookieName = (env: Env) => cookieName(env, "heartline_appeal");

const appealPayload = (userId: string, expires: number) => `appeal:${userId}:${expires}`;

const appealToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}\.\d{1,12}\.[A-Za-z0-9_-]{43}$/)
  .transform((value) => {
    const [userId = "", expires = "", mac = ""] = value.split(".");
    return { userId, expires: Number(expires), mac };
  });

/** The Set-Cookie line that lets a suspended member who proved their password read and appeal. */
export async function appealCookie(env: Env, userId: string, now = Date.now()): Promise<string> {
  const expires = Math.floor(now / 1000) + APPEAL_COOKIE_SECONDS;
  const mac = await hmacSign(env.APP_KEY, appealPayload(userId, expires));
  return serializeCookie(env, appealCookieName(env), `${userId}.${expires}.${mac}`, {
    maxAge: APPEAL_COOKIE_SECONDS,
  });
}

export const clearAppealCookie = (env: Env) => expireCookie(env, appealCookieName(env));

/**
 * The suspended member a request's appeal cookie names, when the app signed it within the hour
 * and the account is still suspended; null otherwise.
 */
export async function suspendedAppellant(
  env: Env,
  request: Request,
  now = Date.now(),
): Promise<string | null> {
  const token = appealToken.safeParse(readCookie(request, appealCookieName(env)));
  if (!token.success) return null;
  const { userId, expires, mac } = token.data;
  if (now / 1000 >= expires) return null;
  if (!(await hmacVerify(env.APP_KEY, appealPayload(userId, expires), mac))) return null;
  const { kind } = await measureOf(env, userId);
  return kind === "suspended" ? userId : null;
}

/**
 * Who may read their standing and appeal on this request: the signed-in member, or else a
 * suspended member through their appeal cookie; null for neither.
 */
export async function appellantOf(
  env: Env,
  request: Request,
  user: Pick<SessionUser, "id"> | null,
): Promise<string | null> {
  return user?.id ?? (await suspendedAppellant(env, request));
}

// ---------------------------------------------------------------------------------------------
// Moderators

export interface ModerationAppeal {
  id: string;
  kind: AppealKind;
  text: string;
  created_at: string;
  member: {
    id: string;
    username: string;
    email: string;
    status: "active" | "suspended";
    hidden_from_search: boolean;
    /** The kinds of the reports behind the measure (open for hidden, upheld for suspended). */
    report_reasons: ReportReasonType[];
  };
}

/** GET /moderation/appeals: the open appeals, oldest first (few: a partial index holds them). */
export async function listOpenAppeals(env: Env): Promise<ModerationAppeal[]> {
  const rows = await all<{
    id: string;
    kind: AppealKind;
    text: string;
    created_at: string;
    user_id: string;
    username: string;
    email: string;
    status: "active" | "suspended";
    hidden: number;
    reasons: string;
  }>(
    env.DB,
    sql`SELECT a.id, a.kind, a.text, a.created_at, u.id AS user_id, u.username, u.email,
          u.status, u.hidden_by_reports AS hidden,
          (SELECT json_group_array(DISTINCT r.reason_type) FROM reports r
            WHERE r.reported_id = u.id
              AND r.status = CASE a.kind WHEN 'hidden' THEN 'open' ELSE 'actioned' END) AS reasons
        FROM appeals a INDEXED BY appeals_open JOIN users u ON u.id = a.user_id
        WHERE a.status = 'open' ORDER BY a.created_at, a.id LIMIT 100`,
  );
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    text: r.text,
    created_at: r.created_at,
    member: {
      id: r.user_id,
      username: r.username,
      email: r.email,
      status: r.status,
      hidden_from_search: r.hidden === 1,
      report_reasons: JSON.parse(r.reasons) as ReportReasonType[],
    },
  }));
}

async function openAppeal(env: Env, id: string) {
  const row = await first<{ user_id: string; kind: AppealKind; email: string }>(
    env.DB,
    sql`SELECT a.user_id, a.kind, u.email FROM appeals a JOIN users u ON u.id = a.user_id
        WHERE a.id = ${id} AND a.status = 'open'`,
  );
  if (!row) throw notFound("No open appeal with this id.");
  return row;
}

/**
 * Grants an appeal: the measure is lifted. Hidden: the member's open reports are dismissed (which
 * shows them in search again). Suspended: the account is active again and its address no longer
 * sends a new registration to review. The member is told (a notice and an email, links at
 * `origin`: account-notices.server.ts).
 */
export async function grantAppeal(
  env: Env,
  moderator: SessionUser,
  id: string,
  origin: string,
  now = Date.now(),
): Promise<{ message: string }> {
  const appeal = await openAppeal(env, id);
  const at = nowIso(now);
  const decide = sql`UPDATE appeals SET status = 'granted', decided_at = ${at}, decided_by = ${moderator.id}
      WHERE id = ${id} AND status = 'open'`;
  const lift =
    appeal.kind === "hidden"
      ? [
          // The photos kept with the reports dismissed go with them (ADR 049).
          erasePhotosAfter(
            env,
            sql`SELECT id FROM reports WHERE reported_id = ${appeal.user_id} AND status = 'open'`,
            at,
          ),
          statement(
            env.DB,
            sql`UPDATE reports SET status = 'dismissed', reviewed_at = ${at}, reviewed_by = ${moderator.id}
              WHERE reported_id = ${appeal.user_id} AND status = 'open'`,
          ),
        ]
      : [
          statement(
            env.DB,
            sql`UPDATE users SET status = 'active', updated_at = ${at} WHERE id = ${appeal.user_id}`,
          ),
          statement(
            env.DB,
            sql`DELETE FROM review_emails WHERE email_key = ${await emailKey(env, appeal.email)}
              AND reason = 'suspended'`,
          ),
        ];
  const [decided] = await env.DB.batch([statement(env.DB, decide), ...lift]);
  // Told once: a second moderator's grant of the same appeal decided nothing.
  if (decided?.meta.changes) {
    await tellAppealDecision(env, appeal.user_id, { measure: appeal.kind, granted: true }, origin);
  }
  return { message: APPEAL_MESSAGES.granted };
}

/**
 * Denies an appeal: the measure stays, and the member cannot appeal it again. The member is told
 * (a notice and an email, links at `origin`).
 */
export async function denyAppeal(
  env: Env,
  moderator: SessionUser,
  id: string,
  origin: string,
  now = Date.now(),
): Promise<{ message: string }> {
  const appeal = await openAppeal(env, id);
  const decided = await run(
    env.DB,
    sql`UPDATE appeals SET status = 'denied', decided_at = ${nowIso(now)}, decided_by = ${moderator.id}
        WHERE id = ${id} AND status = 'open'`,
  );
  if (decided.meta.changes) {
    await tellAppealDecision(env, appeal.user_id, { measure: appeal.kind, granted: false }, origin);
  }
  return { message: APPEAL_MESSAGES.denied };
}
