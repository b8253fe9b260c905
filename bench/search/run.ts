/**
 * bench/search: latency of the member search API through the Worker at 10,000 and at 100,000
 * members, as README.md "Performance" reports it.
 *
 *   npm run build && npx tsx bench/search/run.ts [--sizes 10000,100000] [--requests 1000]
 *                                                [--concurrency 2 | 1,2] [--json FILE]
 *                                                [--via-dev-proxy] [--reuse]
 *
 * How it runs:
 *   1. fresh local state in <state>/search/ (BENCH_STATE_DIR, else tmpfs: bench/lib/worker.ts)
 *      with a snapshot of the sources and
 *      the build (so that work in the tree cannot change the Worker mid-run), and the D1
 *      migrations applied to it;
 *   2. for each size, the members of the seed's generator (scripts/lib/members.ts) written
 *      straight into local D1 in chunks of 500 (users, photos, then profiles: the search triggers
 *      index each member as their profile arrives), growing the same database from one size to
 *      the next, plus one verified searcher with a known password (age 30, looking for 22-45);
 *      then one member in 20 comes online (a heartbeat's update, through the search triggers);
 *      with `--reuse`, the state's database is kept (new migrations applied to it) and only the
 *      members it does not hold yet are written, so that a million members are seeded once;
 *   3. EXPLAIN QUERY PLAN of the main query shapes, read from the same database;
 *   4. the Worker started in workerd as `wrangler dev` runs it (bench/lib/worker.ts): inspector
 *      OFF (DESIGN.md), no file watching, persistence in the bench state, on 127.0.0.1 only;
 *      requests go straight to the Worker, or with `--via-dev-proxy` through wrangler dev's
 *      reload proxy in front of it;
 *   5. the searcher signs in (`GET /csrf-token`, `POST /login`), then a fixed, seeded mix of
 *      searches (bench/search/dataset.ts: keywords, every filter, combinations, and "load more"
 *      through the cursor) goes to POST /my/matches/search and GET …?cursor= with at most
 *      `--concurrency` requests in flight (each of a list in turn), after a warm-up; each latency
 *      runs from just before the request until its JSON body is read.
 * It prints, for each size, p50/p95/p99, throughput, p95 by kind of search and the CPU time
 * workerd spent per request (which, unlike latency, does not grow when other work shares the
 * machine); the latency of a signed-in request that only reads the session (the floor under every
 * API call); and how the figures grew between the sizes.
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { getPlatformProxy } from "wrangler";
import { searchRequestSchema } from "~/schemas/search";
import { explainSearch } from "~/server/search.server";
import type { Env } from "~/server/env.server";
import { hashPassword } from "~/server/password.server";
import { buildMembers, type SeedMember } from "../../scripts/lib/members";
import { BenchState, cpuClockOf, cpuSecondsOf, percentile, startWorker } from "../lib/worker";
import {
  INSERT_PHOTOS,
  INSERT_PROFILES,
  INSERT_USERS,
  memberRows,
  planShapes,
  queryMix,
  vocabularyOf,
  type BenchQuery,
} from "./dataset";
import { commandLine } from "../lib/args";

interface Options {
  sizes: number[];
  requests: number;
  /** Requests in flight, one measurement each. */
  concurrency: number[];
  warmup: number;
  viaDevProxy: boolean;
  /** Keep the state's database (its members and searcher) and apply new migrations to it. */
  reuse: boolean;
  json?: string;
}

