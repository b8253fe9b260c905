/**
 * Global setup for the browser tests: one Worker for the whole run, on fresh local state.
 *
 * 1. wipes `.e2e-state/` (gitignored) so every run starts from an empty database;
 * 2. applies the D1 migrations into it with `wrangler d1 migrations apply DB --local`;
 * 3. starts the Worker with wrangler's `unstable_startWorker`: inspector off, no file watching,
 *    persistence in `.e2e-state/`, a free port on 127.0.0.1, and APP_KEY / APP_ENV given
 *    explicitly (so a clone without `.dev.vars` works);
 * 4. hands the base URL to the tests (`inject("e2eBaseUrl")`) and disposes the Worker at teardown.
 *
 * The Remix build must exist already (`npm run build`; `npm test` runs it before this suite).
 * wrangler.toml's `[build] command` would run that build again on every start (and watch `app/`
 * for changes), so the Worker is started from a copy of the configuration without `[build]`.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { experimental_readRawConfig, unstable_startWorker } from "wrangler";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const STATE_DIR = path.join(ROOT, ".e2e-state");
const PERSIST_DIR = path.join(STATE_DIR, "persist");
const DERIVED_CONFIG_PATH = path.join(STATE_DIR, "wrangler.json");
const WRANGLER_BIN = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");

/** A fixed key for the test Worker only; it signs sessions and links in `.e2e-state/` and nowhere else. */
const E2E_APP_KEY = "e2e-only-app-key-0123456789-abcdefghijklmnopqrstuvwxyz";

/**
 * Every browser context reaches the Worker from 127.0.0.1, so the per-IP limits of wrangler.toml
 * (e.g. 10 registrations an hour) would be shared by the whole suite. They are raised here; the
 * per-account limits stay as configured.
 */
const PER_IP_LIMIT_OVERRIDE = "10000/60";

const STARTUP_TIMEOUT_MS = 90_000;
const MIGRATIONS_TIMEOUT_MS = 90_000;

/** Environment for wrangler itself: never prompt, never phone home. */
const wranglerProcessEnv = {
  ...process.env,
  CI: "true",
  WRANGLER_SEND_METRICS: "false",
  NO_UPDATE_NOTIFIER: "1",
  FORCE_COLOR: "0",
};

const seconds = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)} s`;

function run(command: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: wranglerProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")} did not finish within ${timeoutMs} ms\n${output}`));
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${args.join(" ")} failed (${signal ?? `exit ${code}`})\n${output}`));
    });
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

type RawConfig = Record<string, unknown> & {
  main?: string;
  vars?: Record<string, unknown>;
  assets?: { directory?: string };
  d1_databases?: { migrations_dir?: string }[];
};

/**
 * wrangler.toml as a JSON config under `.e2e-state/`: without `[build]` and `[env.*]`, with the
 * paths made absolute (they are resolved against the config file's directory), and with the
 * per-IP rate limits raised.
 */
async function writeDerivedConfig(): Promise<void> {
  const { rawConfig } = experimental_readRawConfig({ config: path.join(ROOT, "wrangler.toml") });
  const config = structuredClone(rawConfig) as RawConfig;
  const absolute = (p: string) => path.resolve(ROOT, p);
  delete config.build;
  delete config.env;
  if (config.main) config.main = absolute(config.main);
  if (config.assets?.directory) config.assets.directory = absolute(config.assets.directory);
  for (const db of config.d1_databases ?? []) {
    if (db.migrations_dir) db.migrations_dir = absolute(db.migrations_dir);
  }
  const limits = config.vars?.RATE_LIMITS;
  if (config.vars && limits && typeof limits === "object") {
    config.vars.RATE_LIMITS = Object.fromEntries(
      Object.entries(limits).map(([name, value]) => [
        name,
        name.endsWith("_ip") ? PER_IP_LIMIT_OVERRIDE : value,
      ]),
    );
  }
  await writeFile(DERIVED_CONFIG_PATH, JSON.stringify(config, null, 2));
}

export default async function setup(project: TestProject) {
  const started = performance.now();
  if (!existsSync(path.join(ROOT, "build", "server", "index.js"))) {
    throw new Error("The Remix build is missing: run `npm run build` before `npm run test:e2e`.");
  }

  await rm(STATE_DIR, { recursive: true, force: true });
  await mkdir(PERSIST_DIR, { recursive: true });

  await run(
    process.execPath,
    [
      WRANGLER_BIN,
      "d1",
      "migrations",
      "apply",
      "DB",
      "--local",
      "--persist-to",
      PERSIST_DIR,
      "--config",
      path.join(ROOT, "wrangler.toml"),
    ],
    MIGRATIONS_TIMEOUT_MS,
  );
  const migrated = performance.now();

  await writeDerivedConfig();
  process.env.WRANGLER_SEND_METRICS = "false";
  const worker = await unstable_startWorker({
    config: DERIVED_CONFIG_PATH,
    envFiles: [],
    sendMetrics: false,
    bindings: {
      APP_KEY: { type: "secret_text", value: E2E_APP_KEY },
      APP_ENV: { type: "plain_text", value: "test" },
    },
    dev: {
      remote: false,
      inspector: false,
      watch: false,
      liveReload: false,
      persist: PERSIST_DIR,
      server: { hostname: "127.0.0.1", port: 0 },
      logLevel: process.env.E2E_WRANGLER_LOG_LEVEL === "debug" ? "debug" : "warn",
      enableContainers: false,
      generateTypes: false,
    },
  });

  let disposed = false;
  const dispose = async () => {
    if (disposed) return;
    disposed = true;
    await withTimeout(worker.dispose(), 30_000, "Disposing the Worker");
  };

  try {
    await withTimeout(worker.ready, STARTUP_TIMEOUT_MS, "Starting the Worker");
    const url = await worker.url;
    const baseUrl = url.origin;
    // One real request, so a Worker that starts but cannot serve fails here with a clear message.
    const response = await withTimeout(
      fetch(`${baseUrl}/login`),
      STARTUP_TIMEOUT_MS,
      "The first request to the Worker",
    );
    if (!response.ok) {
      throw new Error(
        `GET /login answered ${response.status}: ${(await response.text()).slice(0, 500)}`,
      );
    }
    await response.arrayBuffer();
    console.info(
      `[e2e] Worker ready at ${baseUrl} ` +
        `(migrations ${seconds(started, migrated)}, start ${seconds(migrated, performance.now())})`,
    );
    project.provide("e2eBaseUrl", baseUrl);
  } catch (error) {
    await dispose().catch(() => {});
    throw error;
  }

  return dispose;
}
