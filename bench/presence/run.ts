/**
 * bench/presence: the presence room with many members online, each page watching the members it
 * shows, while members come and go and pages change what they show (docs/decisions/011).
 *
 *   npm run build && npx tsx bench/presence/run.ts [options]
 *
 *   --sockets N[,N…]   members online at once, one socket each; several sizes run one after the
 *                      other (default 1000)
 *   --churn N          members joining per second, and as many leaving (default sockets / 100)
 *   --watch-rate N     watch-set changes per second (default sockets / 200)
 *   --watch-size N     members each page watches (default 50)
 *   --seconds N        how long the load is measured (default 60)
 *   --clients N        client processes holding the sockets (default one per 2,500 sockets)
 *   --compare-ref REF  also run the room of git REF (built from `git archive`, e.g. the commit
 *                      before the scoped room, for the global design) at the first size, first
 *   --rounds N         with --compare-ref: REF and this tree N times each, alternating, at the
 *                      first size (default 1), so that both see the same machine
 *   --shards N         PRESENCE_SHARDS for the run (default wrangler.toml's)
 *   --state-dir DIR    where state lives (default /dev/shm/heartline-bench/presence)
 *   --json FILE        also write every run's figures as JSON
 *
 * How it runs, per size: fresh local state on tmpfs; the D1 migrations; members with verified
 * emails and sessions written straight into D1 (no password hashing), a third more than are
 * online so that pages show offline members too; the Worker in workerd as `wrangler dev` runs it
 * (bench/lib/worker.ts), inspector off, on 127.0.0.1; each online member's socket goes through
 * the Worker and its session check, from one of several client processes (bench/presence/
 * client.ts: one Node thread cannot hold 10,000 sockets and their frames without becoming the
 * bottleneck). A page watches `--watch-size` members: a page of 40 from a list every page draws
 * from (pages chosen with a Zipf law, so that popular pages overlap, as search results do) and 10
 * contacts of its own. After every socket has its `here`, for `--seconds`: each churn tick one
 * random member closes their socket (they leave after the grace period) and a member who is not
 * online opens one and sends their watch; each watch tick one random page shows another page.
 * The ramp (opening every socket, 64 at a time) is not measured: the load starts once workerd
 * has settled (a second under 5 % of a core, after every socket had its `here`).
 *
 * Reported:
 * - join → joining: from the moment a member's socket starts connecting to the moment each socket
 *   that watches them (and had its `here` for that set before) hears that they joined, p50/p99
 *   over every (join, watcher) pair, and the p99 of the time until the last watcher heard it;
 * - joins never heard: (join, watcher) pairs still missing 15 s after the load stopped (a watcher
 *   that closes or stops watching first is not counted);
 * - watch → here: from sending a new watch set to its `here`;
 * - frames/s received by all sockets; workerd CPU (the Worker, D1 and every room) as a share of
 *   one core and per 1,000 frames; workerd's resident memory at the end; the clients' CPU;
 * - workerd CPU per socket during the ramp (the upgrade through the Worker and the first watch).
 *
 * With `--compare-ref`, a room that speaks the earlier global protocol (no `watch`: every socket
 * hears every change) is measured with the same pages: latencies are taken at the same watchers.
 */
import { fork, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  BenchState,
  cpuSecondsOf,
  percentile,
  residentMbOf,
  ROOT,
  startWorker,
} from "../lib/worker";
import { presenceConfig } from "../../app/realtime/presence-shards";
import { buildRef } from "../lib/ref";
import type { Command, Event, Protocol, Report } from "./client";
import { sleep } from "../../scripts/lib/wait";
import { commandLine } from "../lib/args";

interface Options {
  sizes: number[];
  churn?: number;
  watchRate?: number;
  watchSize: number;
  seconds: number;
  clients?: number;
  compareRef?: string;
  rounds: number;
  shards?: number;
  stateDir: string;
  json?: string;
}

function parseArgs(argv: string[]): Options {
  const { value, number } = commandLine(argv);
  const num = (name: string) => number(name, undefined, { zero: true });
  return {
    sizes: (value("sockets") ?? "1000").split(",").map(Number),
    churn: num("churn"),
    watchRate: num("watch-rate"),
    watchSize: num("watch-size") ?? 50,
    seconds: num("seconds") ?? 60,
    clients: num("clients"),
    compareRef: value("compare-ref"),
    rounds: num("rounds") ?? 1,
    shards: num("shards"),
    stateDir: value("state-dir") ?? "/dev/shm/heartline-bench/presence",
    json: value("json"),
  };
}

