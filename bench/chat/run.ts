/**
 * bench/chat: send → receive latency of chat messages over real websockets, against the Worker
 * under `wrangler dev`'s runtime, beside a bare websocket relay on the same machine in the same
 * run (the floor), as README.md "Performance" reports it.
 *
 *   npm run build && npx tsx bench/chat/run.ts [options]
 *
 *   --pairs N      conversations, each between two members with a socket each (default 20)
 *   --rate N       messages per second over all pairs (default 200)
 *   --seconds N    how long the rate is measured (default 20), after --warmup N seconds (default 3)
 *   --via socket   how a message is sent: over the sender's own socket (`{type: "send"}`, as the chat
 *                  page does while its socket is open; the default) or `--via http`
 *                  (`POST /chat/conversations/{id}/messages`, the API and the page's fallback)
 *   --rounds N     the measured time is split into N rounds per target, Heartline and the relay
 *                  taking turns, so that other work on the machine weighs on both alike (default 2)
 *   --json FILE    also write the figures as JSON
 *   --via-dev-proxy  send through wrangler dev's reload proxy, not straight to the Worker
 *
 * How it runs: fresh local state in bench/.state/chat/ (gitignored), with a snapshot of the
 * sources and the build (so that work in the tree cannot reload the Worker mid-run); the D1
 * migrations; members with verified emails, profiles and sessions written straight into D1 (no
 * password hashing); the Worker started in workerd as `wrangler dev` runs it (bench/lib/worker.ts),
 * inspector OFF (DESIGN.md: wrangler's inspector adds tens of milliseconds to Durable Object
 * calls), no file watching, on 127.0.0.1, reached straight (not through the dev proxy), with the
 * per-member send limit raised for the run. Each pair starts its conversation through
 * the API (`POST /chat/conversations` with a first message, and a reply), then both members open
 * `/ws/chat/{id}`. The load is open-loop: message k is due at k / rate seconds, whatever the
 * answers; pairs take turns and within a pair the members alternate. Each message carries a client
 * id and goes over the sender's socket (or by POST with --via http); its latency runs from just
 * before it is sent until the other member's socket has the frame. The same load, the same client
 * code, also goes through the relay (bench/chat/relay.ts, its own Node process), in turns with
 * Heartline.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { WebSocket } from "undici";
import {
  BENCH_APP_KEY,
  BenchState,
  cpuSecondsOf,
  percentile,
  ROOT,
  startWorker,
} from "../lib/worker";

interface Options {
  pairs: number;
  rate: number;
  seconds: number;
  warmup: number;
  rounds: number;
  via: "socket" | "http";
  viaDevProxy: boolean;
  json?: string;
}

function parseArgs(argv: string[]): Options {
  const value = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const num = (name: string, fallback: number) => {
    const v = value(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
    return n;
  };
  return {
    pairs: Math.round(num("pairs", 20)),
    rate: num("rate", 200),
    seconds: num("seconds", 20),
    warmup: num("warmup", 3),
    rounds: Math.round(num("rounds", 2)),
    via: value("via") === "http" ? "http" : "socket",
    viaDevProxy: argv.includes("--via-dev-proxy"),
    json: value("json"),
  };
}

const state = new BenchState("chat");
const TSX_BIN = path.join(ROOT, "node_modules", ".bin", "tsx");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => console.log(`[bench] ${message}`);

interface Member {
  id: string;
  cookie: string;
  csrf: string;
}

interface Pair {
  members: [Member, Member];
  conversationId: string;
}

/** Verified members with a profile, a long session and a CSRF secret, written into D1. */
async function seedMembers(count: number): Promise<Member[]> {
  const now = new Date().toISOString();
  const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const members: Member[] = [];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `chatbench${i.toString(36).padStart(4, "0")}${randomBytes(5).toString("hex")}`;
    const token = randomBytes(32).toString("base64url");
    const hash = createHash("sha256").update(token).digest("hex");
    const secret = randomBytes(32).toString("base64url");
    lines.push(
      `INSERT INTO users (id, username, email, password_hash, email_verified_at) VALUES ('${id}', 'chat_bench_${i}', 'chat-bench${i}@bench.test', 'unused', '${now}');`,
      `INSERT INTO profiles (user_id, date_of_birth) VALUES ('${id}', '1990-01-01');`,
      `INSERT INTO sessions (id_hash, user_id, remember, created_at, last_active_at, expires_at) VALUES ('${hash}', '${id}', 1, '${now}', '${now}', '${expires}');`,
    );
    members.push({
      id,
      cookie: `heartline_session=${token}; heartline_csrf=${secret}`,
      csrf: createHmac("sha256", BENCH_APP_KEY).update(`csrf:${secret}`).digest("base64url"),
    });
  }
  await state.executeSql("seed.sql", lines);
  return members;
}

