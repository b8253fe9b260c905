/**
 * bench/push: how soon a member who is away hears of a message by push, and what deciding and
 * sending that push costs D1 (docs/api.md "Away from the app", docs/decisions/033).
 *
 *   npm run build && npx tsx bench/push/run.ts [options]
 *
 *   --away N        pairs whose recipient is away (no /ws/me socket), each with one browser
 *                   subscribed to pushes (default 1000)
 *   --rate N        messages per second, over HTTP, open-loop (default 100)
 *   --seconds N     how long the away window sends (default 60)
 *   --delay N       AWAY_PUSH_DELAY_SECONDS for the run (default 5)
 *   --grace N       a message not announced by a push within delay + N seconds of being stored
 *                   is lost (default 5)
 *   --order O       which pair each message goes to: `random` (default: each message to a pair
 *                   drawn at random, so that some follow their conversation's last push within
 *                   the delay and are folded, others not) or `round-robin` (every pair in turn:
 *                   with --away / --rate above the delay, nothing is folded)
 *   --here N        then a window of N pairs whose recipient holds a /ws/me socket, also
 *                   subscribed (default 100; 0 skips it): they must get no push, and their D1
 *                   statements per message are the send's own, which the away window's are
 *                   compared with
 *   --here-rate N   its messages per second (default: rate × here / away, each pair as often as
 *                   an away pair, so that rooms start and idle alike; pairs chosen as --order)
 *   --here-seconds N  how long the here window sends (default: --seconds)
 *   --json FILE     also write the figures as JSON
 *
 * How it runs: fresh local state under benchStateRoot() (bench/lib/worker.ts: $BENCH_STATE_DIR,
 * else /dev/shm/heartline-bench/<checkout>/) named `push`, with a snapshot of the sources and the
 * build; the D1 migrations; members with verified emails, profiles, sessions and credits written
 * straight into D1 (as bench/chat seeds them); the Worker started in workerd as `wrangler dev`
 * runs it (bench/lib/worker.ts), inspector off, on 127.0.0.1, reached straight, with a VAPID key
 * pair made for the run (as scripts/dev.ts makes one), AWAY_PUSH_DELAY_SECONDS set to --delay and
 * the per-member send limit raised (in the run's copy of wrangler.toml's vars, as bench/chat
 * raises it). Its entry is bench/push/d1-attributing-worker.ts: bench/chat/d1-counting-worker.ts
 * (the product's Worker with its D1 binding counted, `GET /__bench/d1`) with each statement also
 * attributed by its call stack to the away-push path or not (`GET /__bench/d1-push`), both read
 * before and after each window.
 *
 * The push service is a plain Node https server in this process (bench/push/push-service.ts, with
 * a certificate made for the run that the Worker trusts through NODE_EXTRA_CA_CERTS): it answers
 * every push 201 (an empty body of known length, as push services answer) and records when it
 * arrived, its Topic, and its plaintext, decrypted with the subscription's private key. Every recipient subscribes through the API (`POST
 * /my/push/subscriptions`, an https://127.0.0.1 endpoint, which development accepts); the here
 * recipients then open their /ws/me socket; every pair starts its conversation through the API
 * (`POST /chat/conversations` with a first message, and a reply, as bench/chat does). Warm-up:
 * one message to every pair, and, for the away pairs, its push awaited (the hubs then hold their
 * member's subscriptions, settings and the sender's name, as a hub of a member who has been
 * around does; what the push path read from D1 meanwhile is printed), a pair whose message
 * failed or got no push warmed again (up to three rounds); then `delay` + 1 s of quiet. Only
 * senders send in the windows; nobody reads. Messages go open-loop (message k due at k / rate s,
 * whatever the answers).
 *
 * What it prints, for the away window:
 * - latency per message: from the message stored (its `sent_at`, as the 201 answers it) to the
 *   arrival at the push service of the first push of its conversation that arrived after that
 *   (a message folded waits for the fold's push): p50, p90, p99, max, and p99 beyond the delay
 *   (goal: within 1 s of it). Also to the first push whose count ("sent N messages") includes
 *   the message (`counting it`), which differs when a push built just before the message was
 *   stored arrived after it; a message with no such push within delay + grace is lost;
 * - per push, how late it came against when it was due: at once for a conversation with no push
 *   within the delay (its first new message's store time), else the previous push's arrival plus
 *   the delay (the hub's own clock is not seen: the previous push's arrival is slightly after the
 *   hub sent it, so this lateness reads a little low);
 * - messages, pushes and their ratio (folding); messages never announced within delay + grace
 *   (lost); pushes that announced nothing new (doubled); pushes that arrived more than 250 ms
 *   sooner than the delay after the previous one of their conversation (arrival to arrival: a
 *   push that took longer to arrive than the next one shortens the gap without any fold being
 *   broken, so under load this counts the spread of push latency too); pushes with a wrong tag,
 *   Topic, type or URL, or that a push service would refuse; how many TLS connections the
 *   pushes came over; workerd's peak memory and open Durable Object databases;
 * - the sends' own answer times, how often sending fell behind, the bench's event-loop lag and
 *   workerd's CPU per message; a WARNING when the Worker did not keep up with the rate (then the
 *   latencies hold its queueing, not the push path's alone);
 * - D1 statements (reads and writes) per message and per push, and each statement per message.
 * For the here window: messages, pushes received by its members (must be 0), D1 per message; then
 * each statement's count per message in the away window and in the here window and their
 * difference, what the away window ran beyond the here window's rate of each statement, and the
 * statements made on the push path by call stack (the goal: none), each with the stack it was
 * first seen in.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { readdirSync, readlinkSync } from "node:fs";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Agent, request, WebSocket } from "undici";
import type { D1Counts } from "../chat/d1-counting-worker";
import type { PushPathD1 } from "./d1-attributing-worker";
import { commandLine } from "../lib/args";
import { sleep } from "../../scripts/lib/wait";
import {
  epochNow,
  PushService,
  topicOf,
  trustCertificate,
  type ArrivedPush,
  type BenchSubscription,
} from "./push-service";

// The push service's certificate, trusted by the Worker's outgoing requests: Miniflare reads
// NODE_EXTRA_CA_CERTS when it is loaded, so wrangler (bench/lib/worker.ts) is imported after.
const certificate = trustCertificate();
process.on("exit", () => certificate.remove());
const { BENCH_APP_KEY, BenchState, cpuSecondsOf, percentile, pidsOf, residentMbOf, startWorker } =
  await import("../lib/worker");

type Order = "random" | "round-robin";

interface Options {
  away: number;
  rate: number;
  seconds: number;
  delay: number;
  grace: number;
  order: Order;
  here: number;
  hereRate: number;
  hereSeconds: number;
  json?: string;
}

function parseArgs(argv: string[]): Options {
  const { value, number } = commandLine(argv);
  const order = value("order") ?? "random";
  const away = number("away", 1000, { whole: true });
  const rate = number("rate", 100);
  const seconds = number("seconds", 60);
  const here = number("here", 100, { zero: true, whole: true });
  if (order !== "random" && order !== "round-robin") {
    throw new Error("--order is random or round-robin");
  }
  return {
    away,
    rate,
    seconds,
    delay: number("delay", 5, { zero: true }),
    grace: number("grace", 5, { zero: true }),
    order,
    here,
    hereRate: number("here-rate", (rate * here) / away),
    hereSeconds: number("here-seconds", seconds),
    json: value("json"),
  };
}

const state = new BenchState("push");
const COUNTING = path.join("bench", "chat", "d1-counting-worker.ts");
const ENTRY = path.join("bench", "push", "d1-attributing-worker.ts");
const MEMBER_CREDITS = 1_000_000;
const log = (message: string) => console.log(`[bench] ${message}`);
const round = (n: number, digits = 2) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : null);
const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
const fmt = (n: number | null | undefined, digits = 0) =>
  n === null || n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(digits);

interface Member {
  id: string;
  cookie: string;
  csrf: string;
}

interface Sent {
  /** When the request went, and when the message was stored (its sent_at), epoch ms. */
  tSend: number;
  stored: number | null;
  /** When the answer was read (epoch ms). */
  answered: number | null;
  status: number;
  /** What failed: `HTTP <status>`, or the client's error code when no answer came. */
  error?: string;
  /** The window it was sent in. */
  window: "warmup" | "away" | "here";
  /** Its place among the recipient's unread messages of the conversation (set when analysed). */
  index?: number;
}

