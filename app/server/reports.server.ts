import { sql, type SQL } from "drizzle-orm";
import {
  REPORT_HIDE_THRESHOLD,
  REPORT_HIDE_WEIGHT,
  REPORT_WEIGHT,
  REPORTED_MESSAGE,
  type ReportInput,
  type ReportReasonType,
} from "~/schemas/report";
import { cutOffRealtime } from "./account.server";
import { conversationOfMessage, conversationRoom } from "./chat-rooms.server";
import { newId } from "./crypto.server";
import { erasePhotosAfter, keepReportedPhotos, upheldPhotosEraseAfter } from "./evidence.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { forbidden, HttpError, notFound, ValidationError } from "./errors.server";
import { hit } from "./rate-limit.server";
import { destroyAllSessions, type SessionUser } from "./session.server";
import { rememberAddressOf } from "./returning.server";
import { stopRenewal } from "./subscriptions.server";
import { users } from "./db/schema";
import { reports } from "./db/safety";
import { all, first, firstOf, selection, statement } from "./sql.server";

/**
 * Reports and moderation: a member reports another (one report per reporter and member, so each
 * reporter counts once); each report weighs what its reporter's standing is worth, and a member
 * whose open reports weigh REPORT_HIDE_WEIGHT together is hidden from search until a moderator
 * reviews them (`users.hidden_by_reports`, which triggers on `reports` keep:
 * migrations/0023_report_weights.sql); moderators dismiss reports or suspend the
 * member (who then cannot sign in, and whose sessions end).
 */

export { REPORT_HIDE_THRESHOLD, REPORT_HIDE_WEIGHT };

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole days from `iso` to `now` (0 when there is no date). */
function daysSince(iso: string | null, now: number): number {
  const at = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(at) ? 0 : Math.max(0, Math.floor((now - at) / DAY_MS));
}

/** How many of the reports made by `reporterId` a moderator upheld (`actioned`) or dismissed. */
const reportsBy = (reporterId: SQL, status: "actioned" | "dismissed") =>
  sql`(SELECT count(*) FROM reports x WHERE x.reporter_id = ${reporterId} AND x.status = ${status})`;

/** What a reporter's reports weigh now, with what it is made of (moderators see both). */
export interface ReporterStanding {
  weight: number;
  verified_days: number;
  upheld: number;
  dismissed: number;
}

/**
 * A reporter's standing (docs/decisions/021): days since their email was verified, and how many
 * of their reports moderators upheld or dismissed; the weight their report carries follows
 * REPORT_WEIGHT.
 */
export async function reporterStanding(
  env: Env,
  reporterId: string,
  now = Date.now(),
): Promise<ReporterStanding> {
  const row = await first<{ verified_at: string | null; upheld: number; dismissed: number }>(
    env.DB,
    sql`SELECT u.email_verified_at AS verified_at,
          ${reportsBy(sql`u.id`, "actioned")} AS upheld,
          ${reportsBy(sql`u.id`, "dismissed")} AS dismissed
        FROM users u WHERE u.id = ${reporterId}`,
  );
  const days = daysSince(row?.verified_at ?? null, now);
  const upheld = row?.upheld ?? 0;
  const dismissed = row?.dismissed ?? 0;
  return { weight: reportWeight(days, upheld, dismissed), verified_days: days, upheld, dismissed };
}

/** REPORT_WEIGHT's rule: nothing from an account verified less than NEW_DAYS ago. */
export function reportWeight(verifiedDays: number, upheld: number, dismissed: number): number {
  if (verifiedDays < REPORT_WEIGHT.NEW_DAYS) return 0;
  const base =
    verifiedDays >= REPORT_WEIGHT.SEASONED_DAYS
      ? REPORT_WEIGHT.SEASONED
      : REPORT_WEIGHT.ESTABLISHED;
  const weight = base + Math.min(upheld, REPORT_WEIGHT.UPHELD_BONUS_MAX) - dismissed;
  return Math.max(0, Math.min(REPORT_WEIGHT.MAX, weight));
}