/** Where the load goes: Heartline's chat, or the bare relay. */
interface Target {
  name: string;
  /** The server's process name, for its CPU time. */
  process: string;
  socketUrl(pair: Pair, member: Member): string;
  socketHeaders(member: Member, pair: Pair): Record<string, string>;
  send(pair: Pair, from: Member, text: string, clientId: string): Promise<Response>;
}

interface Segment {
  latencies: number[];
  acks: number[];
  sent: number;
  lost: number;
  errors: number;
  errorKinds: Record<string, number>;
  /** Sockets that closed before the segment ended. */
  dropped: number;
  seconds: number;
  /** CPU seconds the server used while the measured messages were sent and delivered. */
  cpu: number;
}

interface Outcome {
  sent: number;
  received: number;
  lost: number;
  errors: number;
  errorKinds: Record<string, number>;
  dropped: number;
  seconds: number;
  /** Server CPU per message (ms) and as a share of one core. */
  cpuMsPerMessage: number;
  cpuShare: number;
  latency: { p50: number; p95: number; p99: number; max: number; mean: number };
  ack: { p50: number; p99: number };
  sendRate: number;
  receiveRate: number;
}

const round = (n: number) => Number(n.toFixed(2));

function summarise(segments: Segment[]): Outcome {
  const sorted = segments.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const acks = segments.flatMap((s) => s.acks).sort((a, b) => a - b);
  const sent = segments.reduce((n, s) => n + s.sent, 0);
  const seconds = segments.reduce((n, s) => n + s.seconds, 0);
  return {
    sent,
    received: sorted.length,
    lost: segments.reduce((n, s) => n + s.lost, 0),
    errors: segments.reduce((n, s) => n + s.errors, 0),
    errorKinds: segments.reduce<Record<string, number>>((all, s) => {
      for (const [k, v] of Object.entries(s.errorKinds)) all[k] = (all[k] ?? 0) + v;
      return all;
    }, {}),
    dropped: segments.reduce((n, s) => n + s.dropped, 0),
    seconds: round(seconds),
    cpuMsPerMessage: round((segments.reduce((n, s) => n + s.cpu, 0) * 1000) / Math.max(1, sent)),
    cpuShare: round(segments.reduce((n, s) => n + s.cpu, 0) / seconds),
    latency: {
      p50: round(percentile(sorted, 50)),
      p95: round(percentile(sorted, 95)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted.at(-1) ?? NaN),
      mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
    },
    ack: { p50: round(percentile(acks, 50)), p99: round(percentile(acks, 99)) },
    sendRate: round(sent / seconds),
    receiveRate: round(sorted.length / seconds),
  };
}

/**
 * Opens both members' sockets for every pair, drives `seconds` of load (after `warmup` seconds
 * that are not counted) and returns what was measured.
 */
