/**
 * bench/chat: send → receive latency of chat messages over real websockets, for three servers
 * under the same load in the same run, taking turns, as README.md "Performance" reports it:
 *
 * - the bare relay (bench/chat/relay.ts: plain Node, no storage): the floor;
 * - the minimal Durable Object room (bench/chat/room/: stamps a seq, stores the message in its
 *   own SQLite storage, broadcasts), in workerd as the Worker runs: the in-platform floor;
 * - Heartline's chat, over the sender's socket and over HTTP.
 *
 *   npm run build && npx tsx bench/chat/run.ts [options]
 *
 *   --pairs N      conversations at the fixed rate, each between two members with a socket each
 *                  (default 20)
 *   --rate N       messages per second over all pairs at the fixed rate (default 200)
 *   --seconds N    how long each target is measured at the fixed rate (default 20), split into
 *                  --rounds N rounds (default 2), each after --warmup N seconds (default 3)
 *   --via LIST     how a message is sent, one or both of `socket` (`{type: "send"}` over the
 *                  sender's own socket, as the chat page does while its socket is open) and `http`
 *                  (`POST /chat/conversations/{id}/messages`, the API and the page's fallback);
 *                  every server is measured over each (default socket,http)
 *   --ramp LIST    then the rates of the ramp, in msg/s (default 200,500,1000,1500,2000,3000,4000;
 *                  `none` skips it): at each rate every target still under the limit runs once
 *   --ramp-pairs N   conversations during the ramp (default 100)
 *   --ramp-seconds N measured seconds per target and rate (default 6, after 2 s of warm-up)
 *   --limit MS     the p99 a target must stay under to hold a rate (default 50); a target that
 *                  passes it, loses a message or falls 2 s behind (its sending then stops) leaves
 *                  the ramp (one that missed without falling behind gets a second turn first)
 *   --gifts N      then N gift messages per Heartline send path, at 20 a second, for the D1
 *                  statements of a gift (default 100; 0 skips them)
 *   --receipts     also measure `heartline+receipts` (this tree, socket path): the same messages,
 *                  and the recipient's page acknowledges each one it receives (`received`: the
 *                  first at once, then at most one frame a second per socket, as the chat page
 *                  does: app/realtime/received-batch.ts) and reacts to every
 *                  tenth (`{type: "react"}` on its socket, as the chat page does while the socket
 *                  is open; the answer is not awaited by the measure)
 *   --reaction-every N  with --receipts, react to one message in N (default 10; 0: none)
 *   --json FILE    also write the figures as JSON
 *   --compare-ref REF  also run Heartline as built from git REF (e.g. `main`; bench/lib/ref.ts) as
 *                  one more target beside this tree's, with the same members and load, taking
 *                  turns with the others (named `ref:REF socket`, `ref:REF http`)
 *   --profile FILE a V8 CPU profile of Heartline's isolate during its first turn over the first
 *                  path of --via (`--via http --profile F` profiles the HTTP path), through
 *                  workerd's inspector (bench/chat/profile.ts), written to FILE with a summary;
 *                  `--profile-target NAME` profiles another target's first turn instead (e.g.
 *                  "heartline+receipts socket"); the inspector slows the Worker: latencies of such a run are not figures
 *   --via-dev-proxy  send to Heartline through wrangler dev's reload proxy, not straight
 *   --trace FILE   write every measured delivery of the fixed rate to FILE as JSON, per target and
 *                  turn: `{from, deliveries}`, `from` when the turn's measuring began (ms since the
 *                  Unix epoch), each delivery [ms since then when sent, pair, latency ms]
 *
 * How it runs: fresh local state under benchStateRoot() (bench/lib/worker.ts: $BENCH_STATE_DIR,
 * else /dev/shm/heartline-bench/<checkout>/), `chat` for Heartline and `chat-room` for the minimal
 * room, with a snapshot of the sources and the build (so that work in the tree cannot reload the
 * Worker mid-run); the D1 migrations; members with verified emails, profiles, sessions and
 * credits written straight into D1 (no password hashing); the Worker started in workerd as
 * `wrangler dev` runs it (bench/lib/worker.ts), inspector OFF (DESIGN.md: wrangler's inspector adds
 * tens of milliseconds to Durable Object calls), no file watching, on 127.0.0.1, reached straight
 * (not through the dev proxy), with the per-member send limit raised for the run. Its entry is
 * bench/chat/d1-counting-worker.ts: the product's Worker with its D1 binding counted (statements
 * per message, reads and writes). Each pair starts its conversation through the API
 * (`POST /chat/conversations` with a first message, and a reply); then, for each target, both
 * members open a socket. The load is open-loop: message k is due at k / rate seconds, whatever the
 * answers; pairs take turns and within a pair the members alternate. Each message carries a client
 * id; its latency runs from just before it is sent until the other member's socket has the frame.
 * The CPU per message is that of the target's own processes (its workerd instances, or the
 * relay's Node) while the measured messages were sent and delivered. After each turn the bench
 * waits for the target to go idle, so that a backlog does not run into the next target's turn.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { constants as perfConstants, PerformanceObserver } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Agent, request, WebSocket } from "undici";
import type { D1Counts } from "./d1-counting-worker";
import { seedMembers, type Member } from "./members";
import { ReceivedBatch } from "../../app/realtime/received-batch";
import { Profiler } from "./profile";
import { BenchState, benchStateRoot, cpuSecondsOf, percentile, ROOT } from "../lib/worker";
import { sleep } from "../../scripts/lib/wait";
import { commandLine } from "../lib/args";
import { buildRef } from "../lib/ref";
import {
  d1Counts,
  prepareCountingWorker,
  startConversations,
  startOwnWorker,
} from "../lib/heartline";

type Via = "socket" | "http";

interface Options {
  pairs: number;
  rate: number;
  seconds: number;
  warmup: number;
  rounds: number;
  via: Via[];
  ramp: number[];
  rampPairs: number;
  rampSeconds: number;
  limit: number;
  gifts: number;
  receipts: boolean;
  reactionEvery: number;
  viaDevProxy: boolean;
  json?: string;
  profile?: string;
  profileTarget?: string;
  compareRef?: string;
  trace?: string;
}

function parseArgs(argv: string[]): Options {
  const { value, number, flag } = commandLine(argv);
  const num = (name: string, fallback: number, zero = false) => number(name, fallback, { zero });
  const via = (value("via") ?? "socket,http").split(",");
  if (via.length === 0 || via.some((v) => v !== "socket" && v !== "http")) {
    throw new Error("--via is socket, http or socket,http");
  }
  const ramp = value("ramp") ?? "200,500,1000,1500,2000,3000,4000";
  const rates = ramp === "none" ? [] : ramp.split(",").map(Number);
  if (rates.some((r) => !Number.isFinite(r) || r <= 0)) throw new Error("--ramp lists rates");
  return {
    pairs: Math.round(num("pairs", 20)),
    rate: num("rate", 200),
    seconds: num("seconds", 20),
    warmup: num("warmup", 3, true),
    rounds: Math.round(num("rounds", 2)),
    via: via as Via[],
    ramp: rates,
    rampPairs: Math.round(num("ramp-pairs", 100)),
    rampSeconds: num("ramp-seconds", 6),
    limit: num("limit", 50),
    gifts: Math.round(num("gifts", 100, true)),
    receipts: flag("receipts"),
    reactionEvery: Math.round(num("reaction-every", 10, true)),
    viaDevProxy: flag("via-dev-proxy"),
    json: value("json"),
    profile: value("profile"),
    profileTarget: value("profile-target"),
    compareRef: value("compare-ref"),
    trace: value("trace"),
  };
}

const state = new BenchState("chat");
const roomState = new BenchState("chat-room");
const TSX_BIN = path.join(ROOT, "node_modules", ".bin", "tsx");
/** The gift the gift messages carry (migration 0006's catalogue). */
const GIFT_ID = "rose";
/** In the ramp, a target whose messages wait this long has failed the rate: it stops there. */
const GIVE_UP_MS = 2_000;
const log = (message: string) => console.log(`[bench] ${message}`);

