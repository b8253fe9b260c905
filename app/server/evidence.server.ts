import { sql } from "drizzle-orm";
import type { EvidenceMessage } from "~/schemas/evidence";
import type { ReportReasonType } from "~/schemas/report";
import { conversationRoom } from "./chat-rooms.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { notFound } from "./errors.server";
import type { Job } from "./housekeeping.server";
import { logFailure } from "./log.server";
import { memberHub } from "./member-hub.server";
import { all, first, statement } from "./sql.server";

/**
 * Evidence that outlives a deletion (docs/decisions/005, "What is kept after deletion"): when a
 * member who was reported deletes their account, each report against them that a moderator has
 * not dismissed is kept with a snapshot of their profile and of the conversation between them and
 * its reporter, so that deleting oneself before a moderator looks erases nothing a moderator
 * needs. Readable by moderators only (GET /moderation/evidence and the moderation page), erased by
 * housekeeping REPORT_RETENTION_DAYS after the deletion.
 */

/** Days a report's evidence is kept after the reported member deleted their account. */
export const DEFAULT_REPORT_RETENTION_DAYS = 90;

export function retentionDays(env: Pick<Env, "REPORT_RETENTION_DAYS">): number {
  const days = Number(env.REPORT_RETENTION_DAYS);
  return Number.isFinite(days) && days > 0 ? days : DEFAULT_REPORT_RETENTION_DAYS;
}

/** The reported member's profile as it stood when they left. */
export interface EvidenceProfile {
  username: string;
  first_name: string | null;
  last_name: string | null;
  date_of_birth: string | null;
  gender: string | null;
  location: unknown;
  bio: string | null;
  interests: unknown;
  prompts: unknown;
  joined_at: string;
  status: string;
}

export type { EvidenceMessage };

export interface Evidence {
  id: string;
  reporter_id: string;
  reported_id: string;
  reason_type: ReportReasonType;
  details: string | null;
  message_id: string | null;
  message_text: string | null;
  status: "open" | "dismissed" | "actioned";
  weight: number;
  reported_at: string;
  profile: EvidenceProfile;
  conversation: EvidenceMessage[] | null;
  kept_at: string;
  erase_after: string;
}

interface ReportRow {
  id: string;
  reporter_id: string;
  reason_type: string;
  details: string | null;
  message_id: string | null;
  message_text: string | null;
  status: string;
  weight: number;
  created_at: string;
}

/**
 * The conversations of `reported` and `reporter` (one that an unmatch ended, then a new one after
 * they matched again), oldest first, deleted messages included; null when they never talked.
 */
async function conversationBetween(
  env: Env,
  reported: string,
  reporter: string,
): Promise<EvidenceMessage[] | null> {
  const [low, high] = reported < reporter ? [reported, reporter] : [reporter, reported];
  const conversations = await all<{ id: string }>(
    env.DB,
    sql`SELECT id FROM conversations WHERE user_low = ${low} AND user_high = ${high}
     ORDER BY created_at, id`,
  );
  if (!conversations.length) return null;
  const messages = (
    await Promise.all(conversations.map(({ id }) => conversationRoom(env, id).allMessages(id)))
  ).flat();
  return messages.map((m) => ({
    from: m.sender_id === reported ? "reported" : "reporter",
    text: m.message,
    sent_at: m.sent_at,
    deleted_at: m.deleted_at,
    gift: m.gift ? m.gift.name : null,
    attachment: m.attachment ? m.attachment.kind : null,
  }));
}

/**
 * Before `userId`'s account is deleted: keeps every report against them that is not dismissed,
 * with their profile and each reporter's conversation with them. Runs before the conversations
 * are erased. Says how many reports are kept (by this run or by an earlier, interrupted one: a
 * report is kept once).
 */