export const MODERATION_PAGE_SIZE = 50;

export const SUSPENDED_DONE = "The member has been suspended.";
export const REPORT_DISMISSED = "The report has been dismissed.";
export const MESSAGE_NOT_FOUND = "The reported message could not be found.";
export const TOO_MANY_REPORTS = "You have sent too many reports. Please try again later.";

const tooManyReports = (retryAfter: number) =>
  new HttpError(429, TOO_MANY_REPORTS, undefined, {
    "Retry-After": String(Math.max(1, retryAfter)),
  });

export interface ReportView {
  id: string;
  user_id: string;
  reason_type: ReportReasonType;
  details: string | null;
  message_id: string | null;
  status: "open" | "dismissed" | "actioned";
  created_at: string;
}

/**
 * The text of a message the reported member sent in a conversation with the reporter (a report
 * may point at one), read from the conversation's room; null when there is no such message.
 */
async function reportedMessageText(
  env: Env,
  reporterId: string,
  reportedId: string,
  messageId: string,
): Promise<string | null> {
  const conversationId = await conversationOfMessage(env, messageId);
  if (!conversationId) return null;
  const [low, high] = reporterId < reportedId ? [reporterId, reportedId] : [reportedId, reporterId];
  const pair = await first(
    env.DB,
    sql`SELECT 1 AS ok FROM conversations WHERE id = ${conversationId} AND user_low = ${low} AND user_high = ${high}`,
  );
  if (!pair) return null;
  const message = await conversationRoom(env, conversationId).findMessage(
    conversationId,
    messageId,
  );
  return message && message.sender_id === reportedId ? message.message : null;
}

/** A member, as a report or a suspension finds them. */
const memberFields = selection({ id: users.id, role: users.role });

/** A report as the reporter sees it stored (the statement's RETURNING list names the same). */
const storedReport = selection({
  id: reports.id,
  reported_id: reports.reportedId,
  reason_type: reports.reasonType,
  details: reports.details,
  message_id: reports.messageId,
  status: reports.status,
  created_at: reports.createdAt,
});

/**
 * POST /reports. Reporting stays possible across a block either way (a member often blocks and
 * reports together). Reporting the same member again updates the report and opens it again. A
 * reporter may file report_account reports in its window (429 past it, with Retry-After); each
 * report weighs what its reporter's standing is worth (docs/decisions/021).
 */
