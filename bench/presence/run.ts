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
 *   --via-dev-proxy  connect through wrangler dev's reload proxy, not straight to the Worker
 *
 * `--shards 1 --flush-ms 0` is the single global room: every join and leave goes to every socket
 * at once.
 *
 * How it runs: fresh local state in bench/.state/presence/ (gitignored), with a snapshot of the
 * sources and the build (so that work in the tree cannot reload the Worker mid-run); the D1
 * migrations; members with verified emails and sessions seeded straight into D1 (no password
 * hashing); the Worker started in workerd as `wrangler dev` runs it (bench/lib/worker.ts),
 * inspector off (DESIGN.md: wrangler's inspector adds tens of milliseconds to Durable Object
 * calls), on 127.0.0.1; one authenticated socket per member from this process, straight to the
 * Worker. After every socket has its `here`, the churn starts: each tick one
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
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { BenchState, cpuSecondsOf, percentile, startWorker } from "../lib/worker";

interface Options {
  sockets: number;
  churn: number;
  seconds: number;
  shards?: number;
  flushMs?: number;
  graceMs?: number;
  viaDevProxy: boolean;
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
    viaDevProxy: argv.includes("--via-dev-proxy"),
    json: value("json"),
  };
}

const state = new BenchState("presence");
const SESSION_COOKIE = "heartline_session";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => console.log(`[bench] ${message}`);

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
  await state.executeSql("seed.sql", lines);
  return members;
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
  const spare = Math.ceil(options.churn * 25) + 50;
  log(
    `sockets ${options.sockets}, churn ${options.churn} joins/s + ${options.churn} leaves/s, ` +
      `${options.seconds} s measured`,
  );

  await state.reset();
  const members = await seed(options.sockets + spare);
  const config = await state.prepareWorker();
  const vars = config.vars ?? {};
  const shards = options.shards ?? Number(vars.PRESENCE_SHARDS ?? 1);
  const flushMs = options.flushMs ?? Number(vars.PRESENCE_FLUSH_MS ?? 0);
  const graceMs = options.graceMs ?? Number(vars.PRESENCE_GRACE_MS ?? 5000);
  log(`room: ${shards} shard(s), fan-out window ${flushMs} ms, leave grace ${graceMs} ms`);

  const worker = await startWorker(state, {
    vars: {
      APP_ENV: "development",
      PRESENCE_SHARDS: String(shards),
      PRESENCE_FLUSH_MS: String(flushMs),
      PRESENCE_GRACE_MS: String(graceMs),
    },
    viaDevProxy: options.viaDevProxy,
  });

  const stats = new Stats();
  const sockets = new Set<BenchSocket>();
  try {
    const base = worker.url;
    const wsUrl = `${base.replace(/^http/, "ws")}/ws/presence`;
    log(`Worker on ${base}, ${worker.route}; connecting ${options.sockets} sockets`);

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
    const cpuBefore = cpuSecondsOf("workerd");
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
    const cpuSeconds = cpuSecondsOf("workerd") - cpuBefore;
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