export async function keepEvidenceOf(env: Env, userId: string, now = Date.now()): Promise<number> {
  const reports = await all<ReportRow>(
    env.DB,
    sql`SELECT id, reporter_id, reason_type, details, message_id, message_text, status, weight, created_at
     FROM reports WHERE reported_id = ${userId} AND status <> 'dismissed'`,
  );
  if (!reports.length) return 0;
  const row = await first<{
    username: string;
    first_name: string | null;
    last_name: string | null;
    date_of_birth: string | null;
    gender: string | null;
    location: string | null;
    bio: string | null;
    interests: string | null;
    prompts: string | null;
    joined_at: string;
    status: string;
  }>(
    env.DB,
    sql`SELECT u.username, p.first_name, p.last_name, p.date_of_birth, p.gender, p.location,
       p.bio, p.interests, p.prompts, u.created_at AS joined_at, u.status
     FROM users u LEFT JOIN profiles p ON p.user_id = u.id WHERE u.id = ${userId}`,
  );
  if (!row) return 0;
  const parsed = (text: string | null) => (text ? (JSON.parse(text) as unknown) : null);
  const profile: EvidenceProfile = {
    username: row.username,
    first_name: row.first_name,
    last_name: row.last_name,
    date_of_birth: row.date_of_birth,
    gender: row.gender,
    location: parsed(row.location),
    bio: row.bio,
    interests: parsed(row.interests),
    prompts: parsed(row.prompts),
    joined_at: row.joined_at,
    status: row.status,
  };
  const keptAt = nowIso(now);
  const eraseAfter = nowIso(now + retentionDays(env) * 86_400_000);
  const rows = await Promise.all(
    reports.map(async (report) => {
      // A room that cannot be read must not stop the deletion: the report is kept without it.
      const conversation = await conversationBetween(env, userId, report.reporter_id).catch(
        (error: unknown) => {
          logFailure("evidence_conversation", error, { report_id: report.id });
          return null;
        },
      );
      return statement(
        env.DB,
        sql`INSERT INTO report_evidence (id, reporter_id, reported_id, reason_type, details,
           message_id, message_text, status, weight, reported_at, profile, conversation, kept_at,
           erase_after)
         VALUES (${report.id}, ${report.reporter_id}, ${userId}, ${report.reason_type},
           ${report.details}, ${report.message_id}, ${report.message_text}, ${report.status},
           ${report.weight}, ${report.created_at}, ${JSON.stringify(profile)},
           ${conversation ? JSON.stringify(conversation) : null}, ${keptAt}, ${eraseAfter})
         ON CONFLICT (id) DO NOTHING`,
      );
    }),
  );
  await env.DB.batch(rows);
  return reports.length;
}

export const EVIDENCE_PAGE_SIZE = 20;

/** What moderators keep of deleted members' reports, newest first, a page at a time. */
export async function listEvidence(env: Env, page = 1) {
  const current = Number.isInteger(page) && page > 0 ? page : 1;
  // The row as stored: the profile and the conversation are JSON text.
  const rows = await all<
    Omit<Evidence, "profile" | "conversation"> & { profile: string; conversation: string | null }
  >(
    env.DB,
    sql`SELECT * FROM report_evidence ORDER BY kept_at DESC, id
     LIMIT ${EVIDENCE_PAGE_SIZE + 1} OFFSET ${(current - 1) * EVIDENCE_PAGE_SIZE}`,
  );
  const evidence: Evidence[] = rows.slice(0, EVIDENCE_PAGE_SIZE).map((r) => ({
    ...r,
    profile: JSON.parse(r.profile) as EvidenceProfile,
    conversation: r.conversation ? (JSON.parse(r.conversation) as EvidenceMessage[]) : null,
  }));
  return {
    evidence,
    meta: {
      page: current,
      per_page: EVIDENCE_PAGE_SIZE,
      has_more: rows.length > EVIDENCE_PAGE_SIZE,
    },
  };
}

/**
 * GET /moderation/reports/{id}/conversation: the conversation between an open report's reporter
 * and the member reported, as the room holds it (deleted messages included), also after an
 * unmatch ended it for both; null when they never talked.
 */
export async function reportConversation(env: Env, reportId: string) {
  const report = await first<{ reporter_id: string; reported_id: string }>(
    env.DB,
    sql`SELECT reporter_id, reported_id FROM reports WHERE id = ${reportId}`,
  );
  if (!report) throw notFound("Report not found.");
  return {
    report_id: reportId,
    conversation: await conversationBetween(env, report.reported_id, report.reporter_id),
  };
}

/**
 * Housekeeping: a conversation an unmatch ended is kept, for moderators only, REPORT_RETENTION_DAYS
 * after the unmatch, then erased: its room (messages, photos, voice notes), its entries in both
 * members' lists and its rows. A few per run (each is a room call), oldest first, by the
 * conversations_ended index.
 */
export const endedConversationsJob: Job = {
  name: "conversations_ended",
  async run(env, now, { maxBatches }) {
    const limit = Math.max(1, Math.min(50, maxBatches * 2));
    const lapsed = await all<{ id: string; user_low: string; user_high: string }>(
      env.DB,
      sql`SELECT id, user_low, user_high FROM conversations INDEXED BY conversations_ended
       WHERE ended_at IS NOT NULL AND ended_at <= ${nowIso(now - retentionDays(env) * 86_400_000)}
       ORDER BY ended_at LIMIT ${limit}`,
    );
    for (const { id, user_low, user_high } of lapsed) {
      await conversationRoom(env, id).erase();
      await Promise.all([
        memberHub(env, user_low).dropConversation(id),
        memberHub(env, user_high).dropConversation(id),
      ]);
      await env.DB.batch([
        statement(env.DB, sql`DELETE FROM message_rooms WHERE conversation_id = ${id}`),
        statement(env.DB, sql`DELETE FROM conversations WHERE id = ${id}`),
      ]);
    }
    return { deleted: lapsed.length, batches: 1, done: lapsed.length < limit };
  },
};
