/**
 * bench/profile: where the Worker's CPU goes for one kind of request, from V8's sampling profiler.
 *
 *   npm run build && npx tsx bench/profile/run.ts [options]
 *
 *   --kind K        csrf (a signed-in `GET /csrf-token`, the floor under every API call; default),
 *                   chat (`POST /chat/conversations/{id}/messages`, a text message), search
 *                   (`POST /my/matches/search`, no filters), or get (`GET --path`)
 *   --path P        the page or API path of `--kind get` (default /csrf-token)
 *   --requests N    requests profiled (default 2000), one at a time, after --warmup N (default 300)
 *   --interval US   the sampling interval in microseconds (default 50)
 *   --top N         rows of each table (default 25)
 *   --root DIR      the built checkout whose Worker runs (default this one: another commit's
 *                   worktree, after its `npm run build`, profiles that commit with this tool)
 *   --state DIR     a benchmark state to run on (its persist/ folder is used as it is: a copy of
 *                   bench/search's at 100,000 members, say); default a fresh one under
 *                   benchStateRoot()/profile/
 *   --json FILE     also write the tables as JSON
 *
 * How it runs: the Worker of `--root` in workerd as bench/lib/worker.ts starts it, but with the
 * inspector on; two members with verified emails, profiles and long sessions written straight
 * into D1, and a conversation between them started through the API; then it connects to the
 * Worker isolate's inspector over the DevTools protocol, runs the warm-up, `Profiler.start`s,
 * sends the requests one at a time, `Profiler.stop`s and sums the samples. Positions map through
 * the bundle's source map to the sources (app/, worker/, node_modules/<package>; the Remix
 * build is one file, build/server/index.js). It prints the workerd CPU per request (thread
 * schedstat, as bench/search reports it) and, per request: self and total time by function, and
 * by file and by package (bottom-up: the time spent in a file's own code, and the time with a
 * file's code anywhere on the stack). The Durable Objects run in the same isolate, so a chat
 * send's room call is in the profile; local D1's SQLite runs outside V8 and shows as the
 * difference between workerd's CPU and the profiled time. The inspector itself slows calls a
 * little: compare profiles with profiles, and time with bench/search and bench/chat.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { BENCH_APP_KEY, BenchState, cpuClockOf, ROOT, startWorker } from "../lib/worker";
import { commandLine } from "../lib/args";
import { connectInspector } from "../lib/inspector";
import { decodeSourceMap, type SourceMapLookup } from "./source-map";

type Kind = "csrf" | "chat" | "search" | "get";

function parseArgs(argv: string[]) {
  const { value, number } = commandLine(argv);
  const kind = (value("kind") ?? "csrf") as Kind;
  if (!["csrf", "chat", "search", "get"].includes(kind)) {
    throw new Error("--kind must be csrf, chat, search or get");
  }
  return {
    kind,
    path: value("path") ?? "/csrf-token",
    requests: number("requests", 2000, { whole: true }),
    warmup: number("warmup", 300, { whole: true, zero: true }),
    interval: number("interval", 50, { whole: true }),
    top: number("top", 25, { whole: true }),
    root: path.resolve(value("root") ?? ROOT),
    stateDir: value("state"),
    json: value("json"),
  };
}

interface Member {
  id: string;
  cookie: string;
  csrf: string;
}

/** Two verified members with a profile and a session each, written straight into D1. */
async function seedMembers(state: BenchState): Promise<Member[]> {
  const now = new Date().toISOString();
  const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const members: Member[] = [];
  const lines: string[] = [];
  for (let i = 0; i < 2; i++) {
    const id = `profile${i}${randomBytes(6).toString("hex")}`;
    const token = randomBytes(32).toString("base64url");
    const hash = createHash("sha256").update(token).digest("hex");
    const secret = randomBytes(32).toString("base64url");
    lines.push(
      `INSERT INTO users (id, username, email, password_hash, email_verified_at, last_seen_at) VALUES ('${id}', 'profile_${id.slice(-8)}', '${id}@profile.test', 'unused', '${now}', '${now}');`,
      `INSERT INTO profiles (user_id, first_name, date_of_birth, gender, age_min, age_max, country_code) VALUES ('${id}', 'Profile', '1990-01-01', 'woman', 18, 99, 'US');`,
      `INSERT INTO sessions (id_hash, user_id, remember, created_at, last_active_at, expires_at) VALUES ('${hash}', '${id}', 1, '${now}', '${now}', '${expires}');`,
    );
    members.push({
      id,
      cookie: `heartline_session=${token}; heartline_csrf=${secret}`,
      csrf: createHmac("sha256", BENCH_APP_KEY).update(`csrf:${secret}`).digest("base64url"),
    });
  }
  await state.executeSql("profile-seed.sql", lines);
  return members;
}