async function drive(
  target: Target,
  pairs: Pair[],
  rate: number,
  warmup: number,
  seconds: number,
  via: "socket" | "http",
): Promise<Segment> {
  const pending = new Map<
    string,
    { t0: number; from: string; to: string; measured: boolean; acked: boolean; received: boolean }
  >();
  const latencies: number[] = [];
  const acks: number[] = [];
  let errors = 0;
  const errorKinds = new Map<string, number>();
  const fail = (kind: string) => {
    errors += 1;
    errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
  };
  let dropped = 0;
  let finished = false;
  const sockets: WebSocket[] = [];
  const socketOf = new Map<string, WebSocket>();

  await Promise.all(
    pairs.flatMap((pair) =>
      pair.members.map(
        (member) =>
          new Promise<void>((resolve, reject) => {
            const ws = new WebSocket(target.socketUrl(pair, member), {
              headers: target.socketHeaders(member, pair),
            });
            sockets.push(ws);
            socketOf.set(member.id, ws);
            ws.addEventListener("open", () => resolve());
            ws.addEventListener("error", () => reject(new Error(`${target.name}: socket failed`)));
            ws.addEventListener("close", () => {
              if (!finished) dropped += 1;
            });
            ws.addEventListener("message", (event) => {
              const now = performance.now();
              const frame = JSON.parse(String(event.data)) as {
                type: string;
                client_id?: string;
                status?: number;
                message?: { client_id: string | null };
              };
              if (frame.type === "send_error") fail(`send_error ${frame.status ?? ""}`.trim());
              const clientId = frame.type === "message" ? frame.message?.client_id : null;
              const entry = clientId ? pending.get(clientId) : undefined;
              if (!entry) return;
              if (entry.to === member.id && !entry.received) {
                entry.received = true;
                if (entry.measured) latencies.push(now - entry.t0);
              }
              // Over the socket, the sender's own copy is the acknowledgement.
              if (via === "socket" && entry.from === member.id && !entry.acked) {
                entry.acked = true;
                if (entry.measured) acks.push(now - entry.t0);
              }
              if (entry.received && (entry.acked || via === "http")) pending.delete(clientId!);
            });
          }),
      ),
    ),
  );
  await sleep(500);

  const warmupCount = Math.round(rate * warmup);
  const total = warmupCount + Math.round(rate * seconds);
  const interval = 1000 / rate;
  const run = randomBytes(3).toString("hex");
  const started = performance.now();
  let measuredFrom = started;
  let cpuFrom = cpuSecondsOf(target.process);
  const inFlight: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const due = started + n * interval;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    if (n === warmupCount) {
      measuredFrom = performance.now();
      cpuFrom = cpuSecondsOf(target.process);
    }
    const pair = pairs[n % pairs.length]!;
    const from = pair.members[Math.floor(n / pairs.length) % 2]!;
    const to = pair.members[0] === from ? pair.members[1] : pair.members[0];
    const clientId = `${run}-${n}`;
    const t0 = performance.now();
    pending.set(clientId, {
      t0,
      from: from.id,
      to: to.id,
      measured: n >= warmupCount,
      acked: false,
      received: false,
    });
    const text = `bench message ${n}`;
    if (via === "socket") {
      socketOf
        .get(from.id)!
        .send(JSON.stringify({ type: "send", client_id: clientId, message: text }));
      continue;
    }
    inFlight.push(
      target
        .send(pair, from, text, clientId)
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.status !== 201) fail(`HTTP ${res.status}`);
          else if (n >= warmupCount) acks.push(performance.now() - t0);
        })
        .catch((error: unknown) => {
          fail(error instanceof Error ? error.name : "fetch failed");
        }),
    );
  }
  const sendSeconds = (performance.now() - measuredFrom) / 1000;
  await Promise.all(inFlight);
  const deadline = Date.now() + 10_000;
  const undelivered = () => [...pending.values()].filter((p) => p.measured && !p.received);
  while (Date.now() < deadline && undelivered().length > 0) await sleep(50);
  const lost = undelivered().length;
  const cpu = cpuSecondsOf(target.process) - cpuFrom;
  finished = true;
  for (const ws of sockets) ws.close(1000, "bench done");

  return {
    latencies,
    acks,
    sent: total - warmupCount,
    lost,
    errors,
    errorKinds: Object.fromEntries(errorKinds),
    dropped,
    seconds: sendSeconds,
    cpu,
  };
}

