/**
 * bench/presence: the presence room under `wrangler dev`'s runtime with many members online and
 * members coming and going, as docs/decisions/004 reports it.
 *
 *   npm run build && npx tsx bench/presence/run.ts [options]
 *
 *   --sockets N    members online at once, one socket each (default 1000)
 *   --churn N      members joining per second, and as many leaving (default sockets / 100)
 *   --seconds N    how long the churn is measured (default 30)
 *   --shards N     PRESENCE_SHARDS for this run (default: wrangler.toml's)
 *   --flush-ms N   PRESENCE_FLUSH_MS for this run (default: wrangler.toml's)
 *   --grace-ms N   PRESENCE_GRACE_MS for this run (default: wrangler.toml's)
 *   --json FILE    also write the figures as JSON
 *
 * `--shards 1 --flush-ms 0` is the single global room: every join and leave goes to every socket
 * at once.
 *
 * How it runs: fresh local state in bench/.state-presence/ (gitignored), with a snapshot of the
 * sources and the build (so that work in the tree cannot reload the Worker mid-run); the D1
 * migrations; members
 * with verified emails and sessions seeded straight into D1 (no password hashing); the Worker
 * started with wrangler's `unstable_startWorker`, inspector off (DESIGN.md: wrangler's inspector
 * adds tens of milliseconds to Durable Object calls), on 127.0.0.1; one authenticated socket per
 * member from this process. After every socket has its `here`, the churn starts: each tick one
 * random member closes their socket (they leave after the grace period) and a member who is not
 * online opens one.
 *
 * Reported:
 * - join → joining: from the moment a member's socket starts connecting to the moment each other
 *   socket hears that they joined (single `joining` frames and `presence` batches alike), p50/p99
 *   over every (join, listener) pair, and p50/p99 of the time until the last listener heard it;
 * - frames/s: frames received by all sockets per second, and member events (joins and leaves,
 *   batched or not) per second;
 * - CPU: the workerd process (the Worker and every room) and this client, as a share of one core.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { cp, mkdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

interface Options {
  sockets: number;
  churn: number;
  seconds: number;
  shards?: number;
  flushMs?: number;
  graceMs?: number;
  json?: string;
}

function parseArgs(argv: string[]): Options {
  const value = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const num = (name: string) => {
    const v = value(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number`);
    return n;
  };
  const sockets = num("sockets") ?? 1000;
  return {
    sockets,
    churn: num("churn") ?? Math.max(1, Math.round(sockets / 100)),
    seconds: num("seconds") ?? 30,
    shards: num("shards"),
    flushMs: num("flush-ms"),
    graceMs: num("grace-ms"),
    json: value("json"),
  };
}

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const STATE_DIR = path.join(ROOT, "bench", ".state-presence");
const PERSIST_DIR = path.join(STATE_DIR, "persist");
const SOURCE_DIR = path.join(STATE_DIR, "src");
const CONFIG_PATH = path.join(STATE_DIR, "wrangler.json");
const SEED_PATH = path.join(STATE_DIR, "seed.sql");
const WRANGLER_BIN = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
const BENCH_APP_KEY = "bench-only-app-key-0123456789-abcdefghijklmnopqrstuvwxyz";
const SESSION_COOKIE = "heartline_session";

const wranglerEnv = {
  ...process.env,
  CI: "true",
  WRANGLER_SEND_METRICS: "false",
  NO_UPDATE_NOTIFIER: "1",
  FORCE_COLOR: "0",
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => console.log(`[bench] ${message}`);

function wrangler(args: string[]) {
  const result = spawnSync(process.execPath, [WRANGLER_BIN, ...args], {
    cwd: ROOT,
    env: wranglerEnv,
    encoding: "utf8",
  });
  if (result.status !== 0) {
    throw new Error(`wrangler ${args.join(" ")} failed\n${result.stdout}\n${result.stderr}`);
  }
}

interface Member {
  id: string;
  cookie: string;
  online: boolean;
  /** Not reused before this time (its leave must have gone out first). */
  restUntil: number;
}

/** Members with verified emails and long sessions, written straight into D1. */
async function seed(count: number): Promise<Member[]> {
  const now = new Date().toISOString();
  const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const members: Member[] = [];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `bench${i.toString(36).padStart(4, "0")}${randomBytes(6).toString("hex")}`;
    const token = randomBytes(32).toString("base64url");
    const hash = createHash("sha256").update(token).digest("hex");
    lines.push(
      `INSERT INTO users (id, username, email, password_hash, email_verified_at) VALUES ('${id}', 'bench_${i}', 'bench${i}@bench.test', 'unused', '${now}');`,
      `INSERT INTO sessions (id_hash, user_id, remember, created_at, last_active_at, expires_at, password_confirmed_at) VALUES ('${hash}', '${id}', 1, '${now}', '${now}', '${expires}', '${now}');`,
    );
    members.push({ id, cookie: `${SESSION_COOKIE}=${token}`, online: false, restUntil: 0 });
  }
  await writeFile(SEED_PATH, lines.join("\n"));
  wrangler(["d1", "execute", "DB", "--local", "--persist-to", PERSIST_DIR, "--file", SEED_PATH]);
  return members;
}

