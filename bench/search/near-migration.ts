/**
 * bench/search/near-migration: what migrations/0033 (near me) and the coordinate fill cost on the
 * search benchmark's database (docs/decisions/040), as docs/benchmarks.md reports them.
 *
 *   npx tsx bench/search/run.ts --sizes 100000,1000000 --reuse   # first: the database to measure
 *   npx tsx bench/search/near-migration.ts [--sample 20000] [--batch 500]
 *
 * On a copy of that database (its state is left as it was):
 *   1. the migration's statements whose cost grows with the members: each CREATE INDEX (dropped
 *      first) and the UPDATE that stamps every search row's sign-up time, each timed alone (its
 *      ALTER TABLE ... ADD COLUMN statements and the view and trigger definitions take no time
 *      that grows with the members);
 *   2. the coordinate fill (app/server/places.server.ts) for `--sample` members whose coordinates
 *      are removed first (as the members who saved a place before the migration have none): the
 *      job run with `--batch` members a statement batch, as the cron runs it, until done; each
 *      filled member is written again in the search index by the triggers, which is the cost.
 * It prints each statement's time, the fill's members per second and what the fill of every
 * member of the database would take, in time and in cron triggers (HOUSEKEEPING_BATCH).
 */
import { FILL_PLACE_COORDINATES } from "~/server/places.server";
import { commandLine } from "../lib/args";
import { copyOfSearchDatabase, migrationStatements } from "./database-copy";

const args = commandLine(process.argv.slice(2));
const sample = args.number("sample", 20000, { whole: true });
const batch = args.number("batch", 500, { whole: true });
const maxBatches = 20;

const ms = (from: number) => `${(performance.now() - from).toFixed(0)} ms`;

async function main() {
  const { db, env, source, close } = await copyOfSearchDatabase("search-near-migration");
  try {
    const members = (await db.prepare("SELECT count(*) AS n FROM profiles").first<{ n: number }>())!
      .n;
    console.log(`near-migration: ${members.toLocaleString("en")} members (a copy of ${source})`);

    // 1. The migration's statements that grow with the members.
    const statements = (await migrationStatements("0033_near_me.sql")).filter((s) =>
      /^(CREATE (UNIQUE )?INDEX|UPDATE member_search SET joined)/.test(s),
    );
    let total = 0;
    for (const statement of statements) {
      const index = /^CREATE (?:UNIQUE )?INDEX `([^`]+)`/.exec(statement)?.[1];
      if (index) await db.prepare(`DROP INDEX IF EXISTS ${index}`).run();
      const started = performance.now();
      await db.prepare(statement).run();
      const took = performance.now() - started;
      total += took;
      console.log(`  ${took.toFixed(0).padStart(7)} ms  ${statement.split("\n")[0]!.slice(0, 90)}`);
    }
    console.log(`  ${total.toFixed(0).padStart(7)} ms  in all`);

    // 2. The fill, for `sample` members whose coordinates are removed first.
    const cleared = performance.now();
    const ids = (
      await db
        .prepare(
          "SELECT user_id FROM profiles WHERE latitude IS NOT NULL ORDER BY user_id LIMIT ?1",
        )
        .bind(sample)
        .all<{ user_id: string }>()
    ).results.map((r) => r.user_id);
    for (let i = 0; i < ids.length; i += 500) {
      await db
        .prepare(
          "UPDATE profiles SET latitude = NULL, longitude = NULL WHERE user_id IN (SELECT value FROM json_each(?1))",
        )
        .bind(JSON.stringify(ids.slice(i, i + 500)))
        .run();
    }
    await db
      .prepare("DELETE FROM job_cursors WHERE name = ?1")
      .bind(FILL_PLACE_COORDINATES.name)
      .run();
    console.log(
      `  removed the coordinates of ${ids.length.toLocaleString("en")} members in ${ms(cleared)}`,
    );

    const started = performance.now();
    let filled = 0;
    let runs = 0;
    for (;;) {
      const result = await FILL_PLACE_COORDINATES.run(env, Date.now(), {
        batchSize: batch,
        maxBatches,
      });
      filled += result.deleted;
      runs += 1;
      if (result.done) break;
    }
    const seconds = (performance.now() - started) / 1000;
    const rate = filled / seconds;
    const perTrigger = batch * maxBatches;
    console.log(
      `  fill: ${filled.toLocaleString("en")} members in ${seconds.toFixed(1)} s (${rate.toFixed(0)} members/s, ` +
        `${((seconds / filled) * batch * 1000).toFixed(0)} ms a batch of ${batch}; ${runs} runs of the job)`,
    );
    console.log(
      `  every member: ${(members / rate / 60).toFixed(1)} min of database time, ` +
        `${Math.ceil(members / perTrigger)} cron triggers of ${perTrigger.toLocaleString("en")} ` +
        `(${((Math.ceil(members / perTrigger) * 15) / 60).toFixed(1)} h at one every 15 minutes)`,
    );
  } finally {
    await close();
  }
}

await main();