/**
 * The bench's own garbage collections. A full collection of this process's heap runs V8's helper
 * threads on every core and, on a small machine, holds the servers back as well: every socket of
 * the target waits at once, whichever target it is. So the heap is collected before each turn
 * (when nothing is measured), and the collections that still fall in the measuring are counted
 * and printed with the figures.
 */
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;
const clientGcs: { start: number; ms: number; major: boolean }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const { kind } = (entry as PerformanceEntry & { detail: { kind: number } }).detail;
    clientGcs.push({
      start: entry.startTime,
      ms: entry.duration,
      major: kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR,
    });
  }
}).observe({ entryTypes: ["gc"] });

/** The client's collections (ms, full and young) that started since `from` (performance.now()). */
function clientGcSince(from: number): { major: number; minor: number } {
  const since = clientGcs.filter((gc) => gc.start >= from);
  clientGcs.length = 0;
  const sum = (major: boolean) =>
    round(since.filter((gc) => gc.major === major).reduce((n, gc) => n + gc.ms, 0));
  return { major: sum(true), minor: sum(false) };
}
const load = () => Number(loadavg()[0]!.toFixed(2));

interface Pair {
  members: [Member, Member];
  conversationId: string;
  /** The same pair's conversation in the --compare-ref Worker. */
  refConversationId?: string;
}

