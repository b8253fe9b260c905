/**
 * bench/search/fts-rebuild: what writing every member's full-text rows again costs on the search
 * benchmark's database, against D1's 30 s limit on one statement (issue #28: "long migrations
 * measured at a million members"; docs/decisions/050).
 *
 *   npx tsx bench/search/run.ts --sizes 100000,1000000 --reuse   # first: the database to measure
 *   npx tsx bench/search/fts-rebuild.ts                  # the batched rebuild, every batch
 *   npx tsx bench/search/fts-rebuild.ts --reference      # and, first, the one statement it replaced
 *   npx tsx bench/search/fts-rebuild.ts --rows 1000 --batches 50
 *
 * On a copy of that database (its state is left as it was), through local D1 (wrangler's platform
 * proxy, as the migration runner and the Worker reach it):
 *
 * - `--reference`: what migrations 0017 and 0020 ended with until they were changed: the index
 *   emptied (`delete-all`), then every search row written into it again in one `INSERT … SELECT`,
 *   each statement timed alone;
 * - the rebuild housekeeping runs instead (app/server/search/text-rebuild.server.ts): the rows
 *   marked, then one batch after another (`--rows` per batch, default REBUILD_ROWS) until the mark
 *   is gone or `--batches` ran; each batch timed, with its percentiles, the slowest, and the
 *   total, and how many housekeeping runs it takes at REBUILD_SECONDS_PER_RUN each.
 */
import type { Env } from "~/server/env.server";
import {
  REBUILD_ROWS,
  REBUILD_SECONDS_PER_RUN,
  rebuildSearchText,
} from "~/server/search/text-rebuild.server";
import { commandLine } from "../lib/args";
import { copyOfSearchDatabase } from "./database-copy";

const args = commandLine(process.argv.slice(2));
const rows = Number(args.value("rows") ?? REBUILD_ROWS);
const maxBatches = Number(args.value("batches") ?? Infinity);
const reference = args.flag("reference");

/** D1's limit on the time of one statement. */
const D1_STATEMENT_LIMIT_MS = 30_000;

/** What 0017 and 0020 ended with until 2026-11-29 (docs/decisions/050). */
const ONE_STATEMENT_REBUILD = [
  "INSERT INTO `member_search_fts` (`member_search_fts`) VALUES ('delete-all')",
  `INSERT INTO \`member_search_fts\` (rowid, username, first_name, bio, interests, tags)
   SELECT s.sort_key, v.username, v.first_name, v.bio, v.interests, v.tags
   FROM \`member_search\` s JOIN \`member_search_source\` v ON v.user_id = s.user_id`,
];

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function main() {
  const { db, env, source, close } = await copyOfSearchDatabase("search-fts-rebuild");
  try {
    const total = (await db
      .prepare("SELECT count(*) AS n FROM member_search")
      .first<{ n: number }>())!.n;
    console.info(
      `fts-rebuild: ${total.toLocaleString("en")} search rows (a copy of ${source}), ${rows} rows a batch`,
    );
    if (reference) {
      console.info("the one statement it replaced (0017 and 0020 until 2026-11-29):");
      for (const statement of ONE_STATEMENT_REBUILD) {
        const started = performance.now();
        await db.prepare(statement).run();
        const took = performance.now() - started;
        const over = took > D1_STATEMENT_LIMIT_MS ? "  OVER D1's 30 s statement limit" : "";
        console.info(
          `  ${statement.slice(0, 60).replace(/\s+/g, " ")}…  ${took.toFixed(0)} ms${over}`,
        );
      }
    }
    // The mark a migration leaves on a database with members (its table, as migration 0043 makes
    // it, on a database seeded before).
    await db
      .prepare(
        `CREATE TABLE IF NOT EXISTS search_text_rebuild (id integer PRIMARY KEY NOT NULL,
           after integer DEFAULT 0 NOT NULL, started_at text NOT NULL)`,
      )
      .run();
    await db
      .prepare(
        `INSERT INTO search_text_rebuild (id, after, started_at) VALUES (1, 0, ?)
         ON CONFLICT (id) DO UPDATE SET after = 0`,
      )
      .bind(new Date().toISOString())
      .run();
    const times: number[] = [];
    let written = 0;
    const started = performance.now();
    for (let batch = 0; batch < maxBatches; batch++) {
      const t0 = performance.now();
      const step = await rebuildSearchText(env as unknown as Env, rows);
      const took = performance.now() - t0;
      if (step.done) break;
      times.push(took);
      written += step.rows;
      if (times.length % 50 === 0) {
        console.info(`  … ${times.length} batches, ${written.toLocaleString("en")} rows`);
      }
    }
    const wall = performance.now() - started;
    const sorted = [...times].sort((a, b) => a - b);
    const sum = times.reduce((a, b) => a + b, 0);
    const slowest = sorted.at(-1) ?? 0;
    console.info("the batched rebuild (housekeeping's search_text_rebuild):");
    console.info(
      `  ${times.length} batches, ${written.toLocaleString("en")} rows: ` +
        `p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, ` +
        `slowest ${slowest.toFixed(0)} ms${slowest > D1_STATEMENT_LIMIT_MS ? " OVER D1's limit" : ""}; ` +
        `${(sum / 1000).toFixed(1)} s of batches, ${(wall / 1000).toFixed(1)} s in all`,
    );
    const over = (ms: number) => times.filter((t) => t > ms).length;
    console.info(`  batches over 1 s: ${over(1_000)}, over 5 s: ${over(5_000)}`);
    console.info(
      `  at ${REBUILD_SECONDS_PER_RUN} s a housekeeping run: ${Math.ceil(sum / 1000 / REBUILD_SECONDS_PER_RUN)} runs`,
    );
    const indexed = await db
      .prepare("SELECT count(*) AS n FROM member_search_fts_docsize")
      .first<{ n: number }>()
      .then((r) => r?.n)
      .catch(() => undefined);
    const mark = await db.prepare("SELECT after FROM search_text_rebuild").first();
    console.info(
      `  rows indexed: ${indexed ?? "?"}; mark left: ${mark ? JSON.stringify(mark) : "none"}`,
    );
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
