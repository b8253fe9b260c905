/**
 * What every benchmark shares: its local state, a snapshot of the Worker, the Worker started in
 * workerd, and the CPU time workerd spends.
 *
 * The Worker runs in the same runtime as `wrangler dev` (workerd through Miniflare, with local D1,
 * R2 and Durable Objects) with the inspector off (DESIGN.md). Requests go straight to it, as they
 * do in production: `wrangler dev` also puts a reload proxy (a second workerd) in front of the
 * Worker, which buffers requests while it rebuilds; `viaDevProxy` measures through that proxy too.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  applyMigrations,
  requireBuild,
  ROOT,
  startLocalWorker,
  wrangler,
  writeLocalConfig,
  type RawConfig,
} from "../../scripts/lib/local-worker";
import { sleep } from "../../scripts/lib/wait";

export { ROOT, type RawConfig };
export const BENCH_APP_KEY = "bench-only-app-key-0123456789-abcdefghijklmnopqrstuvwxyz";

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
    requireBuild(this.root);
    await rm(this.dir, { recursive: true, force: true });
    await mkdir(this.persistDir, { recursive: true });
    await this.migrate();
  }

  /** Applies the D1 migrations not yet applied to the state's local D1 (keeping its data). */
  async migrate() {
    await applyMigrations(this.persistDir, { root: this.root });
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
    return writeLocalConfig<C>({
      root: this.root,
      sourceDir: this.sourceDir,
      configPath: this.configPath,
      edit,
    });
  }
}

export interface BenchWorker {
  /** Where requests go: the Worker itself, or wrangler dev's proxy with `viaDevProxy`. */
  url: string;
  /** How requests reach the Worker, for the report. */
  route: string;
  dispose(): Promise<void>;
}

/**
 * Starts the Worker of `state` (after `prepareWorker`) in workerd (scripts/lib/local-worker.ts):
 * persistence in the state, with `vars` (text) and the bench key.
 */
export async function startWorker(
  state: BenchState,
  options: { vars?: Record<string, string>; viaDevProxy?: boolean; inspectorPort?: number } = {},
): Promise<BenchWorker> {
  const worker = await startLocalWorker({
    configPath: state.configPath,
    persistDir: state.persistDir,
    appKey: BENCH_APP_KEY,
    vars: options.vars,
    inspectorPort: options.inspectorPort,
  });
  return {
    url: options.viaDevProxy ? worker.proxyUrl : worker.url,
    route: options.viaDevProxy
      ? "through wrangler dev's reload proxy to the Worker"
      : "straight to the Worker (no dev proxy)",
    dispose: worker.dispose,
  };
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
