/**
 * bench/storm: a deploy's reconnect storm (issue #29). Members are online with the app's own
 * client code, then workerd restarts with a new build version, as a deploy does, and every tab
 * comes back by itself: how long until 99 % of the sockets are back and caught up, what was lost
 * or duplicated, what reloaded, and what D1 paid for it. This tree and the tree before socket
 * tickets (`--compare-ref`, 7cbd9f1 by default: "today's figures") run in the same run, in turn.
 *
 *   npm run build && npx tsx bench/storm/run.ts --members N [--json FILE] [options]
 *
 *   --members N        members online (default 100): each has a tab with the member channel and
 *                      presence (watching --watch members, default 10); one in ten (in pairs) also
 *                      has a conversation open
 *   --message-every S  each pair writes a message every S seconds, its members taking turns, before,
 *                      during and after the restart (default 5)
 *   --before S         seconds of messages before the restart (default 10)
 *   --after S          seconds of messages after every socket is back (default 10)
 *   --timeout S        how long the storm may last before the bench stops waiting (default 120)
 *   --compare-ref REF  the earlier tree run first, with its own client code (default 7cbd9f1;
 *                      `none`: this tree only)
 *   --rounds N         REF and this tree N times each, alternating (default 1)
 *   --clients N        client processes holding the tabs (default one per 1,500 members)
 *   --json FILE        also write the figures as JSON
 *
 * How it runs, per tree: fresh local state under benchStateRoot() (tmpfs); the D1 migrations;
 * members with verified emails, sessions and profiles written straight into D1
 * (bench/chat/members.ts); the tree's Worker with its D1 counted (bench/chat/d1-counting-worker.ts:
 * statements by entry point, and those made under a websocket upgrade) in workerd as `wrangler dev`
 * runs it, inspector off, behind a TCP forwarder on a fixed port (bench/storm/forwarder.ts: the
 * address the tabs know, as a browser knows the domain); the pairs' conversations started through
 * the API. Client processes (bench/storm/client.ts) open the tabs: each loads the page's root data
 * (`/?_data=root`: the CSRF token, build version and, where the tree has them, the socket ticket)
 * and runs a fresh instance of the tree's client modules (bench/storm/tab.ts, bundled here against
 * that tree). Once every tab is up and messages have flowed for --before seconds, the restart: the
 * forwarder drops every connection and refuses new ones, workerd stops, the build's version is
 * changed, workerd starts again on the same state, the forwarder points at it. The tabs reconnect
 * with their own backoff. A socket is back when the member channel reopened and the page reloaded
 * its notifications (as RealtimeProvider does), when presence answered the page's watch set, and
 * for a conversation when its socket reopened, the page caught up and held every message the other
 * member wrote before the restart. D1 is counted from the new workerd's start until every socket
 * is back (or the timeout). After --after more seconds of messages the sending stops; once every
 * page has sent what waited, each recipient's page is compared with what the other member wrote:
 * lost (not held), duplicated (held twice), out of order.
 */
import { fork, type ChildProcess } from "node:child_process";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import type { D1Counts } from "../chat/d1-counting-worker";
import { seedMembers, type Member } from "../chat/members";
import { commandLine } from "../lib/args";
import {
  d1Counts,
  prepareCountingWorker,
  startConversations,
  startOwnWorker,
} from "../lib/heartline";
import { buildRef } from "../lib/ref";
import {
  BenchState,
  benchStateRoot,
  cpuSecondsOf,
  percentile,
  residentMbOf,
  ROOT,
} from "../lib/worker";
import { sleep } from "../../scripts/lib/wait";
import type { Command, Event, PairOutcome, Report, SocketKind, TabSpec } from "./client";
import { startForwarder, type Forwarder } from "./forwarder";

interface Options {
  members: number;
  messageEvery: number;
  before: number;
  after: number;
  timeout: number;
  watch: number;
  compareRef: string | null;
  rounds: number;
  clients: number;
  json?: string;
}

