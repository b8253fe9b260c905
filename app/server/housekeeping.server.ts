import { sql, type SQL } from "drizzle-orm";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { SESSION_POLICY } from "./session.server";
import { run } from "./sql.server";
import { RENEWAL_GRACE_MS } from "./subscriptions.server";

/**
 * Housekeeping: what the Cron Trigger runs (worker/scheduled.ts). Each table's retention is written
 * here, once, and explained in docs/decisions/023-retention-and-housekeeping.md. Every job works
 * in bounded batches: one statement deletes at most `batchSize` rows found through an index, and a
 * run stops after `maxBatches` statements (what is left waits for the next run), so that no job
 * holds D1's one thread for long.
 */

const DAY = 24 * 3600_000;

/** How long each kind of row is kept (ADR 023). */
export const RETENTION = {
  /** A rate-limit counter counts nothing once its window and the one after it have passed. */
  rateLimitWindowsMs: 2 * 3600_000,
  /** Stripe retries an event for up to three days; its id is kept well past that. */
  stripeEventsMs: 30 * DAY,
  /** "Who viewed me" shows the last half year. */
  profileViewsMs: 180 * DAY,
  /** A member's own history: two years. */
  activitiesMs: 730 * DAY,
  /** A reset link past its expiry only says "expired": kept a day for that. */
  resetTokensAfterExpiryMs: DAY,
  /** An address of a member deleted after reports or suspended sends registrations to review. */
  reviewEmailsMs: 730 * DAY,
  /** A subscription whose period ended this long ago without a renewal heard is over. */
  subscriptionGraceMs: RENEWAL_GRACE_MS,
} as const;

export interface Limits {
  batchSize: number;
  maxBatches: number;
}

export const DEFAULT_LIMITS: Limits = { batchSize: 500, maxBatches: 20 };

export interface JobResult {
  /** Rows deleted or changed. */
  deleted: number;
  batches: number;
  /** Nothing is left for this job to do (false: it stopped at maxBatches). */
  done: boolean;
}

export interface Job {
  name: string;
  run(env: Env, now: number, limits: Limits): Promise<JobResult>;
}

/**
 * Runs `statement` (one bounded DELETE or UPDATE of at most `batchSize` rows) until it changes
 * fewer than `batchSize` rows or `maxBatches` statements ran.
 */
function batchedJob(name: string, statement: (now: number, batchSize: number) => SQL): Job {
  return {
    name,
    async run(env, now, { batchSize, maxBatches }) {
      let deleted = 0;
      for (let batches = 1; batches <= maxBatches; batches++) {
        const result = await run(env.DB, statement(now, batchSize));
        const changes = result.meta.changes ?? 0;
        deleted += changes;
        if (changes < batchSize) return { deleted, batches, done: true };
      }
      return { deleted, batches: maxBatches, done: false };
    },
  };
}

/**
 * Deletes the rows of `table` that `where` selects, `batchSize` at a time through the index that
 * `where` reads, until none is left or `maxBatches` statements ran.
 */
function pruneJob(name: string, table: string, where: (now: number) => SQL): Job {
  return batchedJob(
    name,
    (now, batchSize) =>
      sql`DELETE FROM ${sql.identifier(table)} WHERE rowid IN (
        SELECT rowid FROM ${sql.identifier(table)} WHERE ${where(now)} LIMIT ${batchSize})`,
  );
}

const iso = nowIso;

export const HOUSEKEEPING_JOBS: Job[] = [
  pruneJob(
    "rate_limits",
    "rate_limits",
    (now) => sql`window_start < ${Math.floor((now - RETENTION.rateLimitWindowsMs) / 1000)}`,
  ),
  pruneJob("sessions_expired", "sessions", (now) => sql`expires_at <= ${iso(now)}`),
  pruneJob(
    "sessions_idle",
    "sessions",
    (now) =>
      sql`(remember = 0 AND last_active_at <= ${iso(now - SESSION_POLICY.standard.idleMs)})
       OR (remember = 1 AND last_active_at <= ${iso(now - SESSION_POLICY.remember.idleMs)})`,
  ),
  pruneJob(
    "password_reset_tokens",
    "password_reset_tokens",
    (now) => sql`expires_at <= ${iso(now - RETENTION.resetTokensAfterExpiryMs)}`,
  ),
  pruneJob(
    "stripe_events",
    "stripe_events",
    (now) => sql`received_at <= ${iso(now - RETENTION.stripeEventsMs)}`,
  ),
  pruneJob(
    "profile_views",
    "profile_views",
    (now) => sql`day < ${iso(now - RETENTION.profileViewsMs).slice(0, 10)}`,
  ),
  // Reports kept after the reported member deleted their account (evidence.server.ts): each row
  // carries when it goes, REPORT_RETENTION_DAYS after the deletion.
  pruneJob("report_evidence", "report_evidence", (now) => sql`erase_after <= ${iso(now)}`),
  // Returning addresses (returning.server.ts) send registrations to review for two years.
  pruneJob(
    "review_emails",
    "review_emails",
    (now) => sql`created_at <= ${iso(now - RETENTION.reviewEmailsMs)}`,
  ),
  pruneJob(
    "activities",
    "activities",
    (now) => sql`created_at <= ${iso(now - RETENTION.activitiesMs)}`,
  ),
  /**
   * Subscriptions whose period ended (and was not renewed by Stripe within the grace) are marked
   * expired: the perks already stopped at the period's end (computed on read); this makes the
   * stored status say so, in batches like the deletes.
   */
  batchedJob(
    "subscriptions_expired",
    (now, batchSize) =>
      sql`UPDATE subscriptions SET status = 'expired', updated_at = ${iso(now)}
       WHERE rowid IN (SELECT rowid FROM subscriptions
         WHERE status IN ('active', 'cancelled', 'past_due')
           AND current_period_end <= ${iso(now - RETENTION.subscriptionGraceMs)}
         LIMIT ${batchSize})`,
  ),
  {
    /**
     * The full-text index's incremental merge (ADR 010 asked for it): FTS5 merges about this many
     * pages of segments and stops, instead of 'optimize', which at a million members would hold
     * the database for tens of seconds. One statement per run, whatever the limits.
     */
    name: "search_fts_merge",
    async run(env) {
      await run(
        env.DB,
        sql`INSERT INTO member_search_fts (member_search_fts, rank) VALUES ('merge', 200)`,
      );
      return { deleted: 0, batches: 1, done: true };
    },
  },
];
