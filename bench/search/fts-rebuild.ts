/**
 * bench/search/fts-rebuild: what the full-text rebuild of migrations 0017 and 0020 costs on the
 * search benchmark's database, against D1's 30 s limit on one statement (issue #28: "long
 * migrations measured at a million members").
 *
 *   npx tsx bench/search/run.ts --sizes 100000,1000000 --reuse   # first: the database to measure
 *   npx tsx bench/search/fts-rebuild.ts [--migration 0020_search_place_gender]
 *
 * On a copy of that database (its state is left as it was), the migration's last two statements,
 * read from its file: the full-text index emptied (`delete-all`), then every search row written
 * into it again in one `INSERT … SELECT`, each timed alone through local D1 (wrangler's platform
 * proxy, as the migration runner sends them). Prints each statement's time and the rows indexed.
 */
import { commandLine } from "../lib/args";
import { copyOfSearchDatabase, migrationStatements } from "./database-copy";

const args = commandLine(process.argv.slice(2));
const migration = args.value("migration") ?? "0020_search_place_gender";

/** D1's limit on the time of one statement. */
const D1_STATEMENT_LIMIT_MS = 30_000;

async function main() {
  const statements = (await migrationStatements(`${migration}.sql`)).filter((s) =>
    /^INSERT INTO `member_search_fts`/.test(s),
  );
  if (statements.length !== 2) {
    throw new Error(`${migration} does not end with the full-text rebuild (delete-all, insert).`);
  }
  const { db, source, close } = await copyOfSearchDatabase("search-fts-rebuild");
  try {
    const rows = (await db
      .prepare("SELECT count(*) AS n FROM member_search")
      .first<{ n: number }>())!.n;
    console.info(
      `fts-rebuild: ${migration}, ${rows.toLocaleString("en")} search rows (a copy of ${source})`,
    );
    let total = 0;
    for (const statement of statements) {
      const started = performance.now();
      await db.prepare(statement).run();
      const took = performance.now() - started;
      total += took;
      const over = took > D1_STATEMENT_LIMIT_MS ? "  OVER D1's 30 s statement limit" : "";
      console.info(
        `  ${statement.slice(0, 60).replace(/\s+/g, " ")}…  ${took.toFixed(0)} ms${over}`,
      );
    }
    // A contentless index keeps one size row per document indexed.
    const indexed = await db
      .prepare("SELECT count(*) AS n FROM member_search_fts_docsize")
      .first<{ n: number }>()
      .then((r) => r?.n)
      .catch(() => undefined);
    console.info(`  in all ${total.toFixed(0)} ms; rows indexed: ${indexed ?? "?"}`);
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