function parseArgs(argv: string[]): Options {
  const { value, number, flag } = commandLine(argv);
  const positive = (name: string, fallback: number) => number(name, fallback, { whole: true });
  const sizes = (value("sizes") ?? "10000,100000").split(",").map(Number);
  if (
    sizes.some((n) => !Number.isInteger(n) || n <= 0) ||
    sizes.some((n, i) => i > 0 && n <= sizes[i - 1]!)
  ) {
    throw new Error("--sizes wants increasing whole numbers, e.g. 10000,100000");
  }
  return {
    sizes,
    requests: positive("requests", 1000),
    concurrency: (value("concurrency") ?? "2").split(",").map((raw) => {
      const n = Number(raw);
      if (!Number.isInteger(n) || n <= 0)
        throw new Error("--concurrency wants whole numbers, e.g. 1,2");
      return n;
    }),
    warmup: positive("warmup", 50),
    viaDevProxy: flag("via-dev-proxy"),
    reuse: flag("reuse"),
    json: value("json"),
  };
}

const state = new BenchState("search");
const SEARCHER = {
  username: "bench_searcher",
  email: "bench.searcher@example.test",
  password: "bench-searcher-password",
};
const CHUNK = 500;
/** Requests of the floor measurement. */
const FLOOR_REQUESTS = 300;
/** One member in this many is online during a measurement. */
const ONLINE_EVERY = 20;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface Bindings {
  DB: D1Database;
}

type Proxy = Awaited<ReturnType<typeof getPlatformProxy<Bindings>>>;

const openProxy = () =>
  getPlatformProxy<Bindings>({
    configPath: state.configPath,
    persist: { path: path.join(state.persistDir, "v3") },
  });

/**
 * Writes `members` in chunks (each chunk one transaction). The proxy to local D1 can drop a call
 * on a busy machine: the chunk is then sent again on a new proxy (the inserts ignore rows that
 * already made it). Returns the proxy in use and the milliseconds it took.
 */
async function seed(proxy: Proxy, members: SeedMember[], passwordHash: string) {
  const started = performance.now();
  for (let i = 0; i < members.length; i += CHUNK) {
    const { users, photos, profiles } = memberRows(members.slice(i, i + CHUNK), passwordHash);
    for (let attempt = 1; ; attempt++) {
      try {
        const db = proxy.env.DB;
        await db.batch([
          db.prepare(INSERT_USERS).bind(JSON.stringify(users)),
          db.prepare(INSERT_PHOTOS).bind(JSON.stringify(photos)),
          db.prepare(INSERT_PROFILES).bind(JSON.stringify(profiles)),
        ]);
        break;
      } catch (error) {
        if (attempt >= 3) throw error;
        console.warn(`  chunk at ${i} failed (${String(error).slice(0, 80)}); sending it again`);
        await proxy.dispose().catch(() => {});
        proxy = await openProxy();
      }
    }
    if ((i / CHUNK) % 20 === 19) process.stdout.write(`  … ${i + CHUNK} members\n`);
  }
  return { proxy, ms: performance.now() - started };
}

async function addSearcher(db: D1Database, passwordHash: string) {
  const id = "benchsearcher0000001";
  const now = new Date().toISOString();
  const born = new Date();
  born.setUTCFullYear(born.getUTCFullYear() - 30);
  born.setUTCDate(born.getUTCDate() - 40);
  await db.batch([
    db
      .prepare(
        `INSERT INTO users (id, username, email, password_hash, email_verified_at, last_seen_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)`,
      )
      .bind(id, SEARCHER.username, SEARCHER.email, passwordHash, now),
    db
      .prepare(
        `INSERT INTO profiles (user_id, first_name, date_of_birth, bio, gender, interests, age_min, age_max,
           country_code, state_code, city_name, latitude, longitude)
         VALUES (?1, 'Bench', ?2, 'Here to measure.', 'woman', '["Hiking"]', 22, 45,
           'US', 'NY', 'New York City', 40.71, -74.01)`,
      )
      .bind(id, born.toISOString().slice(0, 10)),
  ]);
  await subscribe(db, id);
  return id;
}

