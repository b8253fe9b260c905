/**
 * The Worker started locally, one way for the browser tests (tests/e2e/global-setup.ts) and the
 * benchmarks (bench/lib/worker.ts): workerd through wrangler's dev API, with local D1, R2 and
 * Durable Objects persisted in a folder of the caller's, the inspector off, no file watching, on
 * 127.0.0.1 at a free port.
 *
 * wrangler.toml's `[build] command` would run the Remix build again on every start (and watch
 * app/), so the Worker starts from a copy of the configuration without `[build]` (and `[env.*]`):
 * the build must exist already (`npm run build`).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { experimental_readRawConfig, unstable_DevEnv } from "wrangler";

/** The checkout this file is in. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const WRANGLER_BIN = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");

/** Environment for wrangler itself: never prompt, never phone home. */
const wranglerEnv = {
  ...process.env,
  CI: "true",
  WRANGLER_SEND_METRICS: "false",
  NO_UPDATE_NOTIFIER: "1",
  FORCE_COLOR: "0",
};

/** Rejects after `ms` with "<what> did not finish within <ms> ms", unless `promise` settles first. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs wrangler's CLI in the checkout; rejects with its output when it fails, or outlasts
 * `timeoutMs` when given (a bulk load into D1 may take many minutes: no limit by default).
 */
export function wrangler(args: string[], timeoutMs?: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER_BIN, ...args], {
      cwd: ROOT,
      env: wranglerEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            child.kill("SIGKILL");
            const what = `wrangler ${args.join(" ")} did not finish within ${timeoutMs} ms`;
            reject(new Error(`${what}\n${output}`));
          }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else {
        const how = signal ?? `exit ${code}`;
        reject(new Error(`wrangler ${args.join(" ")} failed (${how})\n${output}`));
      }
    });
  });
}

/** Fails with what to do when the Remix build of `root` is missing. */
export function requireBuild(root = ROOT) {
  if (!existsSync(path.join(root, "build", "server", "index.js"))) {
    throw new Error("The Remix build is missing: run `npm run build` first.");
  }
}

/** Applies the D1 migrations of `root` not yet applied to the local D1 persisted in `persistDir`. */
export async function applyMigrations(
  persistDir: string,
  { root = ROOT, timeoutMs }: { root?: string; timeoutMs?: number } = {},
) {
  const config = path.join(root, "wrangler.toml");
  await wrangler(
    ["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistDir, "--config", config],
    timeoutMs,
  );
}

/** The parts of wrangler.toml that the local configuration rewrites. */
export interface RawConfig {
  main?: string;
  build?: unknown;
  env?: unknown;
  assets?: { directory?: string };
  d1_databases?: { migrations_dir?: string }[];
  vars?: Record<string, unknown>;
}

/**
 * Writes `root`'s wrangler.toml as JSON to `configPath`, without `[build]` and `[env.*]`, with
 * its paths made absolute (the Worker and its assets in `sourceDir`, default `root`; the
 * migrations in `root`) and changed by `edit`. Returns the configuration written.
 */
export async function writeLocalConfig<C extends RawConfig>({
  root = ROOT,
  sourceDir = root,
  configPath,
  edit,
}: {
  root?: string;
  sourceDir?: string;
  configPath: string;
  edit?: (config: C) => void;
}): Promise<C> {
  const { rawConfig } = experimental_readRawConfig({ config: path.join(root, "wrangler.toml") });
  const config = structuredClone(rawConfig) as C;
  delete config.build;
  delete config.env;
  if (config.main) config.main = path.resolve(sourceDir, config.main);
  if (config.assets?.directory) {
    config.assets.directory = path.resolve(sourceDir, config.assets.directory);
  }
  for (const db of config.d1_databases ?? []) {
    if (db.migrations_dir) db.migrations_dir = path.resolve(root, db.migrations_dir);
  }
  edit?.(config);
  await writeFile(configPath, JSON.stringify(config, null, 2));
  return config;
}

export interface LocalWorkerOptions {
  /** A configuration written by `writeLocalConfig`. */
  configPath: string;
  /** Where D1, R2 and the Durable Objects keep their state. */
  persistDir: string;
  /** APP_KEY, given explicitly (so that a clone without .dev.vars works). */
  appKey: string;
  /** More vars (text), over wrangler.toml's. */
  vars?: Record<string, string>;
  /**
   * A page that must answer 2xx before the Worker counts as started. Without it, one request
   * (whatever it answers) waits until the Worker is loaded.
   */
  readyPath?: string;
  logLevel?: "warn" | "debug";
  /** Opens the inspector on this port (for a CPU profile); off when not given. */
  inspectorPort?: number;
  /** How long starting and the first request may take, each (ms). */
  timeoutMs?: number;
}

export interface LocalWorker {
  /** The Worker itself. */
  url: string;
  /** wrangler dev's reload proxy in front of it (which holds requests while it reloads). */
  proxyUrl: string;
  dispose(): Promise<void>;
}

/** Starts the Worker and waits until it answers `readyPath`. */
export async function startLocalWorker(options: LocalWorkerOptions): Promise<LocalWorker> {
  const { readyPath, timeoutMs = 90_000 } = options;
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
    APP_KEY: { type: "secret_text", value: options.appKey },
  };
  for (const [name, value] of Object.entries(options.vars ?? {})) {
    bindings[name] = { type: "plain_text", value };
  }
  const worker = await devEnv.startWorker({
    config: options.configPath,
    envFiles: [],
    sendMetrics: false,
    bindings,
    dev: {
      remote: false,
      inspector: options.inspectorPort ? { port: options.inspectorPort } : false,
      watch: false,
      liveReload: false,
      persist: options.persistDir,
      server: { hostname: "127.0.0.1", port: 0 },
      logLevel: options.logLevel ?? "warn",
      enableContainers: false,
      generateTypes: false,
    },
  });
  try {
    await withTimeout(worker.ready, timeoutMs, "Starting the Worker");
    const proxyUrl = (await worker.url).origin;
    // One real request (the proxy holds it until the Worker is loaded), so that a Worker that
    // starts but cannot serve fails here with a clear message.
    const res = await withTimeout(
      fetch(`${proxyUrl}${readyPath ?? "/favicon.svg"}`),
      timeoutMs,
      "The first request to the Worker",
    );
    if (readyPath && !res.ok) {
      throw new Error(
        `GET ${readyPath} answered ${res.status}: ${(await res.text()).slice(0, 500)}`,
      );
    }
    await res.arrayBuffer();
    if (!workerUrl) throw new Error("the Worker's own address was not reported");
    return { url: workerUrl, proxyUrl, dispose: () => worker.dispose() };
  } catch (error) {
    await worker.dispose();
    throw error;
  }
}
