/**
 * bench/search/fulltext.ts: full-text index designs side by side, on the database the last
 * `bench/search/run.ts` left (its state, BENCH_STATE_DIR or tmpfs).
 *
 *   npx tsx bench/search/fulltext.ts [--words 150] [--limit 300] [--keep]
 *        [--design "name=fts5 options [cut=N]" ...]   (default: the design before migration 0019,
 *                                                      and that one with detail=column alone)
 *
 * Each design is a table of its own next to `member_search_fts` ("current", its words cut as
 * the search cuts them: PREFIX_CHARS), filled from
 * the same rows as migration 0019 fills it. Words come from the members' first names and
 * interests: an interest word, the first three letters of a first name, a whole first name. For
 * each word, every table answers the query the search's walk sends (`"word"*` in the keyword
 * columns, in key order from the top, `--limit` rows), ten times in one D1 batch, the tables in
 * turn and the order alternating word by word, so that all see the same load. A design's words
 * are cut to its `cut=N` characters when it names one (as PREFIX_CHARS cuts keywords). Prints ms
 * a query (p50 / p95 / mean) by kind of word and the size of each table's index. The tables are
 * dropped afterwards unless `--keep`.
 */
import { loadavg } from "node:os";
import path from "node:path";
import { getPlatformProxy } from "wrangler";
import { PREFIX_CHARS } from "~/server/search/filters.server";
import { commandLine } from "../lib/args";
import { BenchState, percentile } from "../lib/worker";

interface Design {
  name: string;
  table: string;
  options: string;
  cut: number | null;
}

const REPEATS = 10;

function designsOf(argv: string[]): Design[] {
  const given = argv.flatMap((a, i) => (a === "--design" && argv[i + 1] ? [argv[i + 1]!] : []));
  const specs = given.length ? given : ["before=", "column=detail=column"];
  return [
    { name: "current", table: "member_search_fts", options: "", cut: PREFIX_CHARS },
    ...specs.map((spec, i) => {
      const [name, rest = ""] = spec.split(/=(.*)/s);
      const cut = /\bcut=(\d+)/.exec(rest);
      return {
        name: name!.trim(),
        table: `bench_fts_${i}`,
        options: rest
          .replace(/\bcut=\d+/, "")
          .trim()
          .replace(/,?\s*$/, ""),
        cut: cut ? Number(cut[1]) : null,
      };
    }),
  ];
}

async function main() {
  const argv = process.argv.slice(2);
  const args = commandLine(argv);
  const words = args.number("words", 150, { whole: true });
  const limit = args.number("limit", 300, { whole: true });
  const designs = designsOf(argv);
  const state = new BenchState("search");
  const proxy = await getPlatformProxy<{ DB: D1Database }>({
    configPath: state.configPath,
    persist: { path: path.join(state.persistDir, "v3") },
  });
  const db = proxy.env.DB;
  try {
    for (const d of designs.slice(1)) {
      const started = performance.now();
      await db.prepare(`DROP TABLE IF EXISTS ${d.table}`).run();
      await db
        .prepare(
          `CREATE VIRTUAL TABLE ${d.table} USING fts5(username, first_name, bio, interests, tags,
           content = '', contentless_delete = 1, ${d.options ? `${d.options},` : ""}
           tokenize = 'unicode61 remove_diacritics 2')`,
        )
        .run();
      await db
        .prepare(
          `INSERT INTO ${d.table} (rowid, username, first_name, bio, interests, tags)
           SELECT s.sort_key, v.username, v.first_name, v.bio, v.interests, v.tags
           FROM member_search s JOIN member_search_source v ON v.user_id = s.user_id`,
        )
        .run();
      console.info(
        `built ${d.name} (${d.options}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    const members = await db
      .prepare("SELECT count(*) AS n FROM member_search")
      .first<{ n: number }>();
    const { results: sample } = await db
      .prepare("SELECT first_name, interests FROM profiles ORDER BY user_id LIMIT ?1")
      .bind(words * 3)
      .all<{ first_name: string; interests: string }>();
    const queries = sample.map((m, i): [string, string] => {
      const name = m.first_name.toLowerCase();
      if (i % 3 === 0) {
        const interest = (JSON.parse(m.interests) as string[])[0] ?? "music";
        return ["an interest word", interest.toLowerCase().split(/\s+/)[0]!];
      }
      return i % 3 === 1 ? ["a 3-letter prefix", name.slice(0, 3)] : ["a whole first name", name];
    });
    console.info(
      `fulltext: ${members?.n.toLocaleString("en")} search rows, ${queries.length} words, ` +
        `LIMIT ${limit}, ${REPEATS} a batch; load average ${loadavg()[0]!.toFixed(2)}`,
    );
    const times = new Map<string, number[]>();
    for (const [i, [kind, word]] of queries.entries()) {
      for (const d of i % 2 ? [...designs].reverse() : designs) {
        const term = d.cut ? Array.from(word).slice(0, d.cut).join("") : word;
        const statement = db
          .prepare(
            `SELECT rowid FROM ${d.table} WHERE ${d.table} MATCH ?1 ORDER BY rowid DESC LIMIT ${limit}`,
          )
          .bind(`{username first_name bio interests} : ("${term}"*)`);
        const started = performance.now();
        await db.batch(Array.from({ length: REPEATS }, () => statement));
        const ms = (performance.now() - started) / REPEATS;
        for (const key of [`${kind}|${d.name}`, `all|${d.name}`]) {
          times.set(key, [...(times.get(key) ?? []), ms]);
        }
      }
    }
    console.info(`\nms a query, p50 / p95 / mean (load average ${loadavg()[0]!.toFixed(2)}):`);
    console.info(`${"".padEnd(22)}${designs.map((d) => d.name.padEnd(24)).join("")}`);
    for (const kind of ["an interest word", "a 3-letter prefix", "a whole first name", "all"]) {
      const cells = designs.map((d) => {
        const list = (times.get(`${kind}|${d.name}`) ?? []).sort((a, b) => a - b);
        const mean = list.reduce((s, n) => s + n, 0) / (list.length || 1);
        return `${percentile(list, 50).toFixed(2)} / ${percentile(list, 95).toFixed(2)} / ${mean.toFixed(2)}`.padEnd(
          24,
        );
      });
      console.info(`${kind.padEnd(22)}${cells.join("")}`);
    }
    console.info("\nindex size (the table's _data pages):");
    for (const d of designs) {
      const size = await db
        .prepare(`SELECT count(*) AS pages, sum(length(block)) AS bytes FROM ${d.table}_data`)
        .first<{ pages: number; bytes: number }>();
      console.info(
        `  ${d.name.padEnd(10)} ${((size?.bytes ?? 0) / 1e6).toFixed(1)} MB in ${size?.pages} pages`,
      );
    }
  } finally {
    if (!args.flag("keep")) {
      for (const d of designs.slice(1)) await db.prepare(`DROP TABLE IF EXISTS ${d.table}`).run();
    }
    await proxy.dispose();
  }
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
