/**
 * Global setup for the browser tests: one Worker for the whole run, on fresh local state.
 *
 * 1. wipes `.e2e-state/` (gitignored) so every run starts from an empty database;
 * 2. applies the D1 migrations into it;
 * 3. starts the Worker as the benchmarks do (scripts/lib/local-worker.ts): inspector off, no file
 *    watching, persistence in `.e2e-state/`, a free port on 127.0.0.1, and APP_KEY / APP_ENV
 *    given explicitly (so a clone without `.dev.vars` works);
 * 4. hands the base URL to the tests (`inject("e2eBaseUrl")`) and disposes the Worker at teardown.
 *
 * The Remix build must exist already (`npm run build`; `npm test` runs it before this suite).
 */
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import {
  applyMigrations,
  requireBuild,
  ROOT,
  startLocalWorker,
  withTimeout,
  writeLocalConfig,
} from "../../scripts/lib/local-worker";

const STATE_DIR = path.join(ROOT, ".e2e-state");
const PERSIST_DIR = path.join(STATE_DIR, "persist");

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

const seconds = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)} s`;

/** Raises the per-IP rate limits of wrangler.toml's RATE_LIMITS. */
function raisePerIpLimits(config: { vars?: Record<string, unknown> }) {
  const limits = config.vars?.RATE_LIMITS;
  if (config.vars && limits && typeof limits === "object") {
    config.vars.RATE_LIMITS = Object.fromEntries(
      Object.entries(limits).map(([name, value]) => [
        name,
        name.endsWith("_ip") ? PER_IP_LIMIT_OVERRIDE : value,
      ]),
    );
  }
}

export default async function setup(project: TestProject) {
  const started = performance.now();
  requireBuild();

  await rm(STATE_DIR, { recursive: true, force: true });
  await mkdir(PERSIST_DIR, { recursive: true });
  await applyMigrations(PERSIST_DIR, { timeoutMs: MIGRATIONS_TIMEOUT_MS });
  const migrated = performance.now();

  const configPath = path.join(STATE_DIR, "wrangler.json");
  await writeLocalConfig({ configPath, edit: raisePerIpLimits });
  const worker = await startLocalWorker({
    configPath,
    persistDir: PERSIST_DIR,
    appKey: E2E_APP_KEY,
    vars: { APP_ENV: "test" },
    // One real page, so a Worker that starts but cannot serve fails here with a clear message.
    readyPath: "/login",
    logLevel: process.env.E2E_WRANGLER_LOG_LEVEL === "debug" ? "debug" : "warn",
    timeoutMs: STARTUP_TIMEOUT_MS,
  });
  // The tests go through wrangler dev's proxy, as a browser on `wrangler dev` would.
  const baseUrl = worker.proxyUrl;
  console.info(
    `[e2e] Worker ready at ${baseUrl} ` +
      `(migrations ${seconds(started, migrated)}, start ${seconds(migrated, performance.now())})`,
  );
  project.provide("e2eBaseUrl", baseUrl);

  let disposed = false;
  return async () => {
    if (disposed) return;
    disposed = true;
    await withTimeout(worker.dispose(), 30_000, "Disposing the Worker");
  };
}
