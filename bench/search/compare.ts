/**
 * bench/search/compare.ts: the search of this tree against the search of another revision, on the
 * database the last `bench/search/run.ts` left (its state, BENCH_STATE_DIR or tmpfs), alternating
 * request by request so that both see the same load.
 *
 *   npx tsx bench/search/compare.ts [--base main] [--rounds 3] [--kinds radius+keywords,...]
 *
 * Both run `searchMembers` in Node against local D1 (no Worker, no HTTP): what differs is only the
 * statements. Each statement's D1 `meta.duration` and `meta.rows_read` are summed per search (the
 * binding is wrapped), by kind of search in the benchmark's mix, with workerd's CPU time for each
 * search (bench/lib/worker.ts cpuClockOf: local D1 runs in workerd, so that is the database's work,
 * which the load of the machine does not lengthen as it does the durations). First pages only: "load more" is
 * the same statement in both (and main's reads its cards through drizzle's `raw()`, which reports
 * no meta). The
 * base revision's `app/` is written to .bench-base/ for the run and removed afterwards.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { getPlatformProxy } from "wrangler";
import { searchRequestSchema } from "~/schemas/search";
import type { Env } from "~/server/env.server";
import { BenchState, BENCH_APP_KEY, cpuClockOf, percentile, ROOT } from "../lib/worker";
import { queryMix, vocabularyOf } from "./dataset";
import { commandLine } from "../lib/args";

type Search = (
  env: Env,
  me: string,
  request: ReturnType<typeof searchRequestSchema.parse>,
) => Promise<unknown>;

interface Tally {
  ms: number;
  rows: number;
  /** workerd's CPU time for the search (local D1 runs there: the database's work). */
  cpu: number;
}