/**
 * A snapshot of the Worker's sources and the Remix build, so that edits and builds in the working
 * tree during a run do not make wrangler reload the Worker (which drops every socket).
 */
async function snapshotSources() {
  for (const entry of [
    "app",
    "worker",
    "durable-objects",
    "build",
    "tsconfig.json",
    "package.json",
  ]) {
    await cp(path.join(ROOT, entry), path.join(SOURCE_DIR, entry), { recursive: true });
  }
}

/** wrangler.toml as JSON without [build] and [env.*], pointing at the snapshot (as tests/e2e does). */
async function writeConfig() {
  const { experimental_readRawConfig } = await import("wrangler");
  const { rawConfig } = experimental_readRawConfig({ config: path.join(ROOT, "wrangler.toml") });
  const config = structuredClone(rawConfig) as Record<string, unknown> & {
    main?: string;
    assets?: { directory?: string };
    d1_databases?: { migrations_dir?: string }[];
  };
  delete config.build;
  delete config.env;
  if (config.main) config.main = path.resolve(SOURCE_DIR, config.main);
  if (config.assets?.directory) {
    config.assets.directory = path.resolve(SOURCE_DIR, config.assets.directory);
  }
  for (const db of config.d1_databases ?? []) {
    if (db.migrations_dir) db.migrations_dir = path.resolve(ROOT, db.migrations_dir);
  }
  await writeFile(CONFIG_PATH, JSON.stringify(config, null, 2));
  return config as { vars?: Record<string, unknown> };
}

/** CPU seconds used so far by every workerd process below this one. */
function workerdCpuSeconds(): number {
  const ticks =
    Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      parents.set(Number(entry), Number(fields[1]));
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
    } catch {
      // The process ended meanwhile.
    }
  }
  const isMine = (pid: number) => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) {
      if (p === process.pid) return true;
    }
    return false;
  };
  let total = 0;
  for (const [pid, name] of names) {
    if (!name.startsWith("workerd") || !isMine(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12])) / ticks;
    } catch {
      // Ended.
    }
  }
  return total;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Join {
  started: number;
  expected: Set<BenchSocket>;
  heardBy: number;
  lastHeard: number;
}

class Stats {
  measuring = false;
  frames = 0;
  events = 0;
  latencies: number[] = [];
  completions: number[] = [];
  connectTimes: number[] = [];
  joins = new Map<string, Join>();
  incomplete = 0;
  /** Sockets the server closed (code and reason). */
  dropped: string[] = [];
}

class BenchSocket {
  ws!: WebSocket;
  hereAt = 0;
  closing = false;

  constructor(
    readonly member: Member,
    private readonly stats: Stats,
    private readonly sockets: Set<BenchSocket>,
  ) {}