/** The searcher subscribes to Plus: the mix uses the advanced filters ("online now", interests). */
async function subscribe(db: D1Database, id: string) {
  const start = new Date();
  const end = new Date(start.getTime() + 365 * 86_400_000);
  await db
    .prepare(
      `INSERT OR IGNORE INTO subscriptions (user_id, plan_id, billing_cycle, status, provider,
         current_period_start, current_period_end)
       VALUES (?1, 'plus', 'yearly', 'active', 'test', ?2, ?3)`,
    )
    .bind(id, start.toISOString(), end.toISOString())
    .run();
}

interface Sample {
  kind: string;
  ms: number;
  status: number;
  /** The database's time for the search's statements (Server-Timing `db`), and rows read. */
  dbMs: number;
  rows: number;
  /** workerd's CPU time for the request (the Worker and local D1), from cpuClockOf. */
  cpuMs: number;
}

/** `db;dur=…` and `db-rows;desc="…"` of the Worker's Server-Timing header (SERVER_TIMING=1). */
function dbTiming(header: string | null) {
  const dur = /(?:^|,)\s*db;dur=([\d.]+)/.exec(header ?? "");
  const rows = /db-rows;desc="(\d+)"/.exec(header ?? "");
  return { dbMs: dur ? Number(dur[1]) : NaN, rows: rows ? Number(rows[1]) : NaN };
}

class Session {
  private cookies = new Map<string, string>();
  csrf = "";
  constructor(readonly base: string) {}

  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async request(method: string, pathname: string, body?: unknown) {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.cookies.size) headers.Cookie = this.cookieHeader();
    if (method !== "GET") headers["X-CSRF-Token"] = this.csrf;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(`${this.base}${pathname}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    return { status: res.status, json, ...dbTiming(res.headers.get("Server-Timing")) };
  }

  async signIn() {
    const token = await this.request("GET", "/csrf-token");
    this.csrf = String(token.json?.token ?? "");
    const login = await this.request("POST", "/login", {
      email: SEARCHER.email,
      password: SEARCHER.password,
    });
    if (login.status !== 200)
      throw new Error(`sign-in failed: ${login.status} ${JSON.stringify(login.json)}`);
    const fresh = await this.request("GET", "/csrf-token");
    this.csrf = String(fresh.json?.token ?? this.csrf);
  }
}

/** One search and its "load more" pages; every request is a sample. */
async function runQuery(session: Session, query: BenchQuery, samples: Sample[], cpu: () => number) {
  const cpuFirst = cpu();
  const first = performance.now();
  const res = await session.request("POST", "/my/matches/search", { ...query.body, per_page: 20 });
  samples.push({
    kind: query.kind,
    ms: performance.now() - first,
    status: res.status,
    dbMs: res.dbMs,
    rows: res.rows,
    cpuMs: cpu() - cpuFirst,
  });
  let meta = res.json?.meta as { cursor?: string | null } | undefined;
  for (let page = 0; page < query.more && meta?.cursor; page++) {
    const params = new URLSearchParams();
    if (query.body.keywords) params.set("keywords", query.body.keywords);
    for (const [k, v] of Object.entries(query.body.filters ?? {})) {
      if (Array.isArray(v)) for (const item of v) params.append(k, String(item));
      else params.set(k, String(v));
    }
    params.set("per_page", "20");
    params.set("cursor", meta.cursor);
    const cpuStarted = cpu();
    const started = performance.now();
    const more = await session.request("GET", `/my/matches/search?${params.toString()}`);
    samples.push({
      kind: "load more (next page)",
      ms: performance.now() - started,
      status: more.status,
      dbMs: more.dbMs,
      rows: more.rows,
      cpuMs: cpu() - cpuStarted,
    });
    meta = more.json?.meta as typeof meta;
  }
}

async function drive(session: Session, queries: BenchQuery[], concurrency: number) {
  const samples: Sample[] = [];
  // With more than one request in flight, a request's CPU clock also counts the others'.
  const cpu = cpuClockOf("workerd");
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < queries.length) {
        const query = queries[next++]!;
        await runQuery(session, query, samples, cpu);
      }
    }),
  );
  return { samples, wallMs: performance.now() - started };
}

/** The floor: a signed-in request that only reads the session, at the same concurrency. */
async function measureFloor(session: Session, concurrency: number) {
  const ms: number[] = [];
  let left = FLOOR_REQUESTS;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) {
        const started = performance.now();
        await session.request("GET", "/csrf-token");
        ms.push(performance.now() - started);
      }
    }),
  );
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

const ascending = (list: number[]) => [...list].sort((a, b) => a - b);
const mean = (list: number[]) => list.reduce((sum, n) => sum + n, 0) / (list.length || 1);

function summarize(samples: Sample[], wallMs: number) {
  const ms = ascending(samples.map((s) => s.ms));
  const db = ascending(samples.map((s) => s.dbMs));
  const byKind = new Map<string, Sample[]>();
  for (const s of samples) byKind.set(s.kind, [...(byKind.get(s.kind) ?? []), s]);
  return {
    requests: samples.length,
    errors: samples.filter((s) => s.status !== 200).length,
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    p99: percentile(ms, 99),
    max: ms[ms.length - 1] ?? 0,
    throughput: samples.length / (wallMs / 1000),
    db: {
      p50: percentile(db, 50),
      p95: percentile(db, 95),
      p99: percentile(db, 99),
      mean: mean(db),
      rowsRead: mean(samples.map((s) => s.rows)),
    },
    byKind: [...byKind].map(([kind, list]) => {
      const sorted = ascending(list.map((s) => s.ms));
      const dbSorted = ascending(list.map((s) => s.dbMs));
      return {
        kind,
        n: sorted.length,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        dbP50: percentile(dbSorted, 50),
        dbP95: percentile(dbSorted, 95),
        dbMax: dbSorted[dbSorted.length - 1] ?? NaN,
        rowsRead: mean(list.map((s) => s.rows)),
        cpuMs: mean(list.map((s) => s.cpuMs)),
      };
    }),
  };
}

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const started = performance.now();
  console.info(
    `bench/search: sizes ${options.sizes.join(", ")}, ${options.requests} searches each, ` +
      `in flight ${options.concurrency.join(", ")}; ${cpus().length} CPUs, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
  );
  if (options.reuse) await state.migrate();
  else await state.reset();
  await state.prepareWorker();

