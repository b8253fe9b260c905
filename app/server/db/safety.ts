import { sql } from "drizzle-orm";
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { REPORT_REASON_TYPES } from "../../schemas/report";
import { users } from "./schema";

/**
 * Reports of members to the moderators: one row per reporter and reported member (a second
 * report by the same member updates the first and opens it again), so each reporter counts once.
 * A report stays `open` until a moderator dismisses it or suspends the member (`actioned`).
 */
export const reports = sqliteTable(
  "reports",
  {
    id: text("id").primaryKey(),
    reporterId: text("reporter_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reportedId: text("reported_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reasonType: text("reason_type", { enum: REPORT_REASON_TYPES }).notNull(),
    details: text("details"),
    /** The message reported, when the report was made from one (kept even if it is deleted). */
    messageId: text("message_id"),
    /** The reported message's text at the time of the report, for the moderators. */
    messageText: text("message_text"),
    status: text("status", { enum: ["open", "dismissed", "actioned"] })
      .notNull()
      .default("open"),
    createdAt: text("created_at")
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`),
    reviewedAt: text("reviewed_at"),
    reviewedBy: text("reviewed_by").references(() => users.id, { onDelete: "set null" }),
    /**
     * What the report weighs, from its reporter's standing when they made it (docs/decisions/021):
     * open reports weighing REPORT_HIDE_WEIGHT together hide the member from search
     * (migrations/0023_report_weights.sql).
     */
    weight: integer("weight").notNull().default(2),
  },
  (t) => [
    uniqueIndex("reports_reporter_reported").on(t.reporterId, t.reportedId),
    index("reports_reported_status").on(t.reportedId, t.status),
    index("reports_status_created").on(t.status, t.createdAt),
  ],
);

/**
 * What moderators keep of a report when the member it concerns deletes their account
 * (docs/decisions/005, "What is kept after deletion"): the report as it stood, a snapshot of the
 * reported profile, and the conversation between the two, readable by moderators only, until
 * `erase_after` (REPORT_RETENTION_DAYS after the deletion), when housekeeping erases it. No
 * foreign keys: the members it names may no longer exist.
 */
export const reportEvidence = sqliteTable(
  "report_evidence",
  {
    /** The report's id. */
    id: text("id").primaryKey(),
    reporterId: text("reporter_id").notNull(),
    reportedId: text("reported_id").notNull(),
    reasonType: text("reason_type", { enum: REPORT_REASON_TYPES }).notNull(),
    details: text("details"),
    messageId: text("message_id"),
    messageText: text("message_text"),
    status: text("status", { enum: ["open", "dismissed", "actioned"] }).notNull(),
    weight: integer("weight").notNull(),
    reportedAt: text("reported_at").notNull(),
    /** The reported member's profile when they left (JSON: username, names, bio, place, …). */
    profile: text("profile", { mode: "json" }).notNull(),
    /** The two members' conversation when the reported member left (JSON list), or null. */
    conversation: text("conversation", { mode: "json" }),
    keptAt: text("kept_at").notNull(),
    eraseAfter: text("erase_after").notNull(),
  },
  (t) => [
    index("report_evidence_erase_after").on(t.eraseAfter),
    index("report_evidence_kept").on(t.keptAt),
  ],
);

/**
 * The reported member's photos as they stood at a report (docs/decisions/049): a copy of each in
 * R2 (`r2_key`, under `evidence/<report>/`, a prefix no photo route serves), for moderators only,
 * so that deleting a photo or the account after a report takes nothing from them. Kept while the
 * report is open; `erase_after` is set once the report no longer needs them (dismissed: at once;
 * upheld: REPORT_RETENTION_DAYS after the decision; kept after the reported member's deletion:
 * with the report's evidence; gone with its reporter's account: at once), and housekeeping
 * erases the copy then. No foreign keys: the report's row goes with a deletion while its evidence
 * stays.
 */
export const reportPhotos = sqliteTable(
  "report_photos",
  {
    /** The report's id (also its `report_evidence` row's, once kept after a deletion). */
    reportId: text("report_id").notNull(),
    /** The profile photo it is a copy of (which may be gone since). */
    photoId: text("photo_id").notNull(),
    /** Its place on the profile at the report (0: the main photo). */
    position: integer("position").notNull(),
    r2Key: text("r2_key").notNull(),
    contentType: text("content_type").notNull(),
    size: integer("size").notNull(),
    keptAt: text("kept_at").notNull(),
    eraseAfter: text("erase_after"),
  },
  (t) => [
    primaryKey({ columns: [t.reportId, t.photoId] }),
    index("report_photos_erase_after").on(t.eraseAfter),
  ],
);

/**
 * Addresses that send a new registration to review (app/server/returning.server.ts): a keyed hash
 * (HMAC with APP_KEY) of the normalised address of a member deleted after reports, or suspended.
 * The address itself is not kept. Pruned by housekeeping two years after it was written.
 */
export const reviewEmails = sqliteTable(
  "review_emails",
  {
    emailKey: text("email_key").primaryKey(),
    reason: text("reason", { enum: ["deleted_after_report", "suspended"] }).notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("review_emails_created").on(t.createdAt)],
);

/**
 * Photo verification requests (app/server/verification.server.ts): the selfie a member took
 * copying a pose, waiting for a moderator (`pending`, at most one per member), then the decision
 * and who made it. The selfie lives in R2 (`r2_key`) only while it waits: a decision erases it
 * and clears the key. `compared_photo_ids` are the profile photos the moderator compared it
 * with (an approval lasts while one of them is still on the profile).
 */
export const photoVerifications = sqliteTable(
  "photo_verifications",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    poseId: text("pose_id").notNull(),
    r2Key: text("r2_key"),
    contentType: text("content_type"),
    status: text("status", { enum: ["pending", "verified", "rejected"] })
      .notNull()
      .default("pending"),
    /** Why it was turned down (REJECT_REASONS), for the member. */
    reason: text("reason"),
    comparedPhotoIds: text("compared_photo_ids", { mode: "json" }).$type<string[]>(),
    createdAt: text("created_at").notNull(),
    decidedAt: text("decided_at"),
    decidedBy: text("decided_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    uniqueIndex("photo_verifications_one_pending")
      .on(t.userId)
      .where(sql`${t.status} = 'pending'`),
    index("photo_verifications_queue")
      .on(t.createdAt)
      .where(sql`${t.status} = 'pending'`),
    index("photo_verifications_user").on(t.userId, t.createdAt),
  ],
);

/**
 * Appeals of a member hidden from search by reports, or suspended (app/server/appeals.server.ts):
 * one per measure (`kind`) unless a moderator granted the last one; `open` until a moderator
 * grants it (the measure is lifted) or denies it (the measure stays).
 */
export const appeals = sqliteTable(
  "appeals",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["hidden", "suspended"] }).notNull(),
    text: text("text").notNull(),
    status: text("status", { enum: ["open", "granted", "denied"] })
      .notNull()
      .default("open"),
    createdAt: text("created_at").notNull(),
    decidedAt: text("decided_at"),
    decidedBy: text("decided_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    // Once: a member holds at most one appeal of a kind that was not granted.
    uniqueIndex("appeals_once")
      .on(t.userId, t.kind)
      .where(sql`${t.status} <> 'granted'`),
    index("appeals_open")
      .on(t.createdAt)
      .where(sql`${t.status} = 'open'`),
  ],
);