const SESSION_COOKIE = "heartline_session";
const PAGE_SIZE = 40;
const CONTACTS = 10;
const log = (message: string) => console.log(`[bench] ${message}`);
const now = () => performance.timeOrigin + performance.now();

/** A small seeded generator, so that every design sees the same pages. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Member {
  i: number;
  id: string;
  cookie: string;
  client: number;
  contacts: string[];
  online: boolean;
  ready: boolean;
  /** A watch change sent and not answered yet. */
  pending: boolean;
  watch: Set<string>;
  watchSentAt: number;
  restUntil: number;
}

/** Members with verified emails and long sessions, written straight into D1. */
async function seed(state: BenchState, count: number, random: () => number): Promise<Member[]> {
  const stamp = new Date().toISOString();
  const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const members: Member[] = [];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `bench${i.toString(36).padStart(4, "0")}${randomBytes(6).toString("hex")}`;
    const token = randomBytes(32).toString("base64url");
    const hash = createHash("sha256").update(token).digest("hex");
    lines.push(
      `INSERT INTO users (id, username, email, password_hash, email_verified_at) VALUES ('${id}', 'bench_${i}', 'bench${i}@bench.test', 'unused', '${stamp}');`,
      `INSERT INTO sessions (id_hash, user_id, remember, created_at, last_active_at, expires_at, password_confirmed_at) VALUES ('${hash}', '${id}', 1, '${stamp}', '${stamp}', '${expires}', '${stamp}');`,
    );
    members.push({
      i,
      id,
      cookie: `${SESSION_COOKIE}=${token}`,
      client: 0,
      contacts: [],
      online: false,
      ready: false,
      pending: false,
      watch: new Set(),
      watchSentAt: 0,
      restUntil: 0,
    });
  }
  for (const m of members) {
    for (let k = 0; k < CONTACTS; k++) {
      const other = members[Math.floor(random() * count)]!;
      if (other !== m) m.contacts.push(other.id);
    }
  }
  await state.executeSql("seed.sql", lines);
  return members;
}

/** Pages of PAGE_SIZE members from one shuffled list, drawn with a Zipf law (exponent 1). */
function pages(members: Member[], random: () => number) {
  const order = members.map((m) => m.id);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const count = Math.floor(order.length / PAGE_SIZE);
  const cdf: number[] = [];
  let sum = 0;
  for (let p = 1; p <= count; p++) cdf.push((sum += 1 / p));
  return (): string[] => {
    const x = random() * sum;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return order.slice(lo * PAGE_SIZE, lo * PAGE_SIZE + PAGE_SIZE);
  };
}

interface Join {
  member: Member;
  t0: number | null;
  expected: Set<number>;
  heard: number[];
}

interface Design {
  label: string;
  root: string;
  protocol: Protocol;
}

/** Builds git `ref` into a directory on tmpfs (once per commit) and says which protocol it speaks. */
async function buildDesign(ref: string, base: string): Promise<Design> {
  const { root: dir } = await buildRef(ref, base, log);
  const frames = await readFile(path.join(dir, "app", "realtime", "presence.ts"), "utf8");
  const scoped = frames.includes('z.literal("watch")');
  return {
    label: `${ref} (${scoped ? "scoped" : "global"})`,
    root: dir,
    protocol: scoped ? "scoped" : "global",
  };
}