/** Where the load goes: a server (the relay, the minimal room, Heartline) and a send path. */
interface Target {
  name: string;
  via: Via;
  /** The server's CPU seconds so far (its own processes only). */
  cpu(): number;
  socketUrl(pair: Pair, member: Member): string;
  socketHeaders(member: Member): Record<string, string>;
  send(pair: Pair, from: Member, text: string, clientId: string, giftId?: string): Promise<number>;
  /** Heartline's D1 counts so far. */
  d1?(): Promise<D1Counts>;
  /**
   * What the recipient's page does besides reading (--receipts): acknowledges what it received on
   * its socket and reacts to one message in `reactionEvery`, on its socket too.
   */
  receipts?: {
    /** The recipient reacts to one message in this many (0: none). */
    reactionEvery: number;
  };
}

interface Segment {
  latencies: number[];
  /** Each measured delivery: ms since the segment's measuring began when sent, pair, latency. */
  trace: [number, number, number][];
  /** When the segment's measuring began, in ms since the Unix epoch (to line the trace up). */
  measuredFromEpoch: number;
  /** The bench's own garbage collection while measuring, in ms (full, young). */
  clientGc: { major: number; minor: number };
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
  /** How long that took (sending, then waiting for the last answers and deliveries). */
  busySeconds: number;
  /** D1 use over every message of the segment (warm-up included), and how many those were. */
  d1: D1Counts | null;
  d1Messages: number;
  /** Sending stopped early: the target fell behind by more than the give-up time. */
  gaveUp: boolean;
}

interface Outcome {
  target: string;
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
  /**
   * The p99 of each turn, in the order they ran: a stall of the whole machine (which meets every
   * target, the minimal room too) shows as one turn far above the others.
   */
  turnP99: number[];
  /** The bench's own garbage collection while this target was measured, in ms (full, young). */
  clientGc: { major: number; minor: number };
  ack: { p50: number; p99: number };
  sendRate: number;
  receiveRate: number;
  /** D1 per message: round trips, batches, batches that write, read and written statements. */
  d1PerMessage: D1Counts | null;
  gaveUp: boolean;
}

const round = (n: number) => Number(n.toFixed(2));
const ascending = (values: number[]) => [...values].sort((a, b) => a - b);

const D1_KEYS = ["calls", "batches", "writeBatches", "reads", "writes"] as const;

function d1Delta(after: D1Counts, before: D1Counts): D1Counts {
  const delta = { ...after, statements: { ...after.statements } };
  for (const k of D1_KEYS) delta[k] = after[k] - before[k];
  for (const [sql, n] of Object.entries(after.statements)) {
    delta.statements[sql] = n - (before.statements[sql] ?? 0);
    if (delta.statements[sql] === 0) delete delta.statements[sql];
  }
  return delta;
}

function summarise(target: string, segments: Segment[]): Outcome {
  const sorted = ascending(segments.flatMap((s) => s.latencies));
  const acks = ascending(segments.flatMap((s) => s.acks));
  const sent = segments.reduce((n, s) => n + s.sent, 0);
  const seconds = segments.reduce((n, s) => n + s.seconds, 0);
  const cpu = segments.reduce((n, s) => n + s.cpu, 0);
  const counted = segments.filter((s) => s.d1);
  const d1Messages = counted.reduce((n, s) => n + s.d1Messages, 0);
  let d1PerMessage: D1Counts | null = null;
  if (counted.length > 0) {
    const per = (n: number) => round(n / Math.max(1, d1Messages));
    d1PerMessage = {
      calls: 0,
      batches: 0,
      writeBatches: 0,
      reads: 0,
      writes: 0,
      statements: {},
      entries: {},
      upgrades: 0,
      upgradeStatements: 0,
    };
    for (const k of D1_KEYS) d1PerMessage[k] = per(counted.reduce((n, s) => n + s.d1![k], 0));
    for (const s of counted) {
      for (const [sql, n] of Object.entries(s.d1!.statements)) {
        d1PerMessage.statements[sql] = (d1PerMessage.statements[sql] ?? 0) + n;
      }
    }
    for (const sql of Object.keys(d1PerMessage.statements)) {
      d1PerMessage.statements[sql] = per(d1PerMessage.statements[sql]!);
    }
  }
  return {
    target,
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
    cpuMsPerMessage: round((cpu * 1000) / Math.max(1, sent)),
    cpuShare: round(cpu / segments.reduce((n, s) => n + s.busySeconds, 0)),
    latency: {
      p50: round(percentile(sorted, 50)),
      p95: round(percentile(sorted, 95)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted.at(-1) ?? NaN),
      mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
    },
    turnP99: segments.map((s) => round(percentile(ascending(s.latencies), 99))),
    clientGc: {
      major: round(segments.reduce((n, s) => n + s.clientGc.major, 0)),
      minor: round(segments.reduce((n, s) => n + s.clientGc.minor, 0)),
    },
    ack: { p50: round(percentile(acks, 50)), p99: round(percentile(acks, 99)) },
    sendRate: round(sent / seconds),
    receiveRate: round(sorted.length / seconds),
    d1PerMessage,
    gaveUp: segments.some((s) => s.gaveUp),
  };
}