  // Activity as the generator spreads it, ending a quarter of an hour ago: then, before each
  // measurement, one member in twenty comes online (as heartbeats would), at every size alike.
  const all = buildMembers({
    count: options.sizes[options.sizes.length - 1]!,
    withoutDemo: true,
    now: new Date(Date.now() - 15 * 60_000),
  });
  const vocabulary = vocabularyOf(all);
  const passwordHash = await hashPassword(SEARCHER.password);
  const results: Record<string, unknown>[] = [];
  let seeded = 0;
  let searcherId = "";
  if (options.reuse) {
    const proxy = await openProxy();
    try {
      const db = proxy.env.DB;
      const row = await db
        .prepare("SELECT id FROM users WHERE email = ?1")
        .bind(SEARCHER.email)
        .first<{ id: string }>();
      searcherId = row?.id ?? "";
      // Every member but the searcher came from the generator, in its order.
      const held = await db.prepare("SELECT count(*) AS n FROM users").first<{ n: number }>();
      seeded = Math.max(0, (held?.n ?? 0) - (searcherId ? 1 : 0));
      if (searcherId) await subscribe(db, searcherId);
    } finally {
      await proxy.dispose();
    }
    console.info(`reusing ${seeded.toLocaleString("en")} members`);
  }

  for (const size of options.sizes) {
    console.info(`\n== ${size.toLocaleString("en")} members ==`);
    let proxy = await openProxy();
    const plans: Record<string, Record<string, string[]>> = {};
    try {
      const seeded_ = await seed(proxy, all.slice(Math.min(seeded, size), size), passwordHash);
      proxy = seeded_.proxy;
      console.info(
        `seeded ${Math.max(0, size - seeded).toLocaleString("en")} members in ${seconds(seeded_.ms)}`,
      );
      seeded = Math.max(seeded, size);
      // The generated members are not needed any more: let the client's heap shrink before it
      // measures (at a million members it holds gigabytes, and collecting them stalls requests).
      if (size === options.sizes[options.sizes.length - 1]) all.length = 0;
      if (!searcherId) searcherId = await addSearcher(proxy.env.DB, passwordHash);
      await proxy.env.DB.prepare(
        `UPDATE users SET last_seen_at = ?1 WHERE rowid % ${ONLINE_EVERY} = 0 AND id <> ?2`,
      )
        .bind(new Date().toISOString(), searcherId)
        .run();
      const online = await proxy.env.DB.prepare(
        "SELECT count(*) AS n FROM users WHERE last_seen_at >= ?1",
      )
        .bind(new Date(Date.now() - 60_000).toISOString())
        .first<{ n: number }>();
      console.info(`${(online?.n ?? 0).toLocaleString("en")} members online`);
      const env = { DB: proxy.env.DB } as unknown as Env;
      for (const shape of planShapes(vocabulary)) {
        plans[shape.name] = await explainSearch(
          env,
          searcherId,
          searchRequestSchema.parse(shape.body),
        );
      }
    } finally {
      await proxy.dispose();
    }

    const worker = await startWorker(state, {
      // SERVER_TIMING: the Worker reports each search's database time (Server-Timing).
      vars: { APP_ENV: "test", SERVER_TIMING: "1" },
      viaDevProxy: options.viaDevProxy,
    });
    try {
      const base = worker.url;
      if (size === options.sizes[0]) console.info(`requests go ${worker.route}`);
      const session = new Session(base);
      await session.signIn();
      await drive(session, queryMix(vocabulary, options.warmup, `warmup-${size}`), 2);
      for (const concurrency of options.concurrency) {
        console.info(`-- ${concurrency} in flight`);
        const floorCpuBefore = cpuSecondsOf("workerd");
        const floor = await measureFloor(session, concurrency);
        const floorCpuMs = ((cpuSecondsOf("workerd") - floorCpuBefore) * 1000) / FLOOR_REQUESTS;
        const load = loadavg()[0]!;
        const cpuBefore = cpuSecondsOf("workerd");
        const { samples, wallMs } = await drive(
          session,
          queryMix(vocabulary, options.requests),
          concurrency,
        );
        const cpuMs = ((cpuSecondsOf("workerd") - cpuBefore) * 1000) / samples.length;
        const summary = summarize(samples, wallMs);
        results.push({
          size,
          concurrency,
          ...summary,
          floor: { ...floor, cpuMsPerRequest: floorCpuMs },
          cpuMsPerRequest: cpuMs,
          loadAverage: load,
          plans,
        });
        console.info(
          `${summary.requests} requests (${summary.errors} not 200) in ${seconds(wallMs)}: ` +
            `p50 ${f1(summary.p50)} ms, p95 ${f1(summary.p95)} ms, p99 ${f1(summary.p99)} ms, ` +
            `max ${f1(summary.max)} ms, ${f1(summary.throughput)} req/s, ` +
            `workerd CPU ${f1(cpuMs)} ms a request (load average ${load.toFixed(2)})`,
        );
        console.info(
          `floor (GET /csrf-token, signed in): p50 ${f1(floor.p50)} ms, p95 ${f1(floor.p95)} ms, ` +
            `workerd CPU ${f1(floorCpuMs)} ms a request`,
        );
        console.info(
          `database time a search (D1 meta.duration, summed): p50 ${f2(summary.db.p50)} ms, ` +
            `p95 ${f2(summary.db.p95)} ms, p99 ${f2(summary.db.p99)} ms, mean ${f2(summary.db.mean)} ms, ` +
            `${Math.round(summary.db.rowsRead)} rows read`,
        );
        console.info(
          "by kind of search: latency p50 / p95, database p50 / p95 / max (ms), rows read and workerd CPU (mean):",
        );
        for (const k of summary.byKind.sort((a, b) => b.p95 - a.p95)) {
          console.info(
            `  ${k.kind.padEnd(28)} n=${String(k.n).padStart(4)}  ${f1(k.p50).padStart(6)}  ${f1(k.p95).padStart(6)}` +
              `   db ${f2(k.dbP50).padStart(6)}  ${f2(k.dbP95).padStart(6)}  ${f2(k.dbMax).padStart(6)}` +
              `  rows ${String(Math.round(k.rowsRead)).padStart(7)}  CPU ${f1(k.cpuMs).padStart(5)} ms`,
          );
        }
        if (summary.errors > 0) {
          const statuses = [
            ...new Set(samples.filter((s) => s.status !== 200).map((s) => s.status)),
          ];
          throw new Error(`${summary.errors} requests failed (statuses ${statuses.join(", ")})`);
        }
      }
    } finally {
      await worker.dispose();
    }
  }