interface Pair {
  kind: "away" | "here";
  sender: Member;
  recipient: Member;
  conversationId: string;
  subscription: BenchSubscription;
  /** The Topic and tag its pushes must carry. */
  tag: string;
  topic: string;
  messages: Sent[];
  pushes: ArrivedPush[];
}

/** Verified members with a profile, a long session, a CSRF secret and credits, written into D1. */
async function seedMembers(count: number): Promise<Member[]> {
  const now = new Date().toISOString();
  const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const members: Member[] = [];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `pushbench${i.toString(36).padStart(4, "0")}${randomBytes(5).toString("hex")}`;
    const token = randomBytes(32).toString("base64url");
    const hash = createHash("sha256").update(token).digest("hex");
    const secret = randomBytes(32).toString("base64url");
    lines.push(
      `INSERT INTO users (id, username, email, password_hash, email_verified_at) VALUES ('${id}', 'push_bench_${i}', 'push-bench${i}@bench.test', 'unused', '${now}');`,
      `INSERT INTO profiles (user_id, date_of_birth) VALUES ('${id}', '1990-01-01');`,
      `INSERT INTO sessions (id_hash, user_id, remember, created_at, last_active_at, expires_at) VALUES ('${hash}', '${id}', 1, '${now}', '${now}', '${expires}');`,
      `INSERT INTO credit_transactions (id, user_id, amount, direction, reason, reference, created_at) VALUES ('bench-${id}', '${id}', ${MEMBER_CREDITS}, 'in', 'bench', '${id}', '${now}');`,
      `INSERT INTO user_credits (user_id, balance, lifetime_earned) VALUES ('${id}', ${MEMBER_CREDITS}, ${MEMBER_CREDITS});`,
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

/**
 * A VAPID key pair as scripts/dev.ts makes one for .dev.vars: the public key as base64url of the
 * 65-byte uncompressed P-256 point, the private key as base64url of its 32-byte scalar.
 */
async function vapidKeyPair() {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const publicKey = Buffer.from(await crypto.subtle.exportKey("raw", pair.publicKey));
  const { d } = await crypto.subtle.exportKey("jwk", pair.privateKey);
  return { VAPID_PUBLIC_KEY: publicKey.toString("base64url"), VAPID_PRIVATE_KEY: d! };
}

/**
 * The Worker's snapshot and config: AWAY_PUSH_DELAY_SECONDS for the run, the per-member send
 * limit raised, D1 counted (bench/chat/d1-counting-worker.ts as the entry).
 */
async function prepareWorker(delaySeconds: number) {
  await state.prepareWorker((config) => {
    const vars = (config.vars ??= {});
    vars.AWAY_PUSH_DELAY_SECONDS = String(delaySeconds);
    const limits = vars.RATE_LIMITS as Record<string, string> | undefined;
    if (limits) limits.chat_send_account = "100000000/60";
    (config as { main?: string }).main = path.join(state.sourceDir, ENTRY);
  });
  for (const file of [COUNTING, ENTRY]) {
    await mkdir(path.dirname(path.join(state.sourceDir, file)), { recursive: true });
    await copyFile(path.join(state.root, file), path.join(state.sourceDir, file));
  }
}

/**
 * HTTP through undici's own `request` over kept-alive connections (as bench/chat sends: fetch's
 * streams leave the bench far more garbage a message).
 */
const agent = new Agent({ connections: 256 });

async function call(
  base: string,
  member: Member,
  method: "POST" | "GET",
  pathname: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> | null }> {
  const res = await request(`${base}${pathname}`, {
    method,
    dispatcher: agent,
    headers: {
      Cookie: member.cookie,
      "X-CSRF-Token": member.csrf,
      Accept: "application/json",
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : null;
  } catch {
    // Not JSON: the status says enough.
  }
  return { status: res.statusCode, json };
}

/** A setup call that must succeed. */
async function api(base: string, member: Member, pathname: string, body: unknown) {
  const { status, json } = await call(base, member, "POST", pathname, body);
  if (status >= 300) throw new Error(`POST ${pathname}: ${status} ${JSON.stringify(json)}`);
  return json ?? {};
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function inPool<T, R>(items: T[], concurrency: number, work: (item: T) => Promise<R>) {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

/** A small seeded generator (mulberry32): the same draws in every run. */
function seededRandom(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A message from the pair's sender: resolves once answered; records when it was stored. */
async function sendMessage(base: string, pair: Pair, window: Sent["window"], n: number) {
  const sent: Sent = { tSend: epochNow(), stored: null, answered: null, status: 0, window };
  pair.messages.push(sent);
  try {
    const { status, json } = await call(
      base,
      pair.sender,
      "POST",
      `/chat/conversations/${pair.conversationId}/messages`,
      {
        message: `bench message ${n}`,
        client_id: `push-${window}-${n}-${randomBytes(3).toString("hex")}`,
      },
    );
    sent.status = status;
    sent.answered = epochNow();
    const storedAt = (json?.message as { sent_at?: string } | undefined)?.sent_at;
    if (status === 201 && storedAt) sent.stored = Date.parse(storedAt);
    else sent.error = `HTTP ${status}`;
  } catch (error) {
    sent.status = -1;
    const code = (error as { code?: string } | null)?.code;
    sent.error = code ?? (error instanceof Error ? error.name : "request failed");
  }
  return sent;
}

/**
 * Sends `count` messages open-loop at `rate` (message k due at k / rate s, whatever the answers),
 * each to the pair `choose(k)` names; resolves once every answer is in.
 */
async function drive(
  base: string,
  count: number,
  rate: number,
  choose: (k: number) => Pair,
  window: Sent["window"],
) {
  const interval = 1000 / rate;
  const started = performance.now();
  const inFlight: Promise<Sent>[] = [];
  let late = 0;
  for (let k = 0; k < count; k++) {
    const wait = started + k * interval - performance.now();
    if (wait > 1) await sleep(wait);
    else if (wait < -100) late += 1;
    inFlight.push(sendMessage(base, choose(k), window, k));
  }
  const sendSeconds = (performance.now() - started) / 1000;
  const sent = await Promise.all(inFlight);
  return { sent, sendSeconds, late };
}

interface D1Window {
  reads: number;
  writes: number;
  calls: number;
  batches: number;
  statements: Record<string, number>;
}

function d1Delta(after: D1Counts, before: D1Counts): D1Window {
  const statements: Record<string, number> = {};
  for (const [sql, n] of Object.entries(after.statements)) {
    const d = n - (before.statements[sql] ?? 0);
    if (d !== 0) statements[sql] = d;
  }
  return {
    reads: after.reads - before.reads,
    writes: after.writes - before.writes,
    calls: after.calls - before.calls,
    batches: after.batches - before.batches,
    statements,
  };
}

const readD1 = async (base: string) =>
  (await (await request(`${base}/__bench/d1`, { dispatcher: agent })).body.json()) as D1Counts;

const readPushPath = async (base: string) =>
  (await (
    await request(`${base}/__bench/d1-push`, { dispatcher: agent })
  ).body.json()) as PushPathD1;

/** The push path's statements between two readings, each with the stack it was first seen in. */
function pushPathDelta(after: PushPathD1, before: PushPathD1) {
  return Object.entries(after.statements)
    .map(([statement, n]) => ({
      statement,
      count: n - (before.statements[statement] ?? 0),
      stack: after.stacks[statement] ?? [],
    }))
    .filter((s) => s.count > 0)
    .sort((a, b) => b.count - a.count);
}

/** How many messages a push says its conversation holds unread ("sent N messages"). */
function countOf(push: ArrivedPush): number | null {
  const text = `${push.payload?.title ?? ""} ${push.payload?.body ?? ""}`;
  const many = /sent (\d+) messages/.exec(text);
  if (many) return Number(many[1]);
  if (/sent you a message/.test(text)) return 1;
  return null;
}

const stats = (values: number[]) => {
  const sorted = ascending(values);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? NaN),
    mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
  };
};

/**
 * The pair's stored messages in store order, each with its place among the recipient's unread
 * messages (`index`): counted from what the last push before the window said was unread then.
 */
function indexMessages(pair: Pair, windowFrom: number): Sent[] {
  const stored = pair.messages
    .filter((m) => m.stored !== null)
    .sort((a, b) => a.stored! - b.stored! || a.tSend - b.tSend);
  // What the last push before the window counted (the warm-up's, every earlier message of the
  // conversation included; a send that failed may still have stored its message).
  const before = pair.pushes.filter((p) => p.at < windowFrom).at(-1);
  const earlier = stored.filter((m) => m.window !== "away");
  const announcedBefore = (before && countOf(before)) ?? earlier.length;
  earlier.forEach((m) => (m.index = 0));
  stored.filter((m) => m.window === "away").forEach((m, i) => (m.index = announcedBefore + i + 1));
  return stored;
}

/** What the away window's pushes did for its messages. */
function analyseAway(pairs: Pair[], delayMs: number, graceMs: number, windowFrom: number) {
  const latencies: number[] = [];
  const announcedLatencies: number[] = [];
  const lateAtOnce: number[] = [];
  const lateFolded: number[] = [];
  const intervals: number[] = [];
  const lost: { conversation: string; stored: string; index: number }[] = [];
  let messages = 0;
  let pushes = 0;
  let doubled = 0;
  let tooSoon = 0;
  let uncounted = 0;
  const doubledExamples: string[] = [];
  for (const pair of pairs) {
    const stored = indexMessages(pair, windowFrom);
    const before = pair.pushes.filter((p) => p.at < windowFrom);
    const measured = stored.filter((m) => m.window === "away");
    const pushed = pair.pushes.filter((p) => p.at >= windowFrom);
    messages += measured.length;
    pushes += pushed.length;

    for (const m of measured) {
      const first = pushed.find((p) => p.at >= m.stored!);
      if (first) latencies.push(first.at - m.stored!);
      const announcing = pushed.find((p) => {
        if (p.at < m.stored!) return false;
        const n = countOf(p);
        return n === null || n >= m.index!;
      });
      if (announcing && announcing.at - m.stored! <= delayMs + graceMs) {
        announcedLatencies.push(announcing.at - m.stored!);
      } else {
        lost.push({
          conversation: pair.conversationId,
          stored: new Date(m.stored!).toISOString(),
          index: m.index!,
        });
      }
    }

    // Each push against the one before it (of the warm-up too).
    let previous: ArrivedPush | undefined = before.at(-1);
    for (const p of pushed) {
      const n = countOf(p);
      const was = previous ? countOf(previous) : 0;
      if (n === null || was === null) uncounted += 1;
      else if (n <= was) {
        doubled += 1;
        if (doubledExamples.length < 5) {
          doubledExamples.push(
            `${pair.tag}: "${p.payload?.body}" at +${fmt(p.at - windowFrom)} ms after "${previous?.payload?.body}" at +${fmt(previous!.at - windowFrom)} ms`,
          );
        }
      } else {
        const fresh = stored.filter((m) => m.index! > was && m.index! <= n);
        const firstStored = fresh[0]?.stored;
        if (firstStored !== undefined && firstStored !== null) {
          const foldedDue = previous ? previous.at + delayMs : -Infinity;
          if (foldedDue > firstStored) lateFolded.push(p.at - foldedDue);
          else lateAtOnce.push(p.at - firstStored);
        }
      }
      if (previous) {
        intervals.push(p.at - previous.at);
        if (p.at - previous.at < delayMs - 250) tooSoon += 1;
      }
      previous = p;
    }
  }
  const latency = stats(latencies);
  return {
    messages,
    pushes,
    messagesPerPush: round(messages / Math.max(1, pushes)),
    latency_ms: latency,
    p99_beyond_delay_ms: round((latency.p99 ?? NaN) - delayMs),
    announced_latency_ms: stats(announcedLatencies),
    lateness_ms: { at_once: stats(lateAtOnce), folded: stats(lateFolded) },
    lost: lost.length,
    lostExamples: lost.slice(0, 5),
    doubled,
    doubledExamples,
    tooSoon,
    minIntervalMs: round(intervals.length ? Math.min(...intervals) : NaN),
    uncounted,
  };
}

/** Pushes whose tag, Topic, type or URL is not their conversation's, or that a service refuses. */
function checkPushes(pairs: Pair[]) {
  const problems: Record<string, number> = {};
  const note = (what: string) => (problems[what] = (problems[what] ?? 0) + 1);
  for (const pair of pairs) {
    for (const p of pair.pushes) {
      for (const problem of p.problems) note(problem);
      if (!p.payload) continue;
      if (p.payload.tag !== pair.tag) note(`tag ${p.payload.tag}`);
      if (p.topic !== pair.topic) note("Topic is not pushTopic(tag)");
      if (p.payload.type !== "message") note(`type ${p.payload.type}`);
      if (p.payload.url !== `/chat/${pair.conversationId}`) note(`url ${p.payload.url}`);
    }
  }
  return problems;
}

/** How many failed of each kind. */
function kindsOf(failed: Sent[]): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const s of failed) kinds[s.error ?? "?"] = (kinds[s.error ?? "?"] ?? 0) + 1;
  return kinds;
}

const perN = (d1: D1Window, n: number) => ({
  reads: round(d1.reads / Math.max(1, n), 3),
  writes: round(d1.writes / Math.max(1, n), 3),
  calls: round(d1.calls / Math.max(1, n), 3),
});

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const delayMs = options.delay * 1000;
  const graceMs = options.grace * 1000;
  log(
    `${options.away} pairs away at ${options.rate} msg/s for ${options.seconds} s (${options.order}), ` +
      `AWAY_PUSH_DELAY_SECONDS ${options.delay}; then ${options.here} pairs here for ` +
      `${options.hereSeconds} s; state in ${state.dir}`,
  );
  await state.reset();
  const members = await seedMembers(2 * (options.away + options.here));
  log(`${members.length} members written into D1`);
  const vapid = await vapidKeyPair();
  await prepareWorker(options.delay);
  const service = await PushService.start(vapid.VAPID_PUBLIC_KEY, certificate);
  const workerdBefore = new Set(pidsOf("workerd"));
  const worker = await startWorker(state, {
    vars: { APP_ENV: "development", ...vapid },
  });
  const pids = new Set(pidsOf("workerd").filter((pid) => !workerdBefore.has(pid)));
  const cpu = () => cpuSecondsOf("workerd", pids);
  // workerd's memory and open Durable Object databases (local workerd caps SQLite's memory for
  // the whole process: thousands of objects awake at once can exhaust it, SQLITE_NOMEM).
  const peak = { rssMb: 0, sqliteFiles: 0 };
  const sampler = setInterval(() => {
    peak.rssMb = Math.max(peak.rssMb, residentMbOf("workerd"));
    let files = 0;
    for (const pid of pids) {
      try {
        for (const fd of readdirSync(`/proc/${pid}/fd`)) {
          try {
            if (readlinkSync(`/proc/${pid}/fd/${fd}`).endsWith(".sqlite")) files += 1;
          } catch {
            // Closed meanwhile.
          }
        }
      } catch {
        // Ended.
      }
    }
    peak.sqliteFiles = Math.max(peak.sqliteFiles, files);
  }, 2000);
  const sockets: WebSocket[] = [];
  let pinger: NodeJS.Timeout | undefined;
  try {
    const base = worker.url;
    log(`Worker on ${base}, ${worker.route}; push service on ${service.origin}`);

    // Pairs, and each recipient's browser subscribed through the API.
    const pairs: Pair[] = [];
    for (let i = 0; i < options.away + options.here; i++) {
      const subscription = service.subscribe();
      pairs.push({
        kind: i < options.away ? "away" : "here",
        sender: members[2 * i]!,
        recipient: members[2 * i + 1]!,
        conversationId: "",
        subscription,
        tag: "",
        topic: "",
        messages: [],
        pushes: [],
      });
    }
    const bySubscription = new Map(pairs.map((p) => [p.subscription.id, p]));
    const strays: ArrivedPush[] = [];
    service.onPush((push) => {
      const pair = push.subscription ? bySubscription.get(push.subscription) : undefined;
      if (pair) pair.pushes.push(push);
      else strays.push(push);
    });
    await inPool(pairs, 16, (pair) =>
      api(base, pair.recipient, "/my/push/subscriptions", {
        endpoint: pair.subscription.endpoint,
        keys: pair.subscription.keys,
      }),
    );
    log(`${pairs.length} browsers subscribed through POST /my/push/subscriptions`);

    // The here recipients' member channel, before anything is sent to them.
    const herePairs = pairs.filter((p) => p.kind === "here");
    const awayPairs = pairs.filter((p) => p.kind === "away");
    let dropped = 0;
    let finished = false;
    let hereFrames = 0;
    await inPool(herePairs, 16, (pair) => {
      const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws/me`, {
        headers: { Cookie: pair.recipient.cookie, Origin: base },
      });
      sockets.push(ws);
      return new Promise<void>((resolve, reject) => {
        ws.addEventListener("open", () => resolve(), { once: true });
        ws.addEventListener("error", () => reject(new Error("/ws/me failed")), { once: true });
        ws.addEventListener("message", () => (hereFrames += 1));
        ws.addEventListener("close", () => {
          if (!finished) dropped += 1;
        });
      });
    });
    const hereSince = epochNow();
    pinger = setInterval(() => {
      for (const ws of sockets) if (ws.readyState === WebSocket.OPEN) ws.send('{"type":"ping"}');
    }, 20_000);
    if (herePairs.length > 0) log(`${herePairs.length} here recipients hold a /ws/me socket`);

    await inPool(pairs, 8, async (pair) => {
      const started = await api(base, pair.sender, "/chat/conversations", {
        user_id: pair.recipient.id,
        message: "hello",
      });
      pair.conversationId = (started.conversation as { id: string }).id;
      pair.tag = `conversation:${pair.conversationId}`;
      pair.topic = topicOf(pair.tag);
      await api(base, pair.recipient, `/chat/conversations/${pair.conversationId}/messages`, {
        message: "hi!",
      });
    });
    log(`${pairs.length} conversations started through the API`);

    // Warm-up: one message to every pair, and each away recipient's push for it; pairs whose
    // message failed (local workerd can run out of SQLite memory with thousands of objects awake
    // at once) or got no push are warmed again, up to three rounds.
    const warmedPair = (p: Pair) =>
      p.messages.some(
        (m) =>
          m.window === "warmup" &&
          m.stored !== null &&
          (p.kind === "here" || p.pushes.some((push) => push.at >= m.stored!)),
      );
    for (let round = 1; round <= 3; round++) {
      const cold = pairs.filter((p) => !warmedPair(p));
      if (cold.length === 0) break;
      const warm = await drive(base, cold.length, options.rate, (k) => cold[k]!, "warmup");
      const failed = warm.sent.filter((s) => s.status !== 201);
      const until = Date.now() + delayMs + 15_000;
      while (cold.some((p) => !warmedPair(p)) && Date.now() < until) await sleep(100);
      log(
        `warm-up round ${round}: ${cold.length} messages (${failed.length} failed` +
          `${failed.length ? ` ${JSON.stringify(kindsOf(failed))}` : ""}), ` +
          `${cold.filter(warmedPair).length}/${cold.length} pairs warm`,
      );
      if (failed.length > 0) await sleep(10_000);
    }
    await sleep(delayMs + 1000);
    // The hubs read their member's subscriptions, settings and the sender's name once (setup and
    // warm-up): what the call-stack attribution sees there shows it at work.
    const setupPushPath = pushPathDelta(await readPushPath(base), { statements: {}, stacks: {} });
    log(`push path's D1 statements in setup and warm-up:${setupPushPath.length ? "" : " none"}`);
    for (const s of setupPushPath) log(`  ${String(s.count).padStart(6)} × ${s.statement}`);

    // 1. The away window.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const random = seededRandom(20260428);
    const chooser = (among: Pair[]) =>
      options.order === "random"
        ? () => among[Math.floor(random() * among.length)]!
        : (k: number) => among[k % among.length]!;
    const awayCount = Math.round(options.rate * options.seconds);
    const d1Before = await readD1(base);
    const pushPathBefore = await readPushPath(base);
    const cpuBefore = cpu();
    const windowFrom = epochNow();
    loop.enable();
    log(`away window: ${awayCount} messages to ${awayPairs.length} pairs`);
    const away = await drive(base, awayCount, options.rate, chooser(awayPairs), "away");
    // Until every message is announced or past delay + grace, then a second more for strays.
    const lastStored = Math.max(...away.sent.map((s) => s.stored ?? 0));
    const pending = () =>
      awayPairs.some((pair) => {
        const stored = indexMessages(pair, windowFrom);
        const last = stored.at(-1);
        if (!last || last.window !== "away") return false;
        return !pair.pushes.some(
          (p) => p.at >= last.stored! && (countOf(p) ?? Infinity) >= last.index!,
        );
      });
    while (Date.now() < lastStored + delayMs + graceMs && pending()) await sleep(200);
    await sleep(Math.min(delayMs, 2000) + 1000);
    loop.disable();
    const awayCpu = cpu() - cpuBefore;
    const awayD1 = d1Delta(await readD1(base), d1Before);
    const awayPushPath = pushPathDelta(await readPushPath(base), pushPathBefore);
    const awayResult = analyseAway(awayPairs, delayMs, graceMs, windowFrom);
    const awayErrors = away.sent.filter((s) => s.status !== 201);
    const errorKinds = kindsOf(awayErrors);
    const answer = stats(
      away.sent.filter((s) => s.answered !== null).map((s) => s.answered! - s.tSend),
    );
    const lag = { p99: round(loop.percentile(99) / 1e6), max: round(loop.max / 1e6) };

    // 2. The here window: the same sends to members with a page open (no push may go).
    let here: {
      messages: number;
      errors: number;
      pushes: number;
      d1: D1Window;
      pushPath: ReturnType<typeof pushPathDelta>;
      cpuMsPerMessage: number | null;
      sendSeconds: number;
    } | null = null;
    if (herePairs.length > 0) {
      const count = Math.round(options.hereRate * options.hereSeconds);
      const hereD1Before = await readD1(base);
      const herePushPathBefore = await readPushPath(base);
      const hereCpuBefore = cpu();
      log(
        `here window: ${count} messages to ${herePairs.length} pairs at ${round(options.hereRate)} msg/s`,
      );
      const sent = await drive(base, count, options.hereRate, chooser(herePairs), "here");
      await sleep(delayMs + graceMs);
      here = {
        messages: sent.sent.filter((s) => s.status === 201).length,
        errors: sent.sent.filter((s) => s.status !== 201).length,
        pushes: 0,
        cpuMsPerMessage: 0,
        d1: d1Delta(await readD1(base), hereD1Before),
        pushPath: pushPathDelta(await readPushPath(base), herePushPathBefore),
        sendSeconds: sent.sendSeconds,
      };
      here.cpuMsPerMessage = round(((cpu() - hereCpuBefore) * 1000) / Math.max(1, count));
    }
    const herePushes = herePairs.flatMap((p) => p.pushes.filter((push) => push.at >= hereSince));
    if (here) here.pushes = herePushes.length;
    finished = true;

    // Figures.
    const awayMessages = away.sent.filter((s) => s.status === 201).length;
    const problems = checkPushes(pairs);
    const statementKeys = [
      ...new Set([...Object.keys(awayD1.statements), ...Object.keys(here?.d1.statements ?? {})]),
    ];
    const statementDiff = statementKeys
      .map((sql) => {
        const awayPer = (awayD1.statements[sql] ?? 0) / Math.max(1, awayMessages);
        const herePer = here ? (here.d1.statements[sql] ?? 0) / Math.max(1, here.messages) : NaN;
        return {
          statement: sql,
          away_per_message: round(awayPer, 3),
          here_per_message: round(herePer, 3),
          difference: round(awayPer - herePer, 3),
          away_total: awayD1.statements[sql] ?? 0,
        };
      })
      .sort((a, b) => (b.away_per_message ?? 0) - (a.away_per_message ?? 0));
    // Beyond the send's own: what the away window ran more than the here window's rate of each
    // statement would make of its messages (the push path's statements).
    const beyond = here
      ? statementDiff
          .map((s) => ({
            statement: s.statement,
            total: round(s.away_total - (s.here_per_message ?? 0) * awayMessages, 1),
          }))
          .filter((s) => (s.total ?? 0) >= 0.5)
      : [];
    const beyondTotal = beyond.reduce((n, s) => n + (s.total ?? 0), 0);

    const lat = awayResult.latency_ms;
    const ann = awayResult.announced_latency_ms;
    console.log("");
    console.log(
      `away pushes: ${options.away} members away, ${options.rate} msg/s for ${options.seconds} s ` +
        `(${options.order}), AWAY_PUSH_DELAY_SECONDS ${options.delay} (workerd, inspector off, ` +
        `${worker.route}; ${cpus().length} cores; load ${loadavg()[0]!.toFixed(2)})`,
    );
    console.log(
      `  stored → push arrived   p50 ${fmt(lat.p50)}  p90 ${fmt(lat.p90)}  p99 ${fmt(lat.p99)}  ` +
        `max ${fmt(lat.max)} ms  (${lat.n} messages)`,
    );
    console.log(
      `  p99 beyond the delay    ${fmt(awayResult.p99_beyond_delay_ms)} ms ` +
        `(goal ≤ 1000: ${(awayResult.p99_beyond_delay_ms ?? Infinity) <= 1000 ? "met" : "NOT met"})`,
    );
    console.log(
      `  stored → push counting it  p50 ${fmt(ann.p50)}  p90 ${fmt(ann.p90)}  p99 ${fmt(ann.p99)}  ` +
        `max ${fmt(ann.max)} ms`,
    );
    const { at_once: once, folded } = awayResult.lateness_ms;
    console.log(
      `  push late vs due: at once (${once.n}) p50 ${fmt(once.p50)} p99 ${fmt(once.p99)} max ` +
        `${fmt(once.max)} ms; folded (${folded.n}) p50 ${fmt(folded.p50)} p99 ${fmt(folded.p99)} ` +
        `max ${fmt(folded.max)} ms`,
    );
    console.log(
      `  messages ${awayMessages} (errors ${awayErrors.length}${awayErrors.length ? ` ${JSON.stringify(errorKinds)}` : ""}), ` +
        `pushes ${awayResult.pushes}: ${fmt(awayResult.messagesPerPush, 2)} messages a push; ` +
        `lost ${awayResult.lost}, doubled ${awayResult.doubled}, ` +
        `arrival gaps under the delay ${awayResult.tooSoon} (shortest ${fmt(awayResult.minIntervalMs)} ms)` +
        `${awayResult.uncounted ? `, count unreadable ${awayResult.uncounted}` : ""}`,
    );
    for (const l of awayResult.lostExamples) {
      console.log(`    lost: ${l.conversation} message #${l.index} stored ${l.stored}`);
    }
    for (const d of awayResult.doubledExamples) console.log(`    doubled: ${d}`);
    console.log(
      `  send answered (201) p50 ${fmt(answer.p50)} p99 ${fmt(answer.p99)} max ${fmt(answer.max)} ms;` +
        ` sending fell behind ${away.late} times; the bench's event loop lag p99 ${fmt(lag.p99, 1)} ` +
        `max ${fmt(lag.max, 1)} ms; workerd CPU ${fmt((awayCpu * 1000) / Math.max(1, awayMessages), 2)} ms/msg`,
    );
    const problemList = Object.entries(problems);
    console.log(
      `  push problems: ${problemList.length ? problemList.map(([k, v]) => `${k} ×${v}`).join(", ") : "none"}` +
        `${strays.length ? `; ${strays.length} pushes to unknown endpoints` : ""}; ` +
        `${service.pushes.length} pushes over ${service.connections} TLS connections in the run`,
    );
    console.log(
      `  workerd: peak RSS ${fmt(peak.rssMb)} MB, peak open Durable Object databases ${peak.sqliteFiles}`,
    );
    const behind = away.late > awayCount / 100 || (answer.p99 ?? 0) > 1000 || awayErrors.length > 0;
    if (behind) {
      console.log(
        `  WARNING: the Worker did not keep up with ${options.rate} msg/s here (sends answered ` +
          `p99 ${fmt(answer.p99)} ms, ${awayErrors.length} failed, sending fell behind ${away.late} ` +
          `times): the latencies above include its queueing, not the push path's alone`,
      );
    }
    const awayPerMsg = perN(awayD1, awayMessages);
    const awayPerPush = perN(awayD1, awayResult.pushes);
    console.log(
      `  D1 (away window): ${awayD1.reads} reads, ${awayD1.writes} writes; per message ` +
        `${awayPerMsg.reads} reads ${awayPerMsg.writes} writes; per push ${awayPerPush.reads} reads ` +
        `${awayPerPush.writes} writes`,
    );
    if (here) {
      const herePerMsg = perN(here.d1, here.messages);
      console.log(
        `here: ${options.here} members with /ws/me, ${here.messages} messages (errors ${here.errors}): ` +
          `pushes ${here.pushes} (must be 0); sockets dropped ${dropped}, frames ${hereFrames}; ` +
          `D1 per message ${herePerMsg.reads} reads ${herePerMsg.writes} writes; workerd CPU ` +
          `${fmt(here.cpuMsPerMessage, 2)} ms/msg`,
      );
    }
    console.log("  D1 statements per message: away | here | difference");
    for (const s of statementDiff) {
      console.log(
        `    ${fmt(s.away_per_message, 3).padStart(6)} | ${fmt(s.here_per_message, 3).padStart(6)} | ` +
          `${fmt(s.difference, 3).padStart(6)}  ${s.statement}`,
      );
    }
    if (here) {
      console.log(
        `  away beyond here's rate of each statement: ${fmt(beyondTotal, 1)} statements, ` +
          `${fmt(beyondTotal / Math.max(1, awayResult.pushes), 3)} per push` +
          (beyond.length ? ":" : ""),
      );
      for (const s of beyond) console.log(`    ${fmt(s.total, 1).padStart(8)} × ${s.statement}`);
    }
    const pathTotal = awayPushPath.reduce((n, s) => n + s.count, 0);
    console.log(
      `  on the push path (by call stack), away window: ${pathTotal} statements, ` +
        `${fmt(pathTotal / Math.max(1, awayResult.pushes), 3)} per push` +
        (here ? `; here window: ${here.pushPath.reduce((n, s) => n + s.count, 0)}` : "") +
        (awayPushPath.length ? ":" : ""),
    );
    for (const s of awayPushPath) {
      console.log(`    ${String(s.count).padStart(8)} × ${s.statement}`);
      console.log(`             from ${s.stack.slice(0, 6).join(" ← ")}`);
    }

    const result = {
      options,
      runtime: `workerd, inspector off, local D1/DO, 127.0.0.1, ${worker.route}`,
      cores: cpus().length,
      load_average: loadavg()[0],
      workerd_peak: peak,
      push_service_tls_connections: service.connections,
      away: {
        ...awayResult,
        errors: awayErrors.length,
        error_kinds: errorKinds,
        send_seconds: round(away.sendSeconds),
        sending_fell_behind: away.late,
        worker_kept_up: !behind,
        send_answered_ms: answer,
        event_loop_lag_ms: lag,
        cpu_ms_per_message: round((awayCpu * 1000) / Math.max(1, awayMessages)),
        d1: {
          ...awayD1,
          per_message: awayPerMsg,
          per_push: awayPerPush,
        },
      },
      here: here
        ? {
            ...here,
            sockets_dropped: dropped,
            frames: hereFrames,
            d1: { ...here.d1, per_message: perN(here.d1, here.messages) },
          }
        : null,
      push_problems: problems,
      stray_pushes: strays.length,
      statements_per_message: statementDiff,
      push_path_by_stack: {
        setup_and_warm_up: setupPushPath,
        away: awayPushPath,
        away_total: pathTotal,
        away_per_push: round(pathTotal / Math.max(1, awayResult.pushes), 3),
        here: here?.pushPath ?? null,
      },
      away_beyond_here: here
        ? {
            total: round(beyondTotal, 1),
            per_push: round(beyondTotal / Math.max(1, awayResult.pushes), 3),
            statements: beyond,
          }
        : null,
    };
    if (options.json) {
      await writeFile(options.json, `${JSON.stringify(result, null, 2)}\n`);
      log(`figures written to ${options.json}`);
    }
  } finally {
    clearInterval(pinger);
    clearInterval(sampler);
    for (const ws of sockets) ws.close(1000, "bench done");
    await agent.destroy();
    await worker.dispose();
    await service.close();
  }
}

await main();