/** D1 with every statement's duration and rows read added to `tally`. */
function timed(db: D1Database, tally: Tally): D1Database {
  const record = (meta: D1Meta) => {
    tally.ms += Number(meta.duration) || 0;
    tally.rows += Number(meta.rows_read) || 0;
  };
  const wrap = (statement: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, key) {
        if (key === "bind") return (...values: unknown[]) => wrap(target.bind(...values));
        if (key === "all") {
          return async () => {
            const result = await target.all();
            record(result.meta);
            return result;
          };
        }
        if (key === "first") {
          return async (column?: string) => {
            const result = await target.all<Record<string, unknown>>();
            record(result.meta);
            const row = result.results[0] ?? null;
            return column && row ? row[column] : row;
          };
        }
        const value = Reflect.get(target, key) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (text: string) => wrap(target.prepare(text));
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * A revision's search as `Search`. Since the session reads the searcher's ages
 * (SessionUser.ages), `searchMembers` takes them: they are read once here, outside the measured
 * searches, as the session's read is not the search's.
 */
async function searchOf(modulePath: string, db: D1Database, me: string): Promise<Search> {
  const module = (await import(modulePath)) as {
    searchMembers: (...args: unknown[]) => Promise<unknown>;
    searcherOf?: (env: Env, me: string) => Promise<unknown>;
  };
  if (!module.searcherOf) return module.searchMembers as Search;
  const searcher = await module.searcherOf({ DB: db } as unknown as Env, me);
  return (env, id, request) => module.searchMembers(env, id, searcher, request);
}

/** Where the base revision's `app/` is written for the run (inside the tree: its packages resolve). */
const BASE_DIR = path.join(ROOT, ".bench-base");

/**
 * The base revision's whole `app/` folder, with its `~/` imports pointed at itself rather than at
 * this tree's: its search module then runs with its own neighbours, schemas and caps. Returns the
 * path of its search module (search.server.ts, or discovery.server.ts before the rename).
 */
function extractBase(revision: string): string {
  rmSync(BASE_DIR, { recursive: true, force: true });
  mkdirSync(BASE_DIR, { recursive: true });
  const archive = execFileSync("git", ["archive", "--format=tar", revision, "app"], {
    cwd: ROOT,
    maxBuffer: 1 << 28,
  });
  execFileSync("tar", ["-x", "-C", BASE_DIR], { input: archive });
  const app = path.join(BASE_DIR, "app");
  for (const entry of readdirSync(app, { recursive: true, encoding: "utf8" })) {
    if (!/\.tsx?$/.test(entry)) continue;
    const file = path.join(app, entry);
    const toApp = path.relative(path.dirname(file), app) || ".";
    const source = readFileSync(file, "utf8");
    writeFileSync(file, source.replace(/(from |import\()"~\//g, `$1"${toApp}/`));
  }
  const candidates = ["server/search.server.ts", "server/discovery.server.ts"];
  const found = candidates.map((c) => path.join(app, c)).find((c) => existsSync(c));
  if (!found) throw new Error(`${revision} has no search module (${candidates.join(", ")}).`);
  return found;
}

async function main() {
  const args = commandLine(process.argv.slice(2));
  const base = args.value("base") ?? "main";
  const rounds = Number(args.value("rounds") ?? "3");
  const state = new BenchState("search");
  const baseSearch = extractBase(base);
  const proxy = await getPlatformProxy<{ DB: D1Database }>({
    configPath: state.configPath,
    persist: { path: path.join(state.persistDir, "v3") },
  });
  try {
    const searcher = await proxy.env.DB.prepare(
      "SELECT id FROM users WHERE username = 'bench_searcher'",
    ).first<{ id: string }>();
    if (!searcher) throw new Error("No benchmark database: run bench/search/run.ts first.");
    const designs: [string, Search][] = [
      [`base (${base})`, await searchOf(baseSearch, proxy.env.DB, searcher.id)],
      ["this tree", await searchOf("~/server/search.server", proxy.env.DB, searcher.id)],
    ];
    const members = await proxy.env.DB.prepare("SELECT count(*) AS n FROM member_search").first<{
      n: number;
    }>();
    // The same mix as run.ts, its words drawn from a sample of the members in the database.
    const { results: sample } = await proxy.env.DB.prepare(
      `SELECT p.country_code AS countryCode, p.state_code AS stateCode, p.city_name AS cityName,
         p.first_name AS firstName, p.interests AS interests, u.username AS username
       FROM profiles p JOIN users u ON u.id = p.user_id LIMIT 20000`,
    ).all<Record<string, string>>();
    const vocabulary = vocabularyOf(
      sample.map((m) => ({ ...m, interests: JSON.parse(m.interests!) as string[] })) as never,
    );
    // `--kinds a,b`: only those kinds of the mix (as many searches of each as the mix holds).
    const kinds = args.value("kinds")?.split(",");
    const mix = queryMix(vocabulary, 300, "bench-compare").filter(
      (q) => !kinds || kinds.includes(q.kind),
    );
    const cpu = cpuClockOf("workerd");
    console.info(
      `compare: ${members?.n.toLocaleString("en")} search rows, ${mix.length} searches x ${rounds} rounds, ` +
        `alternating; load average ${loadavg()[0]!.toFixed(2)}`,
    );
    const samples = new Map<string, Map<string, Tally[]>>();
    const add = (design: string, kind: string, tally: Tally) => {
      const byKind = samples.get(design) ?? new Map<string, Tally[]>();
      byKind.set(kind, [...(byKind.get(kind) ?? []), tally]);
      samples.set(design, byKind);
    };
    for (let round = 0; round < rounds; round++) {
      for (const query of mix) {
        for (const [name, search] of round % 2 ? [...designs].reverse() : designs) {
          const tally = { ms: 0, rows: 0, cpu: 0 };
          const env = {
            DB: timed(proxy.env.DB, tally),
            APP_KEY: BENCH_APP_KEY,
          } as unknown as Env;
          const request = searchRequestSchema.parse({ ...query.body, per_page: 20 });
          const cpuBefore = cpu();
          await search(env, searcher.id, request);
          tally.cpu = cpu() - cpuBefore;
          add(name, query.kind, tally);
          add(name, "all first pages", tally);
        }
      }
    }
    const seen = [...(samples.get(designs[0]![0])?.keys() ?? [])];
    console.info(
      "\ndatabase time per search, p50 / p95 / mean (ms), rows read (mean) and the database's CPU (workerd's, mean ms), by kind:",
    );
    console.info(`${"".padEnd(28)}${designs.map(([n]) => n.padEnd(48)).join("")}`);
    for (const kind of seen) {
      const cells = designs.map(([name]) => {
        const list = samples.get(name)!.get(kind)!;
        const ms = list.map((t) => t.ms).sort((a, b) => a - b);
        const mean = ms.reduce((s, n) => s + n, 0) / ms.length;
        const rows = list.reduce((s, t) => s + t.rows, 0) / list.length;
        const cpuMs = list.reduce((s, t) => s + t.cpu, 0) / list.length;
        return `${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 95).toFixed(1)} / ${mean.toFixed(2)}  ${Math.round(rows)} rows  CPU ${cpuMs.toFixed(2)}`.padEnd(
          48,
        );
      });
      console.info(`${kind.padEnd(28)}${cells.join("")}`);
    }
  } finally {
    await proxy.dispose();
    rmSync(BASE_DIR, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