function parseArgs(argv: string[]): Options {
  const { value, number } = commandLine(argv);
  const members = number("members", 100, { whole: true });
  if (members < 20) throw new Error("--members must be at least 20");
  const ref = value("compare-ref") ?? "7cbd9f1";
  return {
    members,
    messageEvery: number("message-every", 5),
    before: number("before", 10, { zero: true }),
    after: number("after", 10, { zero: true }),
    timeout: number("timeout", 120),
    watch: number("watch", 10, { whole: true, zero: true }),
    compareRef: ref === "none" ? null : ref,
    rounds: number("rounds", 1, { whole: true }),
    clients: number("clients", Math.max(1, Math.ceil(members / 1500)), { whole: true }),
    json: value("json"),
  };
}

const log = (message: string) => console.log(`[bench] ${message}`);
const round = (n: number, d = 2) => Number(n.toFixed(d));

interface Tree {
  label: string;
  root: string;
}

/**
 * Modules a tree from before them lacks, as that tree's pages behaved: no socket ticket to set,
 * and the notifications loaded on every opening of the member channel.
 */
const OLDER_TREE_STUBS: Record<string, string> = {
  "~/realtime/ticket": "export function setSocketTicket() {}",
  "~/realtime/bell":
    "export function bellSync(reload) { return { opened: reload, frame() {}, stop() {} }; }",
};

/**
 * bench/storm/tab.ts bundled against `tree` (`~/` is its app/), partysocket inside (it must see
 * each tab's WebSocket), other packages left to the client's require. A tree without socket
 * tickets or the bell's hello gets the stubs of OLDER_TREE_STUBS.
 */