async function call(
  base: string,
  member: Member,
  method: string,
  pathname: string,
  body?: unknown,
) {
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: {
      Cookie: member.cookie,
      Accept: "application/json",
      ...(method === "GET" ? {} : { "X-CSRF-Token": member.csrf }),
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300)
    throw new Error(`${method} ${pathname}: ${res.status} ${text.slice(0, 300)}`);
  return text;
}

interface ProfileNode {
  id: number;
  callFrame: {
    functionName: string;
    url: string;
    lineNumber: number;
    columnNumber: number;
  };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** What the V8 profiler calls the time outside JavaScript. */
const PSEUDO = new Set(["(program)", "(idle)", "(garbage collector)", "(root)"]);

/** The bundle's file name (only its frames map through it) and its source map. */
interface BundleMap {
  file: string;
  lookup: SourceMapLookup;
}

interface Frame {
  fn: string;
  file: string;
  pkg: string;
}

/** The file a position comes from: a path under the checkout, or `node_modules/<package>/…`. */
function sourceFile(source: string): string {
  const clean = source.replace(/^file:\/\//, "").replace(/^webpack:\/\//, "");
  const modules = clean.lastIndexOf("node_modules/");
  if (modules >= 0) return clean.slice(modules);
  for (const marker of ["/app/", "/worker/", "/durable-objects/", "/build/", "/bench/"]) {
    const at = clean.lastIndexOf(marker);
    if (at >= 0) return clean.slice(at + 1);
  }
  return clean;
}

function packageOf(file: string): string {
  // drizzle-orm's published source maps point at ../src beside the package.
  if (file.startsWith("node_modules/src/")) return "drizzle-orm";
  const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (match) return match[1]!;
  return file.split("/")[0] ?? file;
}

function frameOf(node: ProfileNode, map: BundleMap | null): Frame {
  const { functionName, url, lineNumber, columnNumber } = node.callFrame;
  if (PSEUDO.has(functionName) || (!url && functionName.startsWith("("))) {
    return { fn: functionName, file: functionName, pkg: functionName };
  }
  const name = functionName || "(anonymous)";
  const original = map && url.endsWith(map.file) ? map.lookup(lineNumber, columnNumber) : null;
  if (original) {
    const file = sourceFile(original.source);
    return { fn: `${name} ${file}:${original.line + 1}`, file, pkg: packageOf(file) };
  }
  const file = url ? sourceFile(url) : "(native)";
  return {
    fn: `${name} ${file}${url ? `:${lineNumber + 1}` : ""}`,
    file,
    pkg: url ? packageOf(file) : "(native)",
  };
}

interface Row {
  name: string;
  selfMs: number;
  totalMs: number;
}

/**
 * Self and total milliseconds per request by function, by file and by package. Each sample's time
 * is its delta to the next; total counts a name once per sample however deep it recurs.
 */
function summarize(profile: CpuProfile, map: BundleMap | null, requests: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const frames = new Map(profile.nodes.map((n) => [n.id, frameOf(n, map)]));
  const tables = {
    fn: new Map<string, Row>(),
    file: new Map<string, Row>(),
    pkg: new Map<string, Row>(),
  };
  const row = (table: Map<string, Row>, name: string) => {
    let r = table.get(name);
    if (!r) table.set(name, (r = { name, selfMs: 0, totalMs: 0 }));
    return r;
  };
  let sampledMs = 0;
  let jsMs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (ms <= 0) continue;
    const leafId = profile.samples[i]!;
    const leaf = frames.get(leafId)!;
    sampledMs += ms;
    if (leaf.fn === "(idle)") continue;
    if (!PSEUDO.has(leaf.fn)) jsMs += ms;
    for (const key of ["fn", "file", "pkg"] as const) row(tables[key], leaf[key]).selfMs += ms;
    const seen = { fn: new Set<string>(), file: new Set<string>(), pkg: new Set<string>() };
    for (let id: number | undefined = leafId; id !== undefined; id = parent.get(id)) {
      const frame = frames.get(id)!;
      if (byId.get(id)!.callFrame.functionName === "(root)") break;
      for (const key of ["fn", "file", "pkg"] as const) {
        if (seen[key].has(frame[key])) continue;
        seen[key].add(frame[key]);
        row(tables[key], frame[key]).totalMs += ms;
      }
    }
  }
  const perRequest = (rows: Map<string, Row>) =>
    [...rows.values()]
      .map((r) => ({ ...r, selfMs: r.selfMs / requests, totalMs: r.totalMs / requests }))
      .sort((a, b) => b.selfMs - a.selfMs);
  const idleMs = tables.fn.get("(idle)")?.selfMs ?? 0;
  return {
    sampledMs: sampledMs / requests,
    busyMs: (sampledMs - idleMs) / requests,
    jsMs: jsMs / requests,
    functions: perRequest(tables.fn),
    files: perRequest(tables.file),
    packages: perRequest(tables.pkg),
  };
}

const ms3 = (n: number) => n.toFixed(3).padStart(7);

function printTable(title: string, rows: Row[], top: number, by: "selfMs" | "totalMs") {
  console.info(`\n${title}\n   self ms   total ms`);
  for (const r of [...rows].sort((a, b) => b[by] - a[by]).slice(0, top)) {
    console.info(`  ${ms3(r.selfMs)}   ${ms3(r.totalMs)}   ${r.name}`);
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const state = new BenchState("profile", {
    root: options.root,
    dir: options.stateDir ? path.resolve(options.stateDir) : undefined,
  });
  if (options.stateDir) await state.migrate();
  else await state.reset();
  // The per-member send limit out of the way of thousands of messages.
  await state.prepareWorker((config) => {
    const limits = config.vars?.RATE_LIMITS as Record<string, string> | undefined;
    if (limits) limits.chat_send_account = "100000000/60";
  });
  const members = await seedMembers(state);
  const worker = await startWorker(state, { vars: { APP_ENV: "test" }, inspector: true });
  try {
    if (!worker.inspectorUrl) throw new Error("workerd reported no inspector address");
    const base = worker.url;
    const [a, b] = members as [Member, Member];
    const started = JSON.parse(
      await call(base, a, "POST", "/chat/conversations", { user_id: b.id, message: "hello" }),
    ) as { conversation: { id: string } };
    const conversation = started.conversation.id;
    let n = 0;
    const label = {
      csrf: "GET /csrf-token",
      chat: "POST /chat/conversations/{id}/messages",
      search: "POST /my/matches/search",
      get: `GET ${options.path}`,
    }[options.kind];
    const one = async () => {
      n++;
      switch (options.kind) {
        case "csrf":
          return call(base, a, "GET", "/csrf-token");
        case "chat": {
          // The members take turns, as a conversation does (the 3-unanswered rule).
          const from = n % 2 ? a : b;
          return call(base, from, "POST", `/chat/conversations/${conversation}/messages`, {
            message: `message ${n}`,
            client_id: `profile-${n}-${randomBytes(4).toString("hex")}`,
          });
        }
        case "search":
          return call(base, a, "POST", "/my/matches/search", { per_page: 20 });
        case "get":
          return call(base, a, "GET", options.path);
      }
    };
    for (let i = 0; i < options.warmup; i++) await one();

    if (!worker.sourceMapPath || !existsSync(worker.sourceMapPath)) {
      console.warn(`no source map at ${worker.sourceMapPath}: positions stay the bundle's`);
    }
    const sourceMap: BundleMap | null =
      worker.sourceMapPath && existsSync(worker.sourceMapPath)
        ? {
            file: path.basename(worker.sourceMapPath, ".map"),
            lookup: decodeSourceMap(JSON.parse(readFileSync(worker.sourceMapPath, "utf8"))),
          }
        : null;
    const cdp = await connectInspector(worker.inspectorUrl);
    // wrangler's proxy turns the Network domain on (every subrequest, each D1 call, becomes
    // events): off while profiling, so that the Worker's own costs are what is measured.
    await cdp.send("Network.disable");
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: options.interval });
    const cpu = cpuClockOf("workerd");
    const load = loadavg()[0]!;
    await cdp.send("Profiler.start");
    const cpuBefore = cpu();
    const wallBefore = performance.now();
    for (let i = 0; i < options.requests; i++) await one();
    const wallMs = performance.now() - wallBefore;
    const cpuMs = (cpu() - cpuBefore) / options.requests;
    const { profile } = await cdp.send<{ profile: CpuProfile }>("Profiler.stop");
    cdp.close();

    const summary = summarize(profile, sourceMap, options.requests);
    console.info(
      `bench/profile: ${label}, ${options.requests} requests one at a time (after ${options.warmup}) ` +
        `on ${options.root}; sampled every ${options.interval} µs; load average ${load.toFixed(2)}`,
    );
    console.info(
      `per request: ${(wallMs / options.requests).toFixed(2)} ms wall, workerd CPU ${cpuMs.toFixed(2)} ms ` +
        `(all its threads, inspector on); the Worker isolate busy ${summary.busyMs.toFixed(2)} ms, ` +
        `of which JavaScript ${summary.jsMs.toFixed(2)} ms`,
    );
    printTable("by function (self)", summary.functions, options.top, "selfMs");
    printTable("by function (total)", summary.functions, options.top, "totalMs");
    printTable("by file (self)", summary.files, options.top, "selfMs");
    printTable("by file (total)", summary.files, options.top, "totalMs");
    printTable("by package (self)", summary.packages, options.top, "selfMs");
    if (options.json) {
      writeFileSync(
        options.json,
        JSON.stringify(
          { kind: options.kind, label, requests: options.requests, cpuMs, load, ...summary },
          null,
          2,
        ),
      );
    }
  } finally {
    await worker.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