async function api(base: string, member: Member, method: string, pathname: string, body: unknown) {
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: {
      Cookie: member.cookie,
      "X-CSRF-Token": member.csrf,
      Accept: "application/json",
      "Content-Type": "application/json",
      Origin: base,
    },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300)
    throw new Error(`${method} ${pathname}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function startRelay(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(TSX_BIN, [path.join(ROOT, "bench", "chat", "relay.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) =>
      resolve({ child, port: (JSON.parse(line) as { port: number }).port }),
    );
    child.once("exit", (code) => reject(new Error(`the relay exited (${code})`)));
  });
}

function print(name: string, o: Outcome) {
  console.log(
    `${name.padEnd(16)} p50 ${o.latency.p50.toFixed(1).padStart(6)} ms   p95 ${o.latency.p95
      .toFixed(1)
      .padStart(6)} ms   p99 ${o.latency.p99.toFixed(1).padStart(6)} ms   max ${o.latency.max
      .toFixed(1)
      .padStart(
        6,
      )} ms   ${o.receiveRate.toFixed(0)} msg/s received of ${o.sendRate.toFixed(0)} sent` +
      `\n${"".padEnd(16)} server CPU ${o.cpuMsPerMessage.toFixed(2)} ms/message (${(o.cpuShare * 100).toFixed(0)}% of a core)` +
      `   ack p50 ${o.ack.p50.toFixed(1)} ms   lost ${o.lost}   errors ${o.errors}` +
      `${o.errors ? ` ${JSON.stringify(o.errorKinds)}` : ""}   sockets dropped ${o.dropped}`,
  );
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  log(
    `${options.pairs} pairs (${options.pairs * 2} sockets), ${options.rate} msg/s, ` +
      `${options.seconds} s measured after ${options.warmup} s warm-up`,
  );
  await state.reset();
  const members = await seedMembers(options.pairs * 2);
  // The per-member send limit is raised for the run.
  await state.prepareWorker((config) => {
    const limits = config.vars?.RATE_LIMITS as Record<string, string> | undefined;
    if (limits) limits.chat_send_account = "100000000/60";
  });
  const worker = await startWorker(state, {
    vars: { APP_ENV: "development" },
    viaDevProxy: options.viaDevProxy,
  });

  let relay: ChildProcess | null = null;
  try {
    const base = worker.url;
    log(`Worker on ${base}, ${worker.route} (inspector off, local D1 and Durable Objects)`);

    const pairs: Pair[] = [];
    for (let i = 0; i < options.pairs; i++) {
      const a = members[2 * i]!;
      const b = members[2 * i + 1]!;
      const started = await api(base, a, "POST", "/chat/conversations", {
        user_id: b.id,
        message: "hello",
      });
      const conversationId = (started.conversation as { id: string }).id;
      await api(base, b, "POST", `/chat/conversations/${conversationId}/messages`, {
        message: "hi!",
      });
      pairs.push({ members: [a, b], conversationId });
    }
    log(`${pairs.length} conversations started through the API`);

    const heartline: Target = {
      name: "heartline",
      process: "workerd",
      socketUrl: (pair) => `${base.replace(/^http/, "ws")}/ws/chat/${pair.conversationId}`,
      socketHeaders: (member) => ({ Cookie: member.cookie, Origin: base }),
      send: (pair, from, text, clientId) =>
        fetch(`${base}/chat/conversations/${pair.conversationId}/messages`, {
          method: "POST",
          headers: {
            Cookie: from.cookie,
            "X-CSRF-Token": from.csrf,
            Accept: "application/json",
            "Content-Type": "application/json",
          },
          body: JSON.stringify({ message: text, client_id: clientId }),
        }),
    };
    const started = await startRelay();
    relay = started.child;
    const relayBase = `http://127.0.0.1:${started.port}`;
    const bare: Target = {
      name: "bare relay",
      process: "node",
      socketUrl: (pair, member) =>
        `ws://127.0.0.1:${started.port}/ws/${pair.conversationId}?member=${member.id}`,
      socketHeaders: () => ({}),
      send: (pair, from, text, clientId) =>
        fetch(`${relayBase}/send/${pair.conversationId}`, {
          method: "POST",
          headers: { Accept: "application/json", "Content-Type": "application/json" },
          body: JSON.stringify({ message: text, client_id: clientId, sender_id: from.id }),
        }),
    };

    const loadBefore = loadavg()[0]!;
    const segments = { heartline: [] as Segment[], relay: [] as Segment[] };
    const perRound = options.seconds / options.rounds;
    for (let r = 1; r <= options.rounds; r++) {
      log(`round ${r}/${options.rounds}: Heartline, then the relay (${perRound} s each)`);
      segments.heartline.push(
        await drive(heartline, pairs, options.rate, options.warmup, perRound, options.via),
      );
      segments.relay.push(
        await drive(bare, pairs, options.rate, options.warmup, perRound, options.via),
      );
    }
    const loadAfter = loadavg()[0]!;
    const ours = summarise(segments.heartline);
    const floor = summarise(segments.relay);

    const ratio = (a: number, b: number) => round(a / b);
    const result = {
      pairs: options.pairs,
      sockets: options.pairs * 2,
      target_rate: options.rate,
      seconds: options.seconds,
      rounds: options.rounds,
      via: options.via,
      runtime: `workerd (wrangler 4.86), inspector off, local D1/DO, 127.0.0.1, ${worker.route}`,
      cores: cpus().length,
      load_average: [round(loadBefore), round(loadAfter)],
      heartline: ours,
      relay: floor,
      ratio: {
        p50: ratio(ours.latency.p50, floor.latency.p50),
        p95: ratio(ours.latency.p95, floor.latency.p95),
        p99: ratio(ours.latency.p99, floor.latency.p99),
      },
    };
    console.log("");
    console.log(
      `send → receive (sent ${options.via === "socket" ? "over the socket" : "by HTTP POST"}), ` +
        `${options.pairs} pairs, ${options.rate} msg/s target, ${options.seconds} s ` +
        `(Worker in workerd, inspector OFF, ${worker.route}; ${cpus().length} cores)`,
    );
    print("heartline", ours);
    print("bare relay", floor);
    console.log(
      `ratio heartline / relay: p50 ×${result.ratio.p50}   p95 ×${result.ratio.p95}   p99 ×${result.ratio.p99}`,
    );
    console.log(
      `target p99 < 100 ms at ${options.rate} msg/s: ${ours.latency.p99 < 100 && ours.lost === 0 ? "met" : "NOT met"}`,
    );
    console.log(JSON.stringify(result));
    if (options.json) await writeFile(options.json, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    relay?.kill("SIGTERM");
    await worker.dispose();
  }
}

await main();