  const last = results[results.length - 1] as {
    size: number;
    plans: Record<string, Record<string, string[]>>;
  };
  console.info(
    `\nEXPLAIN QUERY PLAN at ${last.size.toLocaleString("en")} members (statement: how it reads ` +
      "member_search s, users u, the full-text table f; the first page's statement holds every plan):",
  );
  for (const [shape, statements] of Object.entries(last.plans)) {
    console.info(`  ${shape}`);
    for (const [name, lines] of Object.entries(statements)) {
      const reads = [
        ...new Set(
          lines.filter((l) => /^(SEARCH|SCAN) (s|u|f|w|users|member_search_fts)\b/.test(l)),
        ),
      ];
      console.info(`    ${name.padEnd(11)} ${reads.join(" | ")}`);
    }
  }
  type Row = { size: number; concurrency: number; p50: number; p95: number; p99: number };
  type Measured = Row & {
    cpuMsPerRequest: number;
    throughput: number;
    db: { p50: number; p95: number; p99: number };
  };
  const rows = results as unknown as Measured[];
  console.info(
    "\nmembers  in flight  p50 / p95 / p99 (ms)     req/s  CPU/request  database p50 / p95 / p99 (ms)",
  );
  for (const r of rows) {
    console.info(
      `${r.size.toLocaleString("en").padStart(9)}  ${String(r.concurrency).padStart(9)}  ` +
        `${`${f1(r.p50)} / ${f1(r.p95)} / ${f1(r.p99)}`.padEnd(22)}  ${f1(r.throughput).padStart(5)}  ` +
        `${f1(r.cpuMsPerRequest).padStart(6)} ms    ${f2(r.db.p50)} / ${f2(r.db.p95)} / ${f2(r.db.p99)}`,
    );
  }
  for (const concurrency of options.concurrency) {
    const same = rows.filter((r) => r.concurrency === concurrency);
    const a = same[0];
    const b = same[same.length - 1];
    if (!a || !b || a === b) continue;
    console.info(
      `Growth ${a.size.toLocaleString("en")} → ${b.size.toLocaleString("en")} members (x${b.size / a.size}), ` +
        `${concurrency} in flight: p50 x${(b.p50 / a.p50).toFixed(2)}, p95 x${(b.p95 / a.p95).toFixed(2)}, ` +
        `p99 x${(b.p99 / a.p99).toFixed(2)}, CPU x${(b.cpuMsPerRequest / a.cpuMsPerRequest).toFixed(2)}`,
    );
  }
  if (options.json) writeFileSync(options.json, JSON.stringify(results, null, 2));
  console.info(`\nDone in ${seconds(performance.now() - started)}.`);
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