async function runOnce(options: Options, design: Design, sockets: number) {
  const churn = options.churn ?? Math.max(1, Math.round(sockets / 100));
  const watchRate = options.watchRate ?? Math.max(1, Math.round(sockets / 200));
  const clientCount = options.clients ?? Math.max(1, Math.ceil(sockets / 2500));
  const stateDir = path.join(options.stateDir, `run-${sockets}`);
  const state = new BenchState("presence", { dir: stateDir, root: design.root });
  const random = rng(sockets);
  const spare = Math.ceil(churn * 25) + 50;
  const total = sockets + spare + Math.ceil(sockets / 3);
  log(
    `${design.label}: ${sockets} sockets (${clientCount} client processes), churn ${churn} + ${churn}/s, ` +
      `${watchRate} watch changes/s, ${options.watchSize} watched each, ${options.seconds} s`,
  );

  await state.reset();
  const members = await seed(state, total, random);
  const nextPage = pages(members, random);
  const config = await state.prepareWorker();
  const vars = config.vars ?? {};
  // The grace the shards will use (configured, or app/lib/online.ts's).
  const { graceMs } = presenceConfig(vars);
  const workerVars: Record<string, string> = { APP_ENV: "development" };
  for (const [k, v] of Object.entries(vars)) {
    if (k.startsWith("PRESENCE_")) workerVars[k] = String(v);
  }
  if (options.shards !== undefined) workerVars.PRESENCE_SHARDS = String(options.shards);
  const worker = await startWorker(state, { vars: workerVars });
  const wsUrl = `${worker.url.replace(/^http/, "ws")}/ws/presence`;

  const clients: ChildProcess[] = [];
  const clientStats: { cpuSeconds: number }[] = [];
  const joins = new Map<string, Join>();
  const done: Join[] = [];
  const watchLatencies: number[] = [];
  const drops: string[] = [];
  const failures: string[] = [];
  let frames = 0;
  let measuring = false;
  /** Current watchers (ready, not changing their set) of each member, by member index. */
  const watchers = new Map<string, Set<number>>();

  const setWatch = (m: Member, ids: Iterable<string>) => {
    for (const id of m.watch) watchers.get(id)?.delete(m.i);
    m.watch = new Set(ids);
    m.watch.delete(m.id);
  };
  const listen = (m: Member) => {
    for (const id of m.watch) {
      let set = watchers.get(id);
      if (!set) watchers.set(id, (set = new Set()));
      set.add(m.i);
    }
  };
  const unlisten = (m: Member) => {
    for (const id of m.watch) watchers.get(id)?.delete(m.i);
  };
  const heardBy = (join: Join, i: number, at: number) => {
    if (!join.expected.delete(i)) return;
    join.heard.push(at);
    if (join.expected.size === 0) {
      joins.delete(join.member.id);
      done.push(join);
    }
  };
  const stopExpecting = (i: number, unless?: Set<string>) => {
    for (const join of [...joins.values()]) {
      if (unless?.has(join.member.id)) continue;
      if (join.expected.delete(i) && join.expected.size === 0) {
        joins.delete(join.member.id);
        done.push(join);
      }
    }
  };

  const onEvent = (e: Event) => {
    const m = members[e[1]]!;
    switch (e[0]) {
      case "open": {
        const join = joins.get(m.id);
        if (join && join.t0 === null) join.t0 = e[2];
        break;
      }
      case "ready":
        m.ready = true;
        listen(m);
        break;
      case "here": {
        m.pending = false;
        if (measuring) watchLatencies.push(e[2] - m.watchSentAt);
        for (const id of e[3]) {
          const join = joins.get(id);
          if (join) heardBy(join, m.i, e[2]);
        }
        listen(m);
        break;
      }
      case "j": {
        const join = joins.get(e[2]);
        if (join) heardBy(join, m.i, e[3]);
        break;
      }
      case "drop":
        drops.push(e[2]);
        if (m.online) close(m);
        break;
      case "fail":
        failures.push(e[2]);
        break;
    }
  };

  const send = (m: Member, command: Command) => clients[m.client]!.send(command);
  /**
   * A random member that `fits` (tries at random first: the bench's own process shares the
   * machine's two cores with workerd, so it does not scan every member on every tick).
   */
  const pick = (fits: (m: Member) => boolean): Member | undefined => {
    for (let k = 0; k < 64; k++) {
      const m = members[Math.floor(Math.random() * members.length)]!;
      if (fits(m)) return m;
    }
    const all = members.filter(fits);
    return all[Math.floor(Math.random() * all.length)];
  };
  const open = (m: Member) => {
    m.online = true;
    m.ready = false;
    m.pending = false;
    setWatch(m, [...nextPage().slice(0, options.watchSize - CONTACTS), ...m.contacts]);
    send(m, { t: "open", i: m.i, id: m.id, cookie: m.cookie, watch: [...m.watch] });
  };
  const close = (m: Member) => {
    unlisten(m);
    m.online = false;
    m.ready = false;
    // Not back before their leave went out (a return within the grace period is no join),
    // with room for alarms that run late on a busy machine.
    m.restUntil = Date.now() + graceMs + 10_000;
    stopExpecting(m.i);
    send(m, { t: "close", i: m.i });
  };

  try {
    for (let c = 0; c < clientCount; c++) {
      const child = fork(fileURLToPath(new URL("./client.ts", import.meta.url)), [], {
        execArgv: ["--experimental-websocket", "--no-warnings", "--import", "tsx"],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      child.on("message", (r: Report) => {
        if (r.t === "events") {
          if (measuring) frames += r.frames;
          for (const e of r.events) onEvent(e);
        } else clientStats.push({ cpuSeconds: r.cpuSeconds });
      });
      child.send({ t: "init", url: wsUrl, protocol: design.protocol } satisfies Command);
      clients.push(child);
    }
    members.forEach((m, i) => (m.client = i % clientCount));

    const connectStarted = performance.now();
    const connectCpuBefore = cpuSecondsOf("workerd");
    const pool = members.slice(0, sockets);
    let next = 0;
    while (pool.some((m) => !m.ready)) {
      const inFlight = pool.filter((m) => m.online && !m.ready).length;
      for (let k = inFlight; k < 64 && next < pool.length; k++) open(pool[next++]!);
      await sleep(20);
      if (performance.now() - connectStarted > 15 * 60_000) throw new Error("connect timeout");
    }
    const connectCpu = cpuSecondsOf("workerd") - connectCpuBefore;
    log(
      `${sockets} sockets connected and watching in ${((performance.now() - connectStarted) / 1000).toFixed(1)} s, ` +
        `${((connectCpu * 1000) / sockets).toFixed(2)} ms of workerd CPU each`,
    );
    // Settled: registrations, relays and alarms of the ramp done (a quiet second), at most 2 min.
    const settleStarted = performance.now();
    for (let quiet = 0; quiet < 1 && performance.now() - settleStarted < 120_000;) {
      const before = cpuSecondsOf("workerd");
      await sleep(1000);
      quiet = cpuSecondsOf("workerd") - before < 0.05 ? quiet + 1 : 0;
    }
    log(`settled in ${((performance.now() - settleStarted) / 1000).toFixed(1)} s`);

    const loadBefore = loadavg()[0]!;
    const cpuBefore = cpuSecondsOf("workerd");
    for (const c of clients) c.send({ t: "measure", on: true } satisfies Command);
    measuring = true;
    const started = performance.now();
    const churnMs = 1000 / churn;
    const watchMs = 1000 / watchRate;
    let churnTicks = 0;
    let watchTicks = 0;
    let starved = 0;
    while (performance.now() - started < options.seconds * 1000) {
      const nextChurn = started + churnTicks * churnMs;
      const nextWatch = started + watchTicks * watchMs;
      const due = Math.min(nextChurn, nextWatch);
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (nextChurn <= nextWatch) {
        churnTicks += 1;
        const leaving = pick((m) => m.online && m.ready && !m.pending);
        if (leaving) close(leaving);
        const at = Date.now();
        const joining = pick((m) => !m.online && m.restUntil <= at);
        if (!joining) {
          starved += 1;
          continue;
        }
        const expected = new Set(watchers.get(joining.id) ?? []);
        joins.set(joining.id, { member: joining, t0: null, expected, heard: [] });
        if (expected.size === 0) {
          joins.delete(joining.id);
        }
        open(joining);
      } else {
        watchTicks += 1;
        const page = pick((m) => m.online && m.ready && !m.pending);
        if (!page) continue;
        unlisten(page);
        const ids = [...nextPage().slice(0, options.watchSize - CONTACTS), ...page.contacts];
        setWatch(page, ids);
        // A watcher that stops watching a member before hearing them is not owed that join.
        stopExpecting(page.i, page.watch);
        page.pending = true;
        page.watchSentAt = now();
        send(page, { t: "watch", i: page.i, ids: [...page.watch] });
      }
    }
    const elapsed = (performance.now() - started) / 1000;
    for (const c of clients) c.send({ t: "measure", on: false } satisfies Command);
    await sleep(150);
    measuring = false;
    const cpuSeconds = cpuSecondsOf("workerd") - cpuBefore;
    const loadAfter = loadavg()[0]!;
    const rss = residentMbOf("workerd");

    const settleUntil = Date.now() + 15_000;
    while (Date.now() < settleUntil && joins.size > 0) await sleep(200);
    let missed = 0;
    for (const join of joins.values()) {
      missed += join.expected.size;
      done.push(join);
    }
    for (const c of clients) c.send({ t: "stats" } satisfies Command);
    const statsUntil = Date.now() + 5000;
    while (clientStats.length < clients.length && Date.now() < statsUntil) await sleep(50);

    const latencies: number[] = [];
    const completions: number[] = [];
    for (const join of done) {
      if (join.t0 === null || join.heard.length === 0) continue;
      for (const at of join.heard) latencies.push(at - join.t0);
      completions.push(Math.max(...join.heard) - join.t0);
    }
    latencies.sort((a, b) => a - b);
    completions.sort((a, b) => a - b);
    watchLatencies.sort((a, b) => a - b);
    const clientCpu = clientStats.reduce((n, s) => n + s.cpuSeconds, 0);
    const fixed = (n: number, d = 1) => Number(n.toFixed(d));
    const result = {
      design: design.label,
      sockets,
      churn_per_s: churn,
      watch_changes_per_s: watchRate,
      watch_size: options.watchSize,
      seconds: fixed(elapsed),
      client_processes: clientCount,
      joins: churnTicks - starved,
      join_to_joining_ms: {
        p50: fixed(percentile(latencies, 50)),
        p99: fixed(percentile(latencies, 99)),
        samples: latencies.length,
      },
      heard_by_all_p99_ms: fixed(percentile(completions, 99)),
      watch_to_here_ms: {
        p50: fixed(percentile(watchLatencies, 50)),
        p99: fixed(percentile(watchLatencies, 99)),
        samples: watchLatencies.length,
      },
      joins_never_heard: missed,
      frames_per_s: Math.round(frames / elapsed),
      workerd_cpu: fixed(cpuSeconds / elapsed, 2),
      workerd_cpu_ms_per_1000_frames: fixed((cpuSeconds * 1e6) / Math.max(1, frames)),
      workerd_cpu_ms_per_connect: fixed((connectCpu * 1000) / sockets, 2),
      workerd_rss_mb: Math.round(rss),
      client_cpu_seconds_total: fixed(clientCpu),
      load_average: [fixed(loadBefore), fixed(loadAfter)],
      cores: cpus().length,
      dropped_sockets: drops.length,
      failures: failures.length + starved,
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    for (const c of clients) c.send({ t: "exit" } satisfies Command);
    await sleep(400);
    for (const c of clients) c.kill();
    await worker.dispose();
    await rm(stateDir, { recursive: true, force: true });
  }
}

type Result = Awaited<ReturnType<typeof runOnce>>;

function table(results: Result[]): string {
  const rows = [
    "| design | sockets | joins + leaves /s | watch changes /s | join → joining p50 / p99 | heard by all p99 | watch → here p50 / p99 | joins never heard | frames/s | workerd CPU | CPU per 1,000 frames | CPU per socket opened (ramp) | workerd memory | load avg |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const r of results) {
    rows.push(
      `| ${r.design} | ${r.sockets.toLocaleString("en")} | ${r.churn_per_s} + ${r.churn_per_s} | ${r.watch_changes_per_s} | ` +
        `${r.join_to_joining_ms.p50} / ${r.join_to_joining_ms.p99} ms | ${r.heard_by_all_p99_ms} ms | ` +
        `${r.watch_to_here_ms.p50} / ${r.watch_to_here_ms.p99} ms | ${r.joins_never_heard} | ` +
        `${r.frames_per_s.toLocaleString("en")} | ${r.workerd_cpu} core | ${r.workerd_cpu_ms_per_1000_frames} ms | ` +
        `${r.workerd_cpu_ms_per_connect} ms | ` +
        `${r.workerd_rss_mb} MB | ${r.load_average[0]} → ${r.load_average[1]} |`,
    );
  }
  return rows.join("\n");
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  await mkdir(options.stateDir, { recursive: true });
  const results: Result[] = [];
  const here: Design = { label: "this tree (scoped)", root: ROOT, protocol: "scoped" };
  if (options.compareRef) {
    const other = await buildDesign(options.compareRef, options.stateDir);
    for (let round = 1; round <= options.rounds; round++) {
      results.push(await runOnce(options, other, options.sizes[0]!));
      if (round < options.rounds) results.push(await runOnce(options, here, options.sizes[0]!));
    }
  }
  for (const size of options.sizes) results.push(await runOnce(options, here, size));
  console.log("");
  console.log(table(results));
  if (options.json) await writeFile(options.json, `${JSON.stringify(results, null, 2)}\n`);
}

await main();
