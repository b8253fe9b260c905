/**
 * What every benchmark shares: its local state, a snapshot of the Worker, the Worker started in
 * workerd, and the CPU time workerd spends.
 *
 * The Worker runs in the same runtime as `wrangler dev` (workerd through Miniflare, with local D1,
 * R2 and Durable Objects) with the inspector off (DESIGN.md). Requests go straight to it, as they
 * do in production: `wrangler dev` also puts a reload proxy (a second workerd) in front of the
 * Worker, which buffers requests while it rebuilds; `viaDevProxy` measures through that proxy too.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { experimental_readRawConfig, unstable_DevEnv } from "wrangler";
import { sleep } from "../../scripts/lib/wait";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BENCH_APP_KEY = "bench-only-app-key-0123456789-abcdefghijklmnopqrstuvwxyz";
const WRANGLER_BIN = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");

const wranglerEnv = {
  ...process.env,
  CI: "true",
  WRANGLER_SEND_METRICS: "false",
  NO_UPDATE_NOTIFIER: "1",
  FORCE_COLOR: "0",
};

/** What the Worker is built from, copied for the run. */
const SNAPSHOT = ["app", "worker", "durable-objects", "build", "tsconfig.json", "package.json"];

/**
 * Where benchmarks keep their state: `BENCH_STATE_DIR` when set, else a folder on tmpfs
 * (/dev/shm) named after the checkout, so that a database of a million members is written to
 * memory, not to the disk the sources are on; bench/.state (gitignored) where there is no tmpfs.
 */
export function benchStateRoot(): string {
  const chosen = process.env.BENCH_STATE_DIR;
  if (chosen) return path.resolve(chosen);
  if (existsSync("/dev/shm")) {
    return path.join("/dev/shm", "heartline-bench", path.basename(ROOT.replace(/\/+$/, "")));
  }
  return path.join(ROOT, "bench", ".state");
}

export interface BenchStateOptions {
  /** Where the state lives (default benchStateRoot()/<name>/). */
  dir?: string;
  /** The built tree whose Worker runs (default this one; another for a comparison). */
  root?: string;
}

/** A benchmark's state under benchStateRoot()/<name>/ (or `dir`): D1/R2/DO data, snapshot, config. */
export class BenchState {
  readonly dir: string;
  readonly root: string;
  readonly persistDir: string;
  readonly sourceDir: string;
  readonly configPath: string;

  constructor(name: string, options: BenchStateOptions = {}) {
    this.root = options.root ?? ROOT;
    this.dir = options.dir ?? path.join(benchStateRoot(), name);
    this.persistDir = path.join(this.dir, "persist");
    this.sourceDir = path.join(this.dir, "src");
    this.configPath = path.join(this.dir, "wrangler.json");
  }

  /** Empties the state and applies the D1 migrations to it. */
  async reset() {
    if (!existsSync(path.join(this.root, "build", "server", "index.js"))) {
      throw new Error("The Remix build is missing: run `npm run build` first.");
    }
    await rm(this.dir, { recursive: true, force: true });
    await mkdir(this.persistDir, { recursive: true });
    await this.migrate();
  }

  /** Applies the D1 migrations not yet applied to the state's local D1 (keeping its data). */
  async migrate() {
    await wrangler([
      "d1",
      "migrations",
      "apply",
      "DB",
      "--local",
      "--persist-to",
      this.persistDir,
      "--config",
      path.join(this.root, "wrangler.toml"),
    ]);
  }

  /** Runs SQL statements (one per line) on the state's local D1, through a file in the state. */
  async executeSql(name: string, statements: string[]) {
    const file = path.join(this.dir, name);
    await writeFile(file, statements.join("\n"));
    await wrangler([
      "d1",
      "execute",
      "DB",
      "--local",
      "--persist-to",
      this.persistDir,
      "--file",
      file,
    ]);
  }

  /**
   * A snapshot of the Worker's sources and the Remix build, so that edits and builds in the
   * working tree during a run cannot change, reload or break the Worker under test (its imports
   * resolve through a link to the checkout's node_modules, wherever the state lives); and
   * wrangler.toml as JSON without `[build]` and `[env.*]`, pointing at it, changed by `edit`.
   */
  async prepareWorker<C extends RawConfig>(edit?: (config: C) => void): Promise<C> {
    for (let attempt = 1; ; attempt++) {
      try {
        await rm(this.sourceDir, { recursive: true, force: true });
        for (const entry of SNAPSHOT) {
          await cp(path.join(this.root, entry), path.join(this.sourceDir, entry), {
            recursive: true,
          });
        }
        if (existsSync(path.join(this.sourceDir, "build", "server", "index.js"))) {
          // Outside the tree (a state dir on tmpfs), the bundler still needs the packages.
          await symlink(
            path.join(this.root, "node_modules"),
            path.join(this.sourceDir, "node_modules"),
          );
          break;
        }
      } catch (error) {
        if (attempt >= 30) throw error;
      }
      // A build running in the tree replaces build/ for a moment: wait for it.
      if (attempt >= 30) throw new Error("build/ stayed incomplete: run `npm run build` first");
      await sleep(2000);
    }
    const { rawConfig } = experimental_readRawConfig({
      config: path.join(this.root, "wrangler.toml"),
    });
    const config = structuredClone(rawConfig) as C;
    delete config.build;
    delete config.env;
    if (config.main) config.main = path.resolve(this.sourceDir, config.main);
    if (config.assets?.directory) {
      config.assets.directory = path.resolve(this.sourceDir, config.assets.directory);
    }
    for (const db of config.d1_databases ?? []) {
      if (db.migrations_dir) db.migrations_dir = path.resolve(this.root, db.migrations_dir);
    }
    edit?.(config);
    await writeFile(this.configPath, JSON.stringify(config, null, 2));
    return config;
  }
}

