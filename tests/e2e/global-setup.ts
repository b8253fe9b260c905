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
 * A moderator (who cannot be made through the API) is written into D1 between 2 and 3, with a
 * session the tests use (`inject("e2eModerator")`): written while the Worker holds the database,
 * it would lock it, and whatever the Worker was reading then would fail (SQLITE_BUSY).
 *
 * The Remix build must exist already (`npm run build`; `npm test` runs it before this suite).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import {
  applyMigrations,
  requireBuild,
  ROOT,
  startLocalWorker,
  withTimeout,
  wrangler,
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

/** A verified moderator with a profile and a long session, straight into the local D1. */
async function seedModerator(): Promise<{ id: string; session: string }> {
  const id = `e2emod${randomBytes(6).toString("hex")}`;
  const session = randomBytes(32).toString("base64url");
  const hash = createHash("sha256").update(session).digest("hex");
  const now = new Date().toISOString();
  const expires = new Date(Date.now() + 86_400_000).toISOString();
  const file = path.join(STATE_DIR, "moderator.sql");
  await writeFile(
    file,
    [
      `INSERT INTO users (id, username, email, password_hash, email_verified_at, role) VALUES ('${id}', '${id}', '${id}@e2e.test', 'unused', '${now}', 'moderator');`,
      `INSERT INTO profiles (user_id, date_of_birth) VALUES ('${id}', '1990-01-01');`,
      `INSERT INTO sessions (id_hash, user_id, remember, created_at, last_active_at, expires_at) VALUES ('${hash}', '${id}', 1, '${now}', '${now}', '${expires}');`,
    ].join("\n"),
  );
  await wrangler(["d1", "execute", "DB", "--local", "--persist-to", PERSIST_DIR, "--file", file]);
  return { id, session };
}

export default async function setup(project: TestProject) {
  const started = performance.now();
  requireBuild();

  await rm(STATE_DIR, { recursive: true, force: true });
  await mkdir(PERSIST_DIR, { recursive: true });
  await applyMigrations(PERSIST_DIR, { timeoutMs: MIGRATIONS_TIMEOUT_MS });
  const moderator = await seedModerator();
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
  project.provide("e2eModerator", moderator);

  let disposed = false;
  return async () => {
    if (disposed) return;
    disposed = true;
    await withTimeout(worker.dispose(), 30_000, "Disposing the Worker");
  };
}
