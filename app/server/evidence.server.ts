import { sql, type SQL } from "drizzle-orm";
import type { EvidenceMessage, KeptPhoto } from "~/schemas/evidence";
import type { ReportReasonType } from "~/schemas/report";
import { conversationRoom } from "./chat-rooms.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { notFound } from "./errors.server";
import type { Job } from "./housekeeping.server";
import { logFailure } from "./log.server";
import { memberHub } from "./member-hub.server";
import { all, first, run, statement } from "./sql.server";

/**
 * Evidence that outlives a deletion (docs/decisions/005, "What is kept after deletion"): when a
 * member who was reported deletes their account, each report against them that a moderator has
 * not dismissed is kept with a snapshot of their profile and of the conversation between them and
 * its reporter, so that deleting oneself before a moderator looks erases nothing a moderator
 * needs. Readable by moderators only (GET /moderation/evidence and the moderation page), erased by
 * housekeeping REPORT_RETENTION_DAYS after the deletion.
 *
 * The reported member's photos are copied at the report itself (docs/decisions/049), since a
 * photo can go without the account: a copy of each, as the profile showed it then, is kept with
 * the report while it is open and as long as its evidence after a deletion, for moderators only.
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

export type { EvidenceMessage, KeptPhoto };

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
  /** The reported member's photos as they stood at the report. */
  photos: KeptPhoto[];
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

// ---------------------------------------------------------------------------------------------
// Photos at the report

/** Where the copy of a reported member's photo is kept: a prefix no photo route serves. */
export const reportPhotoKey = (reportId: string, photoId: string) =>
  `evidence/${reportId}/${photoId}`;

export const reportPhotoUrl = (reportId: string, photoId: string) =>
  `/moderation/reports/${encodeURIComponent(reportId)}/photos/${encodeURIComponent(photoId)}`;

/**
 * At a report (POST /reports, a first one or the same pair's again): copies each photo of the
 * reported member, as the profile shows it now, to `evidence/<report>/`, so that what the
 * reporter saw stays for the moderators when the member deletes a photo or the account. Copies
 * of photos gone since an earlier report of the same pair are kept again with it. A photo that
 * cannot be copied is logged and the report stands without it. Says how many were copied.
 */
export async function keepReportedPhotos(
  env: Env,
  reportId: string,
  reportedId: string,
  now = Date.now(),
): Promise<number> {
  const photos = await all<{ id: string; r2_key: string; content_type: string; position: number }>(
    env.DB,
    sql`SELECT id, r2_key, content_type, position FROM photos WHERE user_id = ${reportedId}
     ORDER BY position, id`,
  );
  const keptAt = nowIso(now);
  const rows: ReturnType<typeof statement>[] = [];
  // One at a time: a photo is read whole (up to its size limit) before it is written again.
  for (const photo of photos) {
    try {
      const object = await env.PHOTOS.get(photo.r2_key);
      // Deleted since it was listed: nothing to keep of it.
      if (!object) continue;
      const bytes = await object.arrayBuffer();
      const key = reportPhotoKey(reportId, photo.id);
      const contentType = object.httpMetadata?.contentType ?? photo.content_type;
      await env.PHOTOS.put(key, bytes, { httpMetadata: { contentType } });
      rows.push(
        statement(
          env.DB,
          sql`INSERT INTO report_photos (report_id, photo_id, position, r2_key, content_type, size,
             kept_at, erase_after)
           VALUES (${reportId}, ${photo.id}, ${photo.position}, ${key}, ${contentType},
             ${bytes.byteLength}, ${keptAt}, NULL)
           ON CONFLICT (report_id, photo_id) DO UPDATE SET position = excluded.position,
             r2_key = excluded.r2_key, content_type = excluded.content_type,
             size = excluded.size, kept_at = excluded.kept_at, erase_after = NULL`,
        ),
      );
    } catch (error) {
      logFailure("evidence_photo", error, { report_id: reportId, photo_id: photo.id });
    }
  }
  await env.DB.batch([
    statement(
      env.DB,
      sql`UPDATE report_photos SET erase_after = NULL WHERE report_id = ${reportId}`,
    ),
    ...rows,
  ]);
  return rows.length;
}

/**
 * When the photos kept with some reports are erased (`reportIds`: a query of report ids): a
 * statement for the batch of the change that decides it (a dismissal: now; an upheld report:
 * REPORT_RETENTION_DAYS after the decision).
 */
export function erasePhotosAfter(env: Env, reportIds: SQL, eraseAfter: string) {
  return statement(
    env.DB,
    sql`UPDATE report_photos SET erase_after = ${eraseAfter} WHERE report_id IN (${reportIds})`,
  );
}

/** When the photos of reports upheld at `now` are erased. */
export const upheldPhotosEraseAfter = (env: Env, now = Date.now()) =>
  nowIso(now + retentionDays(env) * 86_400_000);

/**
 * The photos kept with each of these reports, in their order on the profile at the report; what
 * housekeeping is due to erase is left out.
 */