export interface RawConfig {
  main?: string;
  build?: unknown;
  env?: unknown;
  assets?: { directory?: string };
  d1_databases?: { migrations_dir?: string }[];
  vars?: Record<string, unknown>;
}

/** Runs wrangler's CLI; rejects with its output when it fails. */
function wrangler(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER_BIN, ...args], {
      cwd: ROOT,
      env: wranglerEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`wrangler ${args.join(" ")} failed\n${output}`)),
    );
  });
}

export interface BenchWorker {
  /** Where requests go: the Worker itself, or wrangler dev's proxy with `viaDevProxy`. */
  url: string;
  /** How requests reach the Worker, for the report. */
  route: string;
  dispose(): Promise<void>;
}

/**
 * Starts the Worker of `state` (after `prepareWorker`) in workerd: inspector off, no file
 * watching, persistence in the state, on 127.0.0.1 only, with `vars` (text) and the bench key.
 */
export async function startWorker(
  state: BenchState,
  options: { vars?: Record<string, string>; viaDevProxy?: boolean } = {},
): Promise<BenchWorker> {
  process.env.WRANGLER_SEND_METRICS = "false";
  const devEnv = new unstable_DevEnv();
  // The runtime reports where the Worker listens when it is (re)loaded; wrangler's proxy then
  // forwards to it.
  let workerUrl: string | undefined;
  const proxy = devEnv.proxy;
  const onReloadComplete = proxy.onReloadComplete.bind(proxy);
  proxy.onReloadComplete = (event) => {
    const { protocol, hostname, port } = event.proxyData.userWorkerUrl;
    workerUrl = `${protocol}//${hostname}:${port}`;
    onReloadComplete(event);
  };
  const bindings: Record<string, { type: "plain_text" | "secret_text"; value: string }> = {
    APP_KEY: { type: "secret_text", value: BENCH_APP_KEY },
  };
  for (const [name, value] of Object.entries(options.vars ?? {})) {
    bindings[name] = { type: "plain_text", value };
  }
  const worker = await devEnv.startWorker({
    config: state.configPath,
    envFiles: [],
    sendMetrics: false,
    bindings,
    dev: {
      remote: false,
      inspector: false,
      watch: false,
      liveReload: false,
      persist: state.persistDir,
      server: { hostname: "127.0.0.1", port: 0 },
      logLevel: "warn",
      enableContainers: false,
      generateTypes: false,
    },
  });
  try {
    await worker.ready;
    const proxyUrl = (await worker.url).origin;
    // The proxy holds requests until the Worker is loaded: one through it waits for that.
    await fetch(`${proxyUrl}/favicon.svg`).then((res) => res.arrayBuffer());
    if (!workerUrl) throw new Error("the Worker's own address was not reported");
    return {
      url: options.viaDevProxy ? proxyUrl : workerUrl,
      route: options.viaDevProxy
        ? "through wrangler dev's reload proxy to the Worker"
        : "straight to the Worker (no dev proxy)",
      dispose: () => worker.dispose(),
    };
  } catch (error) {
    await worker.dispose();
    throw error;
  }
}

interface ProcStat {
  parent: number;
  name: string;
  cpu: number;
}

/** This process's descendants whose name starts with `name`, with their stat lines. */
function descendants(name: string): [number, ProcStat][] {
  const ticks = 100; // USER_HZ on Linux
  const stats = new Map<number, ProcStat>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      stats.set(Number(entry), {
        parent: Number(fields[1]),
        name: stat.slice(stat.indexOf("(") + 1, close),
        cpu: (Number(fields[11]) + Number(fields[12])) / ticks,
      });
    } catch {
      // The process ended meanwhile.
    }
  }
  const isMine = (pid: number) => {
    for (let p = stats.get(pid)?.parent; p !== undefined && p > 1; p = stats.get(p)?.parent) {
      if (p === process.pid) return true;
    }
    return false;
  };
  return [...stats].filter(([pid, stat]) => stat.name.startsWith(name) && isMine(pid));
}

/**
 * CPU seconds used so far by this process's descendants whose name starts with `name` (only
 * those of `pids` when given: one of several workerd instances).
 */
export function cpuSecondsOf(name: string, pids?: ReadonlySet<number>): number {
  return descendants(name)
    .filter(([pid]) => !pids || pids.has(pid))
    .reduce((total, [, stat]) => total + stat.cpu, 0);
}

/** The process ids of this process's descendants whose name starts with `name`. */
export function pidsOf(name: string): number[] {
  return descendants(name).map(([pid]) => pid);
}

/**
 * A clock of the CPU time (ms) spent so far by this process's descendants whose name starts with
 * `name` (those running when it is made): the kernel's run time of each of their threads
 * (`schedstat`, in nanoseconds), precise enough to time one request, and, unlike latency, not
 * lengthened by other work waiting for or holding the CPU.
 */
export function cpuClockOf(name: string): () => number {
  const pids = descendants(name).map(([pid]) => pid);
  return () => {
    let ns = 0;
    for (const pid of pids) {
      let threads: string[] = [];
      try {
        threads = readdirSync(`/proc/${pid}/task`);
      } catch {
        continue;
      }
      for (const thread of threads) {
        try {
          ns += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, "utf8").split(" ")[0]);
        } catch {
          // The thread ended meanwhile.
        }
      }
    }
    return ns / 1e6;
  };
}

/** Resident memory (MB) of this process's descendants whose name starts with `name`. */
export function residentMbOf(name: string): number {
  let kb = 0;
  for (const [pid] of descendants(name)) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (match) kb += Number(match[1]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return kb / 1024;
}

/** The nearest-rank percentile `p` (0–100) of ascending `sorted` values (NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}
