import { sql } from "drizzle-orm";
import type { Env } from "../env.server";
import type { Job } from "../housekeeping.server";
import { first, statement } from "../sql.server";

/**
 * The full-text rows written again in batches, in sort-key order (docs/decisions/050). Migrations
 * that change what the rows hold (0017, 0019, 0020) mark a rebuild in `search_text_rebuild`
 * rather than rewrite every row in one statement; housekeeping runs `rebuildSearchText` until the
 * mark is gone. Each batch is one D1 batch (atomic): the rows of the next `rows` sort keys are
 * deleted from the index and written again from `member_search_source`, and the mark moves past
 * them. A member who changes meanwhile is rewritten by the triggers as always; a batch that comes
 * after writes the same row from the same source. Until the walk is over, keyword searches find
 * the members it has passed and, for the rest, what their rows held before (nothing after 0019,
 * which recreates the index): ADR 050 says how long that lasts.
 */

/**
 * Rows written again per batch: at a million members 0.11 s of D1 a batch at the median, 2.6 s at
 * the 99th percentile and 3.9 s at worst, when FTS5 merges its segments (2,000 rows: 0.28 s, 8.2 s
 * and 11 s; bench/search/fts-rebuild.ts, docs/decisions/050).
 */
export const REBUILD_ROWS = 500;

export interface RebuildStep {
  /** Search rows written again by this step. */
  rows: number;
  /** No rebuild is wanted any more. */
  done: boolean;
}

/** One batch of the rebuild, if one is under way. */
export async function rebuildSearchText(env: Env, rows = REBUILD_ROWS): Promise<RebuildStep> {
  const mark = await first<{ after: number }>(
    env.DB,
    sql`SELECT after FROM search_text_rebuild WHERE id = 1`,
  );
  if (!mark) return { rows: 0, done: true };
  const range = await first<{ hi: number | null; n: number }>(
    env.DB,
    sql`SELECT max(sort_key) AS hi, count(*) AS n FROM (
          SELECT sort_key FROM member_search WHERE sort_key > ${mark.after}
          ORDER BY sort_key LIMIT ${rows})`,
  );
  if (!range || range.n === 0 || range.hi === null) {
    // Past the last row: the rebuild is over (unless a migration marked a new one meanwhile).
    await env.DB.batch([
      statement(
        env.DB,
        sql`DELETE FROM search_text_rebuild WHERE id = 1 AND after = ${mark.after}`,
      ),
    ]);
    return { rows: 0, done: true };
  }
  const { after } = mark;
  const hi = range.hi;
  await env.DB.batch([
    statement(env.DB, sql`DELETE FROM member_search_fts WHERE rowid > ${after} AND rowid <= ${hi}`),
    statement(
      env.DB,
      sql`INSERT INTO member_search_fts (rowid, username, first_name, bio, interests, tags)
          SELECT s.sort_key, v.username, v.first_name, v.bio, v.interests, v.tags
          FROM member_search s JOIN member_search_source v ON v.user_id = s.user_id
          WHERE s.sort_key > ${after} AND s.sort_key <= ${hi}`,
    ),
    statement(
      env.DB,
      sql`UPDATE search_text_rebuild SET after = ${hi} WHERE id = 1 AND after = ${after}`,
    ),
  ]);
  return { rows: range.n, done: false };
}

/** A housekeeping run spends at most this long on the rebuild; what is left waits for the next. */
export const REBUILD_SECONDS_PER_RUN = 20;

/**
 * The rebuild as a housekeeping job (worker/scheduled.ts, after the others): batches of `rows`
 * until none is left, `maxBatches` ran or REBUILD_SECONDS_PER_RUN passed.
 */
export function searchTextRebuildJob(rows = REBUILD_ROWS): Job {
  return {
    name: "search_text_rebuild",
    async run(env, _now, { maxBatches }) {
      const started = Date.now();
      let written = 0;
      for (let batches = 1; batches <= maxBatches; batches++) {
        const step = await rebuildSearchText(env, rows);
        written += step.rows;
        if (step.done) return { deleted: written, batches, done: true };
        if (Date.now() - started > REBUILD_SECONDS_PER_RUN * 1000) {
          return { deleted: written, batches, done: false };
        }
      }
      return { deleted: written, batches: maxBatches, done: false };
    },
  };
}

export const SEARCH_TEXT_REBUILD = searchTextRebuildJob();
