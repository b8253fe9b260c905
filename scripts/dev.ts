/**
 * `npm run dev`: everything a fresh clone needs to run Heartline locally, then `wrangler dev`.
 *
 * 1. Creates .dev.vars with a random APP_KEY, and a VAPID key pair for web push, when they are
 *    missing (local secrets never leave it).
 * 2. Applies the D1 migrations to the local database (.wrangler/state).
 * 3. Seeds the demo members and their photos (idempotent).
 * 4. Starts `wrangler dev` (local D1, R2 and Durable Objects), which builds the app and rebuilds
 *    it when app/ changes. It runs in its own process group, stopped as a whole on Ctrl-C.
 * 5. Once it answers, seeds the demo account's conversations through the chat API (the messages
 *    live in the conversations' rooms, which only the running Worker reaches; idempotent).
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { seedConversations, workerReady } from "./lib/seed-conversations";

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { stdio: "inherit", env: process.env });
  if (result.status !== 0) {
    console.error(`\n${command} ${args.join(" ")} failed (exit ${result.status ?? "signal"}).`);
    process.exit(result.status ?? 1);
  }
}

/**
 * A VAPID key pair (docs/decisions/031) as the Worker reads it: the public key as base64url of the
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

async function ensureDevVars() {
  const path = ".dev.vars";
  let current = existsSync(path) ? readFileSync(path, "utf8") : "";
  const add = (lines: string) => {
    current = `${current}${current && !current.endsWith("\n") ? "\n" : ""}${lines}`;
  };
  const added: string[] = [];
  if (!/^APP_KEY=.{32,}$/m.test(current)) {
    add(`APP_KEY=${randomBytes(32).toString("base64url")}\n`);
    added.push("a random APP_KEY");
  }
  if (!/^VAPID_PUBLIC_KEY=\S+$/m.test(current) || !/^VAPID_PRIVATE_KEY=\S+$/m.test(current)) {
    // A pair or nothing: a lone half of an earlier pair is replaced (the last line wins).
    const keys = await vapidKeyPair();
    add(`VAPID_PUBLIC_KEY=${keys.VAPID_PUBLIC_KEY}\nVAPID_PRIVATE_KEY=${keys.VAPID_PRIVATE_KEY}\n`);
    added.push("a VAPID key pair for web push");
  }
  if (added.length === 0) return;
  writeFileSync(path, current);
  console.log(`Wrote ${added.join(" and ")} to .dev.vars.`);
}

await ensureDevVars();
run("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local"]);
run("npx", ["tsx", "scripts/seed.ts"]);

const extra = process.argv.slice(2);
const child = spawn("npx", ["wrangler", "dev", ...extra], {
  stdio: "inherit",
  env: process.env,
  detached: true,
});

const stop = (signal: NodeJS.Signals) => {
  // workerd outlives a killed npx: signal the whole group.
  if (child.pid) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  }
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("exit", () => stop("SIGTERM"));
child.on("exit", (code) => process.exit(code ?? 0));

const baseUrl = process.env.SEED_BASE_URL ?? "http://localhost:8787";
if (await workerReady(baseUrl, 180_000)) {
  try {
    console.log(`Demo conversations: ${await seedConversations(baseUrl)}`);
  } catch (error) {
    console.error(`Seeding the demo conversations failed: ${String(error)}`);
  }
}