  open(url: string): Promise<void> {
    const started = performance.now();
    const { stats } = this;
    if (stats.measuring) {
      stats.joins.set(this.member.id, {
        started,
        expected: new Set([...this.sockets]),
        heardBy: 0,
        lastHeard: started,
      });
    }
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { Cookie: this.member.cookie } } as never);
      this.ws = ws;
      ws.addEventListener("open", () => {
        if (stats.measuring) stats.connectTimes.push(performance.now() - started);
      });
      ws.addEventListener("message", (event) => this.onFrame(String(event.data), resolve));
      ws.addEventListener("error", () => reject(new Error(`socket of ${this.member.id} failed`)));
      ws.addEventListener("close", (event) => {
        if (this.closing) return;
        stats.dropped.push(`${event.code} ${event.reason}`.trim());
        this.close();
      });
    });
  }

  private onFrame(raw: string, ready: () => void) {
    const stats = this.stats;
    if (stats.measuring) stats.frames += 1;
    const frame = JSON.parse(raw) as {
      type: string;
      user_id?: string;
      joining?: string[];
      leaving?: string[];
    };
    if (frame.type === "here") {
      this.hereAt = performance.now();
      this.sockets.add(this);
      ready();
      return;
    }
    const joined =
      frame.type === "joining" ? [frame.user_id!] : frame.type === "presence" ? frame.joining! : [];
    const left =
      frame.type === "leaving" ? [frame.user_id!] : frame.type === "presence" ? frame.leaving! : [];
    if (stats.measuring) stats.events += joined.length + left.length;
    const now = performance.now();
    for (const id of joined) {
      const join = stats.joins.get(id);
      if (!join || !join.expected.delete(this)) continue;
      stats.latencies.push(now - join.started);
      join.heardBy += 1;
      join.lastHeard = now;
      if (join.expected.size === 0) {
        stats.completions.push(now - join.started);
        stats.joins.delete(id);
      }
    }
  }

  close() {
    this.closing = true;
    this.sockets.delete(this);
    for (const [id, join] of this.stats.joins) {
      if (join.expected.delete(this) && join.expected.size === 0) {
        this.stats.completions.push(join.lastHeard - join.started);
        this.stats.joins.delete(id);
      }
    }
    try {
      this.ws.close(1000, "bench");
    } catch {
      // Already closed.
    }
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!existsSync(path.join(ROOT, "build", "server", "index.js"))) {
    throw new Error("The Remix build is missing: run `npm run build` first.");
  }
  const spare = Math.ceil(options.churn * 25) + 50;
  log(
    `sockets ${options.sockets}, churn ${options.churn} joins/s + ${options.churn} leaves/s, ` +
      `${options.seconds} s measured`,
  );

  await rm(STATE_DIR, { recursive: true, force: true });
  await mkdir(PERSIST_DIR, { recursive: true });
  wrangler([
    "d1",
    "migrations",
    "apply",
    "DB",
    "--local",
    "--persist-to",
    PERSIST_DIR,
    "--config",
    path.join(ROOT, "wrangler.toml"),
  ]);
  const members = await seed(options.sockets + spare);
  await snapshotSources();
  const config = await writeConfig();
  const vars = config.vars ?? {};
  const shards = options.shards ?? Number(vars.PRESENCE_SHARDS ?? 1);
  const flushMs = options.flushMs ?? Number(vars.PRESENCE_FLUSH_MS ?? 0);
  const graceMs = options.graceMs ?? Number(vars.PRESENCE_GRACE_MS ?? 5000);
  log(`room: ${shards} shard(s), fan-out window ${flushMs} ms, leave grace ${graceMs} ms`);

  const { unstable_startWorker } = await import("wrangler");
  process.env.WRANGLER_SEND_METRICS = "false";
  const worker = await unstable_startWorker({
    config: CONFIG_PATH,
    envFiles: [],
    sendMetrics: false,
    bindings: {
      APP_KEY: { type: "secret_text", value: BENCH_APP_KEY },
      APP_ENV: { type: "plain_text", value: "development" },
      PRESENCE_SHARDS: { type: "plain_text", value: String(shards) },
      PRESENCE_FLUSH_MS: { type: "plain_text", value: String(flushMs) },
      PRESENCE_GRACE_MS: { type: "plain_text", value: String(graceMs) },
    },
    dev: {
      remote: false,
      inspector: false,
      watch: false,
      liveReload: false,
      persist: PERSIST_DIR,
      server: { hostname: "127.0.0.1", port: 0 },
      logLevel: "warn",
      enableContainers: false,
      generateTypes: false,
    },
  });

  const stats = new Stats();
  const sockets = new Set<BenchSocket>();
  try {
    await worker.ready;
    const base = (await worker.url).origin;
    const wsUrl = `${base.replace(/^http/, "ws")}/ws/presence`;
    log(`Worker on ${base}; connecting ${options.sockets} sockets`);

    const connectStarted = performance.now();
    const pool = members.slice(0, options.sockets);
    for (let i = 0; i < pool.length; i += 25) {
      await Promise.all(
        pool.slice(i, i + 25).map(async (member) => {
          member.online = true;
          await new BenchSocket(member, stats, sockets).open(wsUrl);
        }),
      );
    }
    log(
      `${sockets.size} sockets connected in ${((performance.now() - connectStarted) / 1000).toFixed(1)} s`,
    );
    await sleep(Math.max(2000, flushMs * 4));

    const loadBefore = loadavg()[0]!;
    const cpuBefore = workerdCpuSeconds();
    const clientBefore = process.cpuUsage();
    const started = performance.now();
    stats.measuring = true;
    const tickMs = 1000 / options.churn;
    let ticks = 0;
    const failures: string[] = [];
    while (performance.now() - started < options.seconds * 1000) {
      const due = started + ticks * tickMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      ticks += 1;
      const online = [...sockets];
      const leaving = online[Math.floor(Math.random() * online.length)];
      if (leaving) {
        leaving.member.online = false;
        leaving.member.restUntil = Date.now() + graceMs + 3000;
        leaving.close();
      }
      const next = members.find((m) => !m.online && m.restUntil <= Date.now());
      if (!next) {
        failures.push("no member left to join: raise the spare pool");
        continue;
      }
      next.online = true;
      new BenchSocket(next, stats, sockets).open(wsUrl).catch((error: unknown) => {
        failures.push(String(error));
      });
    }
    const elapsed = (performance.now() - started) / 1000;
    stats.measuring = false;
    const cpuSeconds = workerdCpuSeconds() - cpuBefore;
    const cpu = cpuSeconds / elapsed;
    const loadAfter = loadavg()[0]!;
    const client = process.cpuUsage(clientBefore);
    const clientCpu = (client.user + client.system) / 1e6 / elapsed;
    // Listeners still owed a join after the window: give them time, then count what is missing.
    const settleUntil = Date.now() + 30_000;
    while (Date.now() < settleUntil && [...stats.joins.values()].some((j) => j.expected.size > 0)) {
      await sleep(200);
    }
    for (const join of stats.joins.values()) stats.incomplete += join.expected.size;

    const latencies = [...stats.latencies].sort((a, b) => a - b);
    const completions = [...stats.completions].sort((a, b) => a - b);
    const connects = [...stats.connectTimes].sort((a, b) => a - b);
    const result = {
      sockets: options.sockets,
      churn_per_s: options.churn,
      seconds: Number(elapsed.toFixed(1)),
      shards,
      flush_ms: flushMs,
      grace_ms: graceMs,
      joins: ticks,
      join_to_joining_ms: {
        p50: Number(percentile(latencies, 50).toFixed(1)),
        p99: Number(percentile(latencies, 99).toFixed(1)),
        samples: latencies.length,
      },
      join_heard_by_all_ms: {
        p50: Number(percentile(completions, 50).toFixed(1)),
        p99: Number(percentile(completions, 99).toFixed(1)),
      },
      connect_ms: {
        p50: Number(percentile(connects, 50).toFixed(1)),
        p99: Number(percentile(connects, 99).toFixed(1)),
      },
      frames_per_s: Math.round(stats.frames / elapsed),
      events_per_s: Math.round(stats.events / elapsed),
      missed_deliveries: stats.incomplete,
      workerd_cpu: Number(cpu.toFixed(2)),
      workerd_cpu_ms_per_1000_frames: Number(
        ((cpuSeconds * 1e6) / Math.max(1, stats.frames)).toFixed(1),
      ),
      workerd_cpu_ms_per_1000_events: Number(
        ((cpuSeconds * 1e6) / Math.max(1, stats.events)).toFixed(1),
      ),
      load_average: [Number(loadBefore.toFixed(1)), Number(loadAfter.toFixed(1))],
      cores: cpus().length,
      client_cpu: Number(clientCpu.toFixed(2)),
      failures: failures.length,
      dropped_sockets: stats.dropped.length,
    };
    console.log("");
    console.log(
      `join → joining     p50 ${result.join_to_joining_ms.p50} ms   p99 ${result.join_to_joining_ms.p99} ms   (${latencies.length} deliveries)`,
    );
    console.log(
      `heard by everyone  p50 ${result.join_heard_by_all_ms.p50} ms   p99 ${result.join_heard_by_all_ms.p99} ms`,
    );
    console.log(
      `socket connect     p50 ${result.connect_ms.p50} ms   p99 ${result.connect_ms.p99} ms`,
    );
    console.log(
      `frames/s           ${result.frames_per_s}   (member events/s ${result.events_per_s})`,
    );
    console.log(
      `CPU (1 = one core) workerd ${result.workerd_cpu}   bench client ${result.client_cpu}`,
    );
    console.log(
      `workerd CPU        ${result.workerd_cpu_ms_per_1000_frames} ms per 1,000 frames, ` +
        `${result.workerd_cpu_ms_per_1000_events} ms per 1,000 member events`,
    );
    console.log(
      `machine            ${result.cores} cores, load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}`,
    );
    console.log(
      `missed deliveries  ${result.missed_deliveries}   failures ${result.failures}   ` +
        `sockets dropped by the server ${result.dropped_sockets}`,
    );
    if (stats.dropped.length)
      console.log(`  e.g. ${[...new Set(stats.dropped)].slice(0, 3).join(", ")}`);
    console.log(JSON.stringify(result));
    if (failures.length) console.log(failures.slice(0, 5).join("\n"));
    if (options.json) await writeFile(options.json, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    for (const socket of [...sockets]) socket.close();
    await sleep(200);
    await worker.dispose();
    // The snapshot is only for the run (and would otherwise be type-checked with the project).
    await rm(SOURCE_DIR, { recursive: true, force: true });
  }
}

// Node 20 has a WebSocket client (with request headers) behind a flag: run again with it.
if (typeof WebSocket === "undefined") {
  const child = spawn(
    process.execPath,
    [
      "--experimental-websocket",
      "--import",
      "tsx",
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: "inherit" },
  );
  child.on("exit", (code) => process.exit(code ?? 1));
} else {
  await main();
}