/**
 * Opens both members' sockets for every pair, drives `seconds` of load (after `warmup` seconds
 * that are not counted) and returns what was measured. With `giftId`, every message is that gift;
 * with `giveUpMs`, sending stops once a message waits longer than that (the target fell behind).
 */
async function drive(
  target: Target,
  pairs: Pair[],
  rate: number,
  warmup: number,
  seconds: number,
  { giftId, giveUpMs }: { giftId?: string; giveUpMs?: number } = {},
): Promise<Segment> {
  const via = target.via;
  const pending = new Map<
    string,
    {
      t0: number;
      pair: number;
      from: string;
      to: string;
      measured: boolean;
      acked: boolean;
      received: boolean;
    }
  >();
  const latencies: number[] = [];
  const trace: [number, number, number][] = [];
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
  const receipts = target.receipts;
  let receivedCount = 0;
  /** Per socket: what it has yet to acknowledge, sent as the chat page sends it. */
  const toAcknowledge = new Map<WebSocket, ReceivedBatch>();
  const acknowledge = (ws: WebSocket, id: string) => {
    let batch = toAcknowledge.get(ws);
    if (!batch) {
      batch = new ReceivedBatch((ids) => {
        if (ws.readyState !== WebSocket.OPEN) return false;
        ws.send(JSON.stringify({ type: "received", ids }));
        return true;
      });
      toAcknowledge.set(ws, batch);
    }
    batch.add(id);
  };

  await Promise.all(
    pairs.flatMap((pair) =>
      pair.members.map(
        (member) =>
          new Promise<void>((resolve, reject) => {
            const ws = new WebSocket(target.socketUrl(pair, member), {
              headers: target.socketHeaders(member),
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
                message?: { id: string; client_id: string | null };
              };
              if (frame.type === "send_error") fail(`send_error ${frame.status ?? ""}`.trim());
              if (frame.type === "react_error") fail(`react_error ${frame.status ?? ""}`.trim());
              const clientId = frame.type === "message" ? frame.message?.client_id : null;
              const entry = clientId ? pending.get(clientId) : undefined;
              if (!entry) return;
              if (entry.to === member.id && !entry.received) {
                entry.received = true;
                if (receipts && frame.message) {
                  acknowledge(ws, frame.message.id);
                  const every = receipts.reactionEvery;
                  if (every > 0 && receivedCount++ % every === 0) {
                    ws.send(
                      JSON.stringify({ type: "react", message_id: frame.message.id, emoji: "❤️" }),
                    );
                  }
                }
                if (entry.measured) {
                  latencies.push(now - entry.t0);
                  trace.push([entry.t0 - measuredFrom, entry.pair, now - entry.t0]);
                }
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
  const d1Before = target.d1 ? await target.d1() : null;
  collectGarbage();

  const warmupCount = Math.round(rate * warmup);
  const total = warmupCount + Math.round(rate * seconds);
  const interval = 1000 / rate;
  const run = randomBytes(3).toString("hex");
  const started = performance.now();
  let measuredFrom = started;
  let cpuFrom = target.cpu();
  const inFlight: Promise<void>[] = [];
  let gaveUp = false;
  let n = 0;
  for (; n < total; n++) {
    const due = started + n * interval;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    if (giveUpMs !== undefined && n % 50 === 0) {
      const oldest = [...pending.values()].find((p) => !p.received);
      if (oldest && performance.now() - oldest.t0 > giveUpMs) {
        gaveUp = true;
        break;
      }
    }
    if (n === warmupCount) {
      measuredFrom = performance.now();
      cpuFrom = target.cpu();
    }
    const pair = pairs[n % pairs.length]!;
    const from = pair.members[Math.floor(n / pairs.length) % 2]!;
    const to = pair.members[0] === from ? pair.members[1] : pair.members[0];
    const clientId = `${run}-${n}`;
    const t0 = performance.now();
    pending.set(clientId, {
      t0,
      pair: n % pairs.length,
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
        .send(
          JSON.stringify({ type: "send", client_id: clientId, message: text, gift_id: giftId }),
        );
      continue;
    }
    inFlight.push(
      target
        .send(pair, from, text, clientId, giftId)
        .then((status) => {
          if (status !== 201) fail(`HTTP ${status}`);
          else if (n >= warmupCount) acks.push(performance.now() - t0);
        })
        .catch((error: unknown) => {
          const code = (error as { code?: string } | null)?.code;
          fail(code ?? (error instanceof Error ? error.name : "request failed"));
        }),
    );
  }
  const sendSeconds = (performance.now() - measuredFrom) / 1000;
  await Promise.all(inFlight);
  const deadline = Date.now() + (gaveUp ? 0 : 10_000);
  const undelivered = () => [...pending.values()].filter((p) => p.measured && !p.received);
  while (Date.now() < deadline && undelivered().length > 0) await sleep(50);
  const lost = undelivered().length;
  const cpu = target.cpu() - cpuFrom;
  const busySeconds = (performance.now() - measuredFrom) / 1000;
  const clientGc = clientGcSince(measuredFrom);
  await drain(target);
  // What the send left for later (notifications, the members' lists) has its D1 statements too.
  let d1: D1Counts | null = null;
  if (target.d1 && d1Before) {
    await sleep(500);
    d1 = d1Delta(await target.d1(), d1Before);
  }
  finished = true;
  for (const ws of sockets) ws.close(1000, "bench done");

  return {
    latencies,
    trace,
    measuredFromEpoch: performance.timeOrigin + measuredFrom,
    clientGc,
    acks,
    sent: Math.max(0, n - warmupCount),
    lost,
    gaveUp,
    errors,
    errorKinds: Object.fromEntries(errorKinds),
    dropped,
    seconds: sendSeconds,
    cpu,
    busySeconds,
    d1,
    d1Messages: n,
  };
}

/**
 * Waits (up to 60 s) until the target's server is idle (under 5% of a core for 0.5 s), so that
 * the backlog of a target that fell behind does not run into the next target's turn.
 */
async function drain(target: Target) {
  const until = Date.now() + 60_000;
  let last = target.cpu();
  while (Date.now() < until) {
    await sleep(500);
    const now = target.cpu();
    if (now - last < 0.025) return;
    last = now;
  }
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

/**
 * The measured HTTP sends go through undici's own `request` over kept-alive connections, not
 * `fetch`: fetch's streams and Headers leave the bench several times the garbage a message, and
 * the bench's full collections, on these 2-core machines, hold back whichever server is measured.
 * An idle connection is let go after undici's default 4 s, as fetch does: workerd closes idle
 * connections on its side, and a POST sent on one it is closing fails (undici retries no POST).
 */
const sendAgent = new Agent({ connections: 256 });

/** POSTs `body` as JSON, asking for JSON back. */
const postJson = (url: string, headers: Record<string, string>, body: unknown) =>
  request(url, {
    method: "POST",
    dispatcher: sendAgent,
    headers: { ...headers, Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

/** A measured send: resolves with the status once the answer is read whole. */
async function post(url: string, headers: Record<string, string>, body: unknown) {
  const res = await postJson(url, headers, body);
  await res.body.dump();
  return res.statusCode;
}

/** Heartline's calls: a member's socket of the conversation, and POST …/messages. */
function heartlineTarget(
  name: string,
  base: string,
  via: Via,
  pids: ReadonlySet<number>,
  conversationOf: (pair: Pair) => string,
  { receipts = false, reactionEvery = 10 }: { receipts?: boolean; reactionEvery?: number } = {},
): Target {
  return {
    receipts: receipts ? { reactionEvery } : undefined,
    name,
    via,
    cpu: () => cpuSecondsOf("workerd", pids),
    socketUrl: (pair) => `${base.replace(/^http/, "ws")}/ws/chat/${conversationOf(pair)}`,
    socketHeaders: (member) => ({ Cookie: member.cookie, Origin: base }),
    send: (pair, from, text, clientId, giftId) =>
      post(
        `${base}/chat/conversations/${conversationOf(pair)}/messages`,
        { Cookie: from.cookie, "X-CSRF-Token": from.csrf },
        { message: text, client_id: clientId, gift_id: giftId },
      ),
    d1: () => d1Counts(base),
  };
}

/** The minimal room's state: its config (bench/chat/room/wrangler.json) pointing at its script. */
async function prepareRoom() {
  await rm(roomState.dir, { recursive: true, force: true });
  await mkdir(roomState.persistDir, { recursive: true });
  const dir = path.join(ROOT, "bench", "chat", "room");
  const config = JSON.parse(await readFile(path.join(dir, "wrangler.json"), "utf8")) as {
    main: string;
  };
  config.main = path.join(dir, config.main);
  await writeFile(roomState.configPath, JSON.stringify(config, null, 2));
}

/** Relay-style calls (the relay and the minimal room speak the same ones). */
function relayTarget(name: string, base: string, via: Via, cpu: () => number): Target {
  return {
    name,
    via,
    cpu,
    socketUrl: (pair, member) =>
      `${base.replace(/^http/, "ws")}/ws/${pair.conversationId}?member=${member.id}`,
    socketHeaders: () => ({}),
    send: (pair, from, text, clientId) =>
      post(
        `${base}/send/${pair.conversationId}`,
        {},
        { message: text, client_id: clientId, sender_id: from.id },
      ),
  };
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "-");

/** The statements a message costs (those run for at least one message in ten). */
function printStatements(o: Outcome) {
  const statements = Object.entries(o.d1PerMessage?.statements ?? {})
    .filter(([, n]) => n >= 0.1)
    .sort((a, b) => b[1] - a[1]);
  for (const [sql, n] of statements) console.log(`${"".padEnd(20)} ${n.toFixed(2)} × ${sql}`);
}

function print(o: Outcome) {
  const d1 = o.d1PerMessage;
  console.log(
    `${o.target.padEnd(18)} p50 ${fmt(o.latency.p50).padStart(6)}  p95 ${fmt(o.latency.p95).padStart(6)}  p99 ${fmt(
      o.latency.p99,
    ).padStart(
      6,
    )}  max ${fmt(o.latency.max).padStart(7)} ms  ${o.receiveRate.toFixed(0)}/${o.sendRate.toFixed(0)} msg/s` +
      `  CPU ${o.cpuMsPerMessage.toFixed(2)} ms/msg (${(o.cpuShare * 100).toFixed(0)}% core)` +
      `  lost ${o.lost}  errors ${o.errors}${o.errors ? ` ${JSON.stringify(o.errorKinds)}` : ""}` +
      `  dropped ${o.dropped}${o.gaveUp ? "  (fell behind: sending stopped)" : ""}` +
      (o.turnP99.length > 1
        ? `\n${"".padEnd(18)} p99 of each turn: ${o.turnP99.map(fmt).join(", ")} ms`
        : "") +
      `\n${"".padEnd(18)} the bench's own GC while measuring: ${fmt(o.clientGc.major)} ms full, ` +
      `${fmt(o.clientGc.minor)} ms young` +
      (d1
        ? `\n${"".padEnd(18)} D1 per message: ${d1.calls} round trips, ${d1.batches} batches (${d1.writeBatches} writing), ${d1.reads} reads, ${d1.writes} writes`
        : ""),
  );
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const allPairs = Math.max(options.pairs, options.ramp.length > 0 ? options.rampPairs : 0);
  log(
    `${options.pairs} pairs at ${options.rate} msg/s, ${options.seconds} s per target over ` +
      `${options.rounds} rounds (+${options.warmup} s warm-up each), via ${options.via.join(" and ")}; ` +
      `ramp ${options.ramp.join(", ") || "none"} msg/s at ${options.rampPairs} pairs (limit p99 ${options.limit} ms); ` +
      `state in ${path.dirname(state.dir)}`,
  );
  const ref = options.compareRef ? await buildRef(options.compareRef, benchStateRoot(), log) : null;
  const refState = ref ? new BenchState("chat-ref", { root: ref.root }) : null;
  const heartlineStates = refState ? [state, refState] : [state];
  for (const s of heartlineStates) await s.reset();
  await prepareRoom();
  const members = await seedMembers(allPairs * 2, heartlineStates);
  // The per-member send limit raised for the run.
  for (const s of heartlineStates) {
    await prepareCountingWorker(s, (config) => {
      const limits = config.vars?.RATE_LIMITS as Record<string, string> | undefined;
      if (limits) limits.chat_send_account = "100000000/60";
    });
  }

  const room = await startOwnWorker(roomState, {});
  let heartline: Awaited<ReturnType<typeof startOwnWorker>> | null = null;
  let refHeartline: Awaited<ReturnType<typeof startOwnWorker>> | null = null;
  let relay: ChildProcess | null = null;
  try {
    heartline = await startOwnWorker(state, {
      vars: { APP_ENV: "development" },
      viaDevProxy: options.viaDevProxy,
      inspector: Boolean(options.profile),
    });
    const inspectorUrl = heartline.worker.inspectorUrl;
    const profiler = inspectorUrl ? await Profiler.connect(inspectorUrl) : null;
    const base = heartline.worker.url;
    const heartlinePids = heartline.pids;
    log(
      `Worker on ${base}, ${heartline.worker.route} (inspector off, local D1 and Durable Objects)`,
    );
    log(`minimal room on ${room.worker.url}`);

    const ids = await startConversations(base, members, allPairs);
    const pairs: Pair[] = ids.map((conversationId, i) => ({
      members: [members[2 * i]!, members[2 * i + 1]!],
      conversationId,
    }));
    if (refState) {
      refHeartline = await startOwnWorker(refState, { vars: { APP_ENV: "development" } });
      const refIds = await startConversations(refHeartline.worker.url, members, allPairs);
      for (const [i, pair] of pairs.entries()) pair.refConversationId = refIds[i];
      log(`${options.compareRef} (${ref!.sha.slice(0, 10)}) on ${refHeartline.worker.url}`);
    }
    log(`${pairs.length} conversations started through the API`);

    const started = await startRelay();
    relay = started.child;
    const relayBase = `http://127.0.0.1:${started.port}`;
    const targets: Target[] = [];
    for (const via of options.via) {
      targets.push(relayTarget(`relay ${via}`, relayBase, via, () => cpuSecondsOf("node")));
      targets.push(
        relayTarget(`room ${via}`, room.worker.url, via, () => cpuSecondsOf("workerd", room.pids)),
      );
      targets.push(
        heartlineTarget(`heartline ${via}`, base, via, heartlinePids, (p) => p.conversationId),
      );
      if (options.receipts && via === "socket") {
        targets.push(
          heartlineTarget(
            "heartline+receipts socket",
            base,
            via,
            heartlinePids,
            (p) => p.conversationId,
            { receipts: true, reactionEvery: options.reactionEvery },
          ),
        );
      }
      if (refHeartline) {
        targets.push(
          heartlineTarget(
            `ref:${options.compareRef} ${via}`,
            refHeartline.worker.url,
            via,
            refHeartline.pids,
            (p) => p.refConversationId!,
          ),
        );
      }
    }
    const floorOf = (via: Via) => targets.find((t) => t.name === `room ${via}`)!;
    const roomSocket = targets.find((t) => t.name === "room socket") ?? floorOf(options.via[0]!);

    // 1. The fixed rate, in rounds, every target in turn (the order turning each round).
    const fixedPairs = pairs.slice(0, options.pairs);
    const segments = new Map<string, Segment[]>(targets.map((t) => [t.name, []]));
    const loadBefore = load();
    const perRound = options.seconds / options.rounds;
    for (let r = 0; r < options.rounds; r++) {
      const order = targets.map((_, i) => targets[(i + r) % targets.length]!);
      log(
        `round ${r + 1}/${options.rounds}: ${order.map((t) => t.name).join(", ")} (${perRound} s each)`,
      );
      for (const target of order) {
        const profiled =
          profiler &&
          r === 0 &&
          target.name === (options.profileTarget ?? `heartline ${options.via[0]}`);
        if (profiled) await profiler.start();
        const segment = await drive(target, fixedPairs, options.rate, options.warmup, perRound);
        segments.get(target.name)!.push(segment);
        if (profiled) await profiler.stop(options.profile!, segment.d1Messages);
      }
    }
    const fixed = targets.map((t) => summarise(t.name, segments.get(t.name)!));
    if (options.trace) {
      // Per target, per turn: when measuring began (ms since the Unix epoch) and its deliveries,
      // each [ms since measuring began when sent, pair, latency ms].
      const traces = Object.fromEntries(
        targets.map((t) => [
          t.name,
          segments.get(t.name)!.map((s) => ({ from: s.measuredFromEpoch, deliveries: s.trace })),
        ]),
      );
      await writeFile(options.trace, JSON.stringify(traces));
      log(`deliveries traced in ${options.trace}`);
    }
    const fixedLoad = [loadBefore, load()];
    const p99Of = (name: string) => fixed.find((o) => o.target === name)?.latency.p99 ?? NaN;
    // Each Heartline target against the minimal room's socket (the in-platform floor), and a
    // target over HTTP against the minimal room over HTTP too (the same path's floor; in an
    // HTTP-only run that is the only floor, `roomSocket` itself).
    const roomHttp = targets.find((t) => t.name === "room http");
    const ratios: Record<string, number> = {};
    for (const t of targets.filter((x) => x.d1)) {
      const floors =
        t.via === "http" && roomHttp && roomHttp !== roomSocket
          ? [roomSocket, roomHttp]
          : [roomSocket];
      for (const floor of floors) {
        ratios[`${t.name} / ${floor.name}`] = round(p99Of(t.name) / p99Of(floor.name));
      }
    }
    console.log("");
    console.log(
      `send → receive, ${options.pairs} pairs, ${options.rate} msg/s, ${options.seconds} s per target ` +
        `(workerd with the inspector OFF, Heartline ${heartline.worker.route}; ${cpus().length} cores; ` +
        `load average ${fixedLoad.join(" → ")})`,
    );
    for (const o of fixed) {
      print(o);
      printStatements(o);
    }
    const goals: Record<string, number> = { socket: 1.5, http: 3 };
    for (const [name, ratio] of Object.entries(ratios)) {
      const goal = goals[name.split(" / ")[0]!.split(" ").at(-1)!]!;
      console.log(`p99 ${name}: ×${ratio} (goal ≤ ×${goal}: ${ratio <= goal ? "met" : "NOT met"})`);
    }

    // 2. The ramp: every target still under the limit runs at each rate, in turn.
    const ramp: { rate: number; load: number; outcomes: Outcome[] }[] = [];
    const inRamp = targets.filter((t) => t.via === "socket" || t.d1);
    const sustained: Record<string, number> = Object.fromEntries(inRamp.map((t) => [t.name, 0]));
    let rampTargets = inRamp;
    const rampPairs = pairs.slice(0, options.rampPairs);
    for (const [step, rate] of options.ramp.entries()) {
      if (rampTargets.length === 0) break;
      const order = rampTargets.map((_, i) => rampTargets[(i + step) % rampTargets.length]!);
      log(`ramp ${rate} msg/s, ${rampPairs.length} pairs: ${order.map((t) => t.name).join(", ")}`);
      const outcomes: Outcome[] = [];
      const held = (o: Outcome) =>
        o.latency.p99 <= options.limit && o.lost === 0 && o.errors === 0 && !o.gaveUp;
      const turns = [...order];
      for (let i = 0; i < turns.length; i++) {
        const target = turns[i]!;
        const o = summarise(`${target.name}${i >= order.length ? " (again)" : ""}`, [
          await drive(target, rampPairs, rate, 2, options.rampSeconds, {
            giveUpMs: GIVE_UP_MS,
          }),
        ]);
        print(o);
        outcomes.push(o);
        if (held(o)) sustained[target.name] = rate;
        // One noisy turn on a shared machine should not end a target: a miss that did not fall
        // behind gets a second turn at the same rate, after the others.
        else if (i < order.length && !o.gaveUp) turns.push(target);
      }
      ramp.push({ rate, load: load(), outcomes });
      rampTargets = rampTargets.filter((t) => sustained[t.name] === rate);
    }
    if (options.ramp.length > 0) {
      console.log("");
      console.log(
        `highest rate held at p99 ≤ ${options.limit} ms, none lost, ${options.rampPairs} pairs ` +
          `(of ${options.ramp.join(", ")} msg/s; 0: not even the first):`,
      );
      for (const t of inRamp) console.log(`  ${t.name.padEnd(18)} ${sustained[t.name]} msg/s`);
    }

    // 3. Gifts: Heartline only, for the D1 statements of a gift message.
    const gifts: Outcome[] = [];
    if (options.gifts > 0) {
      console.log("");
      for (const target of targets.filter((t) => t.d1)) {
        const o = summarise(`${target.name} gift`, [
          await drive(target, pairs.slice(0, options.pairs), 20, 0, options.gifts / 20, {
            giftId: GIFT_ID,
          }),
        ]);
        print(o);
        printStatements(o);
        gifts.push(o);
      }
    }

    const result = {
      pairs: options.pairs,
      rate: options.rate,
      seconds: options.seconds,
      rounds: options.rounds,
      runtime: `workerd (wrangler 4.86), inspector off, local D1/DO, 127.0.0.1, ${heartline.worker.route}`,
      cores: cpus().length,
      load_average: fixedLoad,
      fixed,
      p99_ratios: ratios,
      ramp: { pairs: options.rampPairs, limit_ms: options.limit, steps: ramp, sustained },
      gifts,
      load_average_end: load(),
    };
    console.log(JSON.stringify(result));
    if (options.json) await writeFile(options.json, `${JSON.stringify(result, null, 2)}\n`);
    profiler?.close();
  } finally {
    await sendAgent.destroy();
    relay?.kill("SIGTERM");
    await heartline?.worker.dispose();
    await refHeartline?.worker.dispose();
    await room.worker.dispose();
  }
}

await main();