async function bundleTab(tree: Tree, out: string) {
  const app = path.join(tree.root, "app");
  const resolveApp: Plugin = {
    name: "tree-app",
    setup(b) {
      b.onResolve({ filter: /^~\// }, (args) => {
        const base = path.join(app, args.path.slice(2));
        for (const candidate of [`${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
          if (existsSync(candidate)) return { path: candidate };
        }
        const stub = OLDER_TREE_STUBS[args.path];
        if (stub) return { path: args.path, namespace: "older-tree" };
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: "older-tree" }, (args) => ({
        contents: OLDER_TREE_STUBS[args.path],
        loader: "ts",
      }));
      b.onResolve({ filter: /^[^./~]/ }, (args) =>
        args.path.startsWith("partysocket") ? undefined : { path: args.path, external: true },
      );
    },
  };
  await build({
    entryPoints: [fileURLToPath(new URL("./tab.ts", import.meta.url))],
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    outfile: out,
    plugins: [resolveApp],
    logLevel: "error",
  });
}

/** Changes the build version of the Worker snapshot in `s`, as a deploy of a new build does. */
async function newVersion(s: BenchState, suffix: string): Promise<string> {
  const file = path.join(s.sourceDir, "build", "server", "index.js");
  const code = await readFile(file, "utf8");
  const match = /url:"\/assets\/manifest-([0-9a-f]+)\.js",version:"([^"]+)"/.exec(code);
  if (!match) throw new Error("the build's version was not found in build/server/index.js");
  const version = `${match[1]}${suffix}`;
  await writeFile(
    file,
    code.replace(match[0], match[0].replace(`version:"${match[2]}"`, `version:"${version}"`)),
  );
  return version;
}

/** Random members (not `self`), `count` of them, `first` among them when given. */
function pick(members: Member[], self: number, count: number, first?: Member): string[] {
  const ids = new Set<string>(first ? [first.id] : []);
  while (ids.size < Math.min(count, members.length - 1)) {
    const k = Math.floor(Math.random() * members.length);
    if (k !== self) ids.add(members[k]!.id);
  }
  return [...ids];
}

export interface StormResult {
  tree: string;
  members: number;
  sockets: number;
  /** Seconds from the restart until 99 % of the sockets were back and caught up (null: never). */
  seconds_to_99: number | null;
  seconds_to_100: number | null;
  /** seconds_to_99 counted from when the new workerd answered (the outage left out). */
  seconds_to_99_after_up: number | null;
  /** Seconds the app was down: from the restart until the new workerd answered. */
  outage_seconds: number;
  back_by_kind: Record<SocketKind, { sockets: number; back: number; p50: number; p99: number }>;
  lost_messages: number;
  /** The first 20 lost messages: when written (ms after the restart), what the two pages hold. */
  lost_detail: PairOutcome["lostDetail"];
  duplicated_messages: number;
  out_of_order_messages: number;
  unsent_messages: number;
  messages_written: number;
  full_reloads: number;
  app_updated_events: number;
  d1_statements: number;
  d1_per_member: number;
  upgrades: number;
  d1_upgrade_statements: number;
  d1_per_upgrade: number;
  d1_by_entry: Record<string, number>;
  d1_by_statement: Record<string, number>;
  failures: Record<string, number>;
  workerd_cpu_seconds: number;
  client_cpu_seconds: number;
  workerd_rss_mb: number;
  load_average: [number, number];
}

async function runStorm(options: Options, tree: Tree, stateName: string): Promise<StormResult> {
  const n = options.members;
  const pairs = Math.max(1, Math.floor(n / 20));
  const state = new BenchState(stateName, { root: tree.root });
  log(`${tree.label}: ${n} members, ${pairs} conversations, ${options.clients} client processes`);
  await state.reset();
  const members = await seedMembers(n, [state]);
  await prepareCountingWorker(state);
  const bundle = path.join(state.dir, "tab.cjs");
  await bundleTab(tree, bundle);
  const vars = { APP_ENV: "development" };

  const forwarder: Forwarder = await startForwarder();
  let worker = await startOwnWorker(state, { vars });
  forwarder.to(worker.worker.url);
  const clients: ChildProcess[] = [];
  const readyTabs = new Set<number>();
  const back = new Map<string, number>();
  const failures = new Map<string, number>();
  const collected: Extract<Report, { t: "collected" }>[] = [];
  try {
    const conversations = await startConversations(forwarder.url, members, pairs);
    log(`Worker on ${worker.worker.url} behind ${forwarder.url}; ${pairs} conversations started`);

    const specs: TabSpec[] = members.map((m, i) => {
      const pair = i < 2 * pairs ? Math.floor(i / 2) : null;
      const other = pair === null ? null : i % 2 === 0 ? i + 1 : i - 1;
      return {
        i,
        id: m.id,
        cookie: m.cookie,
        watch: pick(members, i, options.watch, other === null ? undefined : members[other]),
        conversation:
          pair === null
            ? undefined
            : { id: conversations[pair]!, otherId: members[other!]!.id, other: other! },
      };
    });
    const kinds = (spec: TabSpec): SocketKind[] =>
      spec.conversation ? ["member", "presence", "chat"] : ["member", "presence"];
    const sockets = specs.reduce((total, s) => total + kinds(s).length, 0);
    const clientOf = (spec: TabSpec) =>
      (spec.conversation ? Math.floor(spec.i / 2) : spec.i) % options.clients;

    for (let c = 0; c < options.clients; c++) {
      const child = fork(fileURLToPath(new URL("./client.ts", import.meta.url)), [], {
        execArgv: ["--no-warnings", "--import", "tsx"],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      child.on("message", (r: Report) => {
        if (r.t === "collected") {
          collected.push(r);
          return;
        }
        for (const e of r.events as Event[]) {
          if (e[0] === "ready") readyTabs.add(e[1]);
          else if (e[0] === "back") back.set(`${e[1]} ${e[2]}`, e[3]);
          else {
            const kind = e[2].replace(/[0-9a-f-]{16,}/g, "…").slice(0, 120);
            failures.set(kind, (failures.get(kind) ?? 0) + 1);
          }
        }
      });
      const init: Command = { t: "init", bundle, treeRoot: tree.root, origin: forwarder.url };
      child.send(init);
      clients.push(child);
    }
    const send = (c: number, command: Command) => clients[c]!.send(command);
    const all = (command: Command) => clients.forEach((_, c) => send(c, command));
    for (let c = 0; c < options.clients; c++) {
      send(c, { t: "open", tabs: specs.filter((s) => clientOf(s) === c) });
    }
    const openStarted = Date.now();
    while (readyTabs.size < n) {
      if (Date.now() - openStarted > 15 * 60_000) {
        throw new Error(`only ${readyTabs.size} of ${n} tabs opened in 15 minutes`);
      }
      await sleep(500);
    }
    log(`${n} tabs up (${sockets} sockets) in ${((Date.now() - openStarted) / 1000).toFixed(1)} s`);

    all({ t: "send", everyMs: options.messageEvery * 1000 });
    await sleep(options.before * 1000);

    // The deploy: every connection drops, workerd restarts with a new version on the same state.
    const loadBefore = loadavg()[0]!;
    const stormAt = Date.now();
    all({ t: "storm", at: stormAt });
    forwarder.cut();
    await worker.worker.dispose();
    const version = await newVersion(state, "-next");
    worker = await startOwnWorker(state, { vars });
    forwarder.to(worker.worker.url);
    const outage = (Date.now() - stormAt) / 1000;
    const cpuFrom = cpuSecondsOf("workerd", worker.pids);
    log(`restarted as version ${version} in ${outage.toFixed(1)} s (${worker.worker.url})`);

    const target99 = Math.ceil(0.99 * sockets);
    let last = 0;
    while (back.size < sockets && Date.now() - stormAt < options.timeout * 1000) {
      await sleep(250);
      if (Date.now() - last > 5000) {
        last = Date.now();
        // A workerd that died after its start is said, not waited for.
        const alive = await fetch(`${worker.worker.url}/favicon.svg`, {
          signal: AbortSignal.timeout(3000),
        }).then(
          (res) => res.status,
          (error: unknown) => String((error as { cause?: unknown }).cause ?? error),
        );
        if (alive !== 200) log(`  the Worker does not answer: ${alive}`);
        log(`  ${((Date.now() - stormAt) / 1000).toFixed(0)} s: ${back.size} of ${sockets} back`);
      }
    }
    // A Worker that stopped answering (local workerd out of SQLite memory with thousands of
    // Durable Objects waking at once) has no counts to give: the figures say so.
    const d1: D1Counts | null = await d1Counts(worker.worker.url).catch(() => null);
    if (!d1) log("the Worker did not answer for its D1 counts");
    const workerdCpu = cpuSecondsOf("workerd", worker.pids) - cpuFrom;
    const rss = residentMbOf("workerd");
    const loadAfter = loadavg()[0]!;
    const times = [...back.values()].map((t) => (t - stormAt) / 1000).sort((a, b) => a - b);
    log(`storm over: ${back.size} of ${sockets} back; messages for ${options.after} s more`);

    await sleep(options.after * 1000);
    all({ t: "send", everyMs: 0 });
    // Every page sends what waited and every recipient holds it, or 30 s pass.
    const drainUntil = Date.now() + 30_000;
    let pairsOut: PairOutcome[] = [];
    for (;;) {
      collected.length = 0;
      all({ t: "collect" });
      while (collected.length < clients.length) await sleep(50);
      pairsOut = collected.flatMap((c) => c.pairs);
      const settled = pairsOut.every((p) => p.lost === 0 && p.unsent === 0);
      if (settled || Date.now() > drainUntil) break;
      await sleep(1000);
    }
    const sum = (f: (p: PairOutcome) => number) => pairsOut.reduce((t, p) => t + f(p), 0);

    const byKind = {} as StormResult["back_by_kind"];
    for (const kind of ["member", "presence", "chat"] as const) {
      const total = specs.filter((s) => kinds(s).includes(kind)).length;
      const ts = [...back.entries()]
        .filter(([key]) => key.endsWith(` ${kind}`))
        .map(([, t]) => (t - stormAt) / 1000)
        .sort((a, b) => a - b);
      byKind[kind] = {
        sockets: total,
        back: ts.length,
        p50: round(percentile(ts, 50)),
        p99: round(percentile(ts, 99)),
      };
    }
    const statements = d1 ? d1.reads + d1.writes : NaN;
    const top = (record: Record<string, number>) =>
      Object.fromEntries(
        Object.entries(record)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 15),
      );
    return {
      tree: tree.label,
      members: n,
      sockets,
      seconds_to_99: times.length >= target99 ? round(times[target99 - 1]!, 1) : null,
      seconds_to_100: times.length >= sockets ? round(times[sockets - 1]!, 1) : null,
      seconds_to_99_after_up:
        times.length >= target99 ? round(times[target99 - 1]! - outage, 1) : null,
      outage_seconds: round(outage, 1),
      back_by_kind: byKind,
      lost_messages: sum((p) => p.lost),
      lost_detail: pairsOut.flatMap((p) => p.lostDetail).slice(0, 20),
      duplicated_messages: sum((p) => p.duplicated),
      out_of_order_messages: sum((p) => p.outOfOrder),
      unsent_messages: sum((p) => p.unsent),
      messages_written: sum((p) => p.written),
      full_reloads: collected.reduce((t, c) => t + c.reloads, 0),
      app_updated_events: collected.reduce((t, c) => t + c.appUpdated, 0),
      d1_statements: statements,
      d1_per_member: round(statements / n),
      upgrades: d1?.upgrades ?? NaN,
      d1_upgrade_statements: d1?.upgradeStatements ?? NaN,
      d1_per_upgrade: d1 ? round(d1.upgradeStatements / Math.max(1, d1.upgrades)) : NaN,
      d1_by_entry: top(d1?.entries ?? {}),
      d1_by_statement: top(d1?.statements ?? {}),
      failures: Object.fromEntries(failures),
      workerd_cpu_seconds: round(workerdCpu, 1),
      client_cpu_seconds: round(
        collected.reduce((t, c) => t + c.cpuSeconds, 0),
        1,
      ),
      workerd_rss_mb: Math.round(rss),
      load_average: [round(loadBefore), round(loadAfter)],
    };
  } finally {
    for (const c of clients) c.send({ t: "exit" } satisfies Command);
    await sleep(300);
    for (const c of clients) c.kill();
    await worker.worker.dispose();
    await forwarder.close();
  }
}

const show = (n: number | null) => (n === null ? "never" : String(n));
/** A count, or "no answer" where the Worker gave none. */
const count = (n: number) => (Number.isFinite(n) ? n.toLocaleString("en") : "no answer");

function table(results: StormResult[]): string {
  const rows = [
    "| tree | members | sockets | seconds to 99 % (100 %) | outage | 99 % after the outage | lost | duplicated | reloads | D1 statements | D1 per member | D1 per upgrade | upgrades | workerd CPU |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const r of results) {
    rows.push(
      `| ${r.tree} | ${r.members.toLocaleString("en")} | ${r.sockets.toLocaleString("en")} | ` +
        `${show(r.seconds_to_99)} (${show(r.seconds_to_100)}) s | ${r.outage_seconds} s | ` +
        `${show(r.seconds_to_99_after_up)} s | ` +
        `${r.lost_messages} of ${r.messages_written} | ${r.duplicated_messages} | ${r.full_reloads} | ` +
        `${count(r.d1_statements)} | ${count(r.d1_per_member)} | ${count(r.d1_per_upgrade)} | ` +
        `${count(r.upgrades)} | ${r.workerd_cpu_seconds} s |`,
    );
  }
  return rows.join("\n");
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const here: Tree = { label: "this tree", root: ROOT };
  const trees: { tree: Tree; state: string }[] = [];
  if (options.compareRef) {
    const ref = await buildRef(options.compareRef, benchStateRoot(), log);
    const before: Tree = {
      label: `${options.compareRef} (${ref.sha.slice(0, 10)})`,
      root: ref.root,
    };
    for (let r = 0; r < options.rounds; r++) {
      trees.push({ tree: before, state: "storm-ref" }, { tree: here, state: "storm" });
    }
  } else {
    for (let r = 0; r < options.rounds; r++) trees.push({ tree: here, state: "storm" });
  }
  await mkdir(benchStateRoot(), { recursive: true });
  const results: StormResult[] = [];
  for (const { tree, state } of trees) {
    const result = await runStorm(options, tree, state);
    console.log(JSON.stringify(result));
    results.push(result);
  }
  console.log("");
  console.log(
    `deploy storm, ${options.members} members, a message per pair every ${options.messageEvery} s ` +
      `(${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB; workerd with the inspector off)`,
  );
  console.log(table(results));
  const ours = results.filter((r) => r.tree === here.label).at(-1)!;
  const goals = [
    ["seconds_to_99 ≤ 15", ours.seconds_to_99 !== null && ours.seconds_to_99 <= 15],
    ["0 lost", ours.lost_messages === 0],
    ["0 duplicated", ours.duplicated_messages === 0],
    ["0 reloads", ours.full_reloads === 0],
    ["d1_per_upgrade 0", ours.d1_per_upgrade === 0],
    ["d1_per_member ≤ 1", ours.d1_per_member <= 1],
  ] as const;
  for (const [goal, met] of goals) console.log(`${goal}: ${met ? "met" : "NOT met"}`);
  if (options.json) {
    const json = {
      ...ours,
      cores: cpus().length,
      message_every_seconds: options.messageEvery,
      runs: results,
    };
    await writeFile(options.json, `${JSON.stringify(json, null, 2)}\n`);
  }
}

await main();