async function photosKeptWith(
  env: Env,
  reportIds: string[],
  now = Date.now(),
): Promise<Map<string, KeptPhoto[]>> {
  const kept = new Map<string, KeptPhoto[]>(reportIds.map((id) => [id, []]));
  if (!reportIds.length) return kept;
  const rows = await all<{
    report_id: string;
    photo_id: string;
    position: number;
    kept_at: string;
  }>(
    env.DB,
    sql`SELECT report_id, photo_id, position, kept_at FROM report_photos
     WHERE report_id IN (SELECT value FROM json_each(${JSON.stringify(reportIds)}))
       AND (erase_after IS NULL OR erase_after > ${nowIso(now)})
     ORDER BY report_id, position, kept_at, photo_id`,
  );
  for (const r of rows) {
    kept.get(r.report_id)?.push({
      id: r.photo_id,
      position: r.position,
      url: reportPhotoUrl(r.report_id, r.photo_id),
      kept_at: r.kept_at,
    });
  }
  return kept;
}

/**
 * GET /moderation/reports/{id}/photos: the reported member's photos kept with a report (open,
 * decided, or kept after the member's deletion); 404 for a report that is neither.
 */
export async function reportPhotos(env: Env, reportId: string, now = Date.now()) {
  const known = await first(
    env.DB,
    sql`SELECT 1 AS ok FROM reports WHERE id = ${reportId}
     UNION ALL SELECT 1 AS ok FROM report_evidence WHERE id = ${reportId}`,
  );
  if (!known) throw notFound("Report not found.");
  return {
    report_id: reportId,
    photos: (await photosKeptWith(env, [reportId], now)).get(reportId) ?? [],
  };
}

/**
 * GET /moderation/reports/{id}/photos/{photoId}: the kept copy's bytes, for moderators (404 when
 * there is none: never kept, or erased or due to be).
 */
export async function reportPhotoObject(
  env: Env,
  reportId: string,
  photoId: string,
  now = Date.now(),
) {
  const row = await first<{ r2_key: string }>(
    env.DB,
    sql`SELECT r2_key FROM report_photos WHERE report_id = ${reportId} AND photo_id = ${photoId}
     AND (erase_after IS NULL OR erase_after > ${nowIso(now)})`,
  );
  const object = row ? await env.PHOTOS.get(row.r2_key) : null;
  if (!object) throw notFound("Photo not found.");
  return object;
}

/** R2 deletes at most this many keys a call. */
const R2_DELETE_MAX = 1000;

/**
 * Housekeeping: erases the photo copies whose `erase_after` has passed (their report dismissed,
 * gone with its reporter, upheld REPORT_RETENTION_DAYS ago, or its evidence erased), objects
 * first and then their rows, HOUSEKEEPING_BATCH's batch size at a time, by the
 * report_photos_erase_after index. A copy its report took back meanwhile (the same pair reported
 * again) keeps its row.
 */
export const reportPhotosJob: Job = {
  name: "report_photos",
  async run(env, now, { batchSize, maxBatches }) {
    const limit = Math.min(batchSize, R2_DELETE_MAX);
    const due = nowIso(now);
    let deleted = 0;
    for (let batches = 1; batches <= maxBatches; batches++) {
      const rows = await all<{ r2_key: string }>(
        env.DB,
        sql`SELECT r2_key FROM report_photos INDEXED BY report_photos_erase_after
         WHERE erase_after <= ${due} LIMIT ${limit}`,
      );
      if (rows.length) {
        const keys = rows.map((r) => r.r2_key);
        await env.PHOTOS.delete(keys);
        await run(
          env.DB,
          sql`DELETE FROM report_photos WHERE erase_after <= ${due}
           AND r2_key IN (SELECT value FROM json_each(${JSON.stringify(keys)}))`,
        );
      }
      deleted += rows.length;
      if (rows.length < limit) return { deleted, batches, done: true };
    }
    return { deleted, batches: maxBatches, done: false };
  },
};

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
  await env.DB.batch([
    ...rows,
    // The photos kept with each report go with its evidence (kept once: the first deletion's date).
    statement(
      env.DB,
      sql`UPDATE report_photos SET erase_after = (SELECT e.erase_after FROM report_evidence e
           WHERE e.id = report_photos.report_id)
         WHERE report_id IN (SELECT id FROM report_evidence WHERE reported_id = ${userId})`,
    ),
  ]);
  return reports.length;
}

export const EVIDENCE_PAGE_SIZE = 20;

/** What moderators keep of deleted members' reports, newest first, a page at a time. */
export async function listEvidence(env: Env, page = 1) {
  const current = Number.isInteger(page) && page > 0 ? page : 1;
  // The row as stored: the profile and the conversation are JSON text.
  const rows = await all<
    Omit<Evidence, "profile" | "conversation" | "photos"> & {
      profile: string;
      conversation: string | null;
    }
  >(
    env.DB,
    sql`SELECT * FROM report_evidence ORDER BY kept_at DESC, id
     LIMIT ${EVIDENCE_PAGE_SIZE + 1} OFFSET ${(current - 1) * EVIDENCE_PAGE_SIZE}`,
  );
  const shown = rows.slice(0, EVIDENCE_PAGE_SIZE);
  const photos = await photosKeptWith(
    env,
    shown.map((r) => r.id),
  );
  const evidence: Evidence[] = shown.map((r) => ({
    ...r,
    profile: JSON.parse(r.profile) as EvidenceProfile,
    conversation: r.conversation ? (JSON.parse(r.conversation) as EvidenceMessage[]) : null,
    photos: photos.get(r.id) ?? [],
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