export async function reportMember(
  env: Env,
  reporterId: string,
  input: ReportInput,
  now = Date.now(),
): Promise<{ message: string; report: ReportView }> {
  if (input.user_id === reporterId) {
    throw new ValidationError({ user_id: ["You cannot report yourself."] });
  }
  const target = await firstOf(
    env.DB,
    memberFields,
    sql`SELECT ${memberFields.sql} FROM users WHERE id = ${input.user_id}`,
  );
  if (!target) throw notFound("Member not found.");
  const limit = await hit(env, "report_account", reporterId, now);
  if (!limit.allowed) throw tooManyReports(limit.retryAfter);

  let messageText: string | null = null;
  if (input.message_id) {
    messageText = await reportedMessageText(env, reporterId, input.user_id, input.message_id);
    if (messageText === null) throw new ValidationError({ message_id: [MESSAGE_NOT_FOUND] });
  }

  const createdAt = nowIso(now);
  const { weight } = await reporterStanding(env, reporterId, now);
  const row = await firstOf(
    env.DB,
    storedReport,
    sql`INSERT INTO reports (id, reporter_id, reported_id, reason_type, details, message_id,
                          message_text, status, created_at, weight)
     VALUES (${newId()}, ${reporterId}, ${input.user_id}, ${input.reason_type}, ${input.details ?? null}, ${input.message_id ?? null}, ${messageText}, 'open', ${createdAt}, ${weight})
     ON CONFLICT (reporter_id, reported_id) DO UPDATE SET weight = excluded.weight,
       reason_type = excluded.reason_type, details = excluded.details,
       message_id = excluded.message_id, message_text = excluded.message_text,
       status = 'open', created_at = excluded.created_at, reviewed_at = NULL, reviewed_by = NULL
     RETURNING id, reported_id, reason_type, details, message_id, status, created_at`,
  );
  if (!row) throw new HttpError(500, "The report could not be stored.");
  // The reported member's photos as the reporter saw them, kept for the moderators (ADR 049).
  await keepReportedPhotos(env, row.id, input.user_id, now);
  return {
    message: REPORTED_MESSAGE,
    report: {
      id: row.id,
      user_id: row.reported_id,
      reason_type: row.reason_type,
      details: row.details,
      message_id: row.message_id,
      status: row.status,
      created_at: row.created_at,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Moderation

export const isModerator = (user: Pick<SessionUser, "role"> | null | undefined) =>
  user?.role === "moderator";

/** Moderation is invisible to members: 404, as for a page that does not exist. */
export function requireModerator(user: SessionUser | null | undefined): SessionUser {
  if (!user || !isModerator(user)) throw notFound();
  return user;
}

export interface ModerationReport {
  id: string;
  reason_type: ReportReasonType;
  details: string | null;
  message_id: string | null;
  message_text: string | null;
  created_at: string;
  /** What the report weighs (its reporter's standing when they made it; docs/decisions/021). */
  weight: number;
  /** The reporter's record: days since verifying their email, reports upheld and dismissed. */
  reporter: {
    id: string;
    username: string;
    verified_days: number;
    reports_upheld: number;
    reports_dismissed: number;
  };
  reported: {
    id: string;
    username: string;
    email: string;
    status: "active" | "suspended";
    open_reports: number;
    /** The open reports' weight together (hidden from search from REPORT_HIDE_WEIGHT). */
    open_weight: number;
    hidden_from_search: boolean;
  };
}

/** Open reports, oldest first (the longest waiting at the top), a page at a time. */
export async function listOpenReports(env: Env, page = 1, now = Date.now()) {
  const current = Number.isInteger(page) && page > 0 ? page : 1;
  const results = await all<{
    id: string;
    reason_type: ReportReasonType;
    details: string | null;
    message_id: string | null;
    message_text: string | null;
    created_at: string;
    weight: number;
    reporter_id: string;
    reporter_username: string;
    reporter_verified_at: string | null;
    reporter_upheld: number;
    reporter_dismissed: number;
    reported_id: string;
    reported_username: string;
    reported_email: string;
    reported_status: "active" | "suspended";
    reported_hidden: number;
    open_reports: number;
    open_weight: number;
  }>(
    env.DB,
    sql`SELECT r.id, r.reason_type, r.details, r.message_id, r.message_text, r.created_at, r.weight,
            rep.id AS reporter_id, rep.username AS reporter_username,
            rep.email_verified_at AS reporter_verified_at,
            ${reportsBy(sql`rep.id`, "actioned")} AS reporter_upheld,
            ${reportsBy(sql`rep.id`, "dismissed")} AS reporter_dismissed,
            u.id AS reported_id, u.username AS reported_username, u.email AS reported_email,
            u.status AS reported_status, u.hidden_by_reports AS reported_hidden,
            (SELECT count(*) FROM reports o WHERE o.reported_id = u.id AND o.status = 'open')
              AS open_reports,
            (SELECT coalesce(sum(o.weight), 0) FROM reports o
              WHERE o.reported_id = u.id AND o.status = 'open') AS open_weight
     FROM reports r
     JOIN users rep ON rep.id = r.reporter_id
     JOIN users u ON u.id = r.reported_id
     WHERE r.status = 'open'
     ORDER BY r.created_at, r.id
     LIMIT ${MODERATION_PAGE_SIZE + 1} OFFSET ${(current - 1) * MODERATION_PAGE_SIZE}`,
  );
  const reports: ModerationReport[] = results.slice(0, MODERATION_PAGE_SIZE).map((r) => ({
    id: r.id,
    reason_type: r.reason_type,
    details: r.details,
    message_id: r.message_id,
    message_text: r.message_text,
    created_at: r.created_at,
    weight: r.weight,
    reporter: {
      id: r.reporter_id,
      username: r.reporter_username,
      verified_days: daysSince(r.reporter_verified_at, now),
      reports_upheld: r.reporter_upheld,
      reports_dismissed: r.reporter_dismissed,
    },
    reported: {
      id: r.reported_id,
      username: r.reported_username,
      email: r.reported_email,
      status: r.reported_status,
      open_reports: r.open_reports,
      open_weight: r.open_weight,
      hidden_from_search: r.reported_hidden === 1,
    },
  }));
  return {
    reports,
    meta: {
      page: current,
      per_page: MODERATION_PAGE_SIZE,
      has_more: results.length > MODERATION_PAGE_SIZE,
    },
  };
}

/**
 * A moderator closes one report without action; the photos kept with it are erased at the next
 * housekeeping run (nothing of a dismissed report is kept: ADR 005, 049).
 */
export async function dismissReport(env: Env, moderator: SessionUser, reportId: string) {
  const at = nowIso();
  const [result] = await env.DB.batch([
    statement(
      env.DB,
      sql`UPDATE reports SET status = 'dismissed', reviewed_at = ${at}, reviewed_by = ${moderator.id}
       WHERE id = ${reportId} AND status = 'open'`,
    ),
    erasePhotosAfter(
      env,
      sql`SELECT id FROM reports WHERE id = ${reportId} AND status = 'dismissed'`,
      at,
    ),
  ]);
  if (!result?.meta.changes) {
    const exists = await first(env.DB, sql`SELECT 1 FROM reports WHERE id = ${reportId}`);
    if (!exists) throw notFound("Report not found.");
  }
  return { message: REPORT_DISMISSED };
}

/**
 * A moderator suspends a member: the account is marked suspended (sign-in refuses it), every
 * session ends, the member's open reports are closed as actioned, and their open conversation
 * sockets and presence go away. A moderator cannot suspend themself or another moderator.
 */
export async function suspendMember(env: Env, moderator: SessionUser, userId: string) {
  if (userId === moderator.id) throw forbidden("You cannot suspend yourself.");
  const target = await firstOf(
    env.DB,
    memberFields,
    sql`SELECT ${memberFields.sql} FROM users WHERE id = ${userId}`,
  );
  if (!target) throw notFound("Member not found.");
  if (target.role === "moderator") throw forbidden("A moderator cannot be suspended here.");
  const now = nowIso();
  await env.DB.batch([
    statement(
      env.DB,
      sql`UPDATE users SET status = 'suspended', updated_at = ${now} WHERE id = ${userId}`,
    ),
    // The photos kept with the reports now upheld stay REPORT_RETENTION_DAYS (ADR 049).
    erasePhotosAfter(
      env,
      sql`SELECT id FROM reports WHERE reported_id = ${userId} AND status = 'open'`,
      upheldPhotosEraseAfter(env),
    ),
    statement(
      env.DB,
      sql`UPDATE reports SET status = 'actioned', reviewed_at = ${now}, reviewed_by = ${moderator.id}
       WHERE reported_id = ${userId} AND status = 'open'`,
    ),
  ]);
  await destroyAllSessions(env, userId);
  await cutOffRealtime(env, userId);
  // Their address sends a new registration to review (returning.server.ts).
  await rememberAddressOf(env, userId, "suspended");
  // A suspended member is billed no further: the subscription does not renew (ADR 008).
  await stopRenewal(env, userId);
  return { message: SUSPENDED_DONE };
}
