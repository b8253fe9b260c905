/**
 * `npm run deploy`'s first step, before any migration touches the production database:
 *
 * 1. Every secret the production Worker needs exists (`wrangler secret list --env production`):
 *    a missing one would make the new Worker refuse every request (productionProblems) after
 *    the migrations already ran. Names the missing ones and stops.
 * 2. Production's vars carry nothing of development (the mailbox, mail into it).
 * 3. Prints D1 Time Travel's current bookmark: the point to restore to if the migrations or the
 *    release go wrong (docs/runbook.md "Restore the database").
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { REQUIRED_PRODUCTION_SECRETS } from "../app/server/env.server";

function wrangler(args: string[]): string {
  const result = spawnSync("npx", ["wrangler", ...args], { encoding: "utf8" });
  if (result.status !== 0) {
    console.error(result.stdout, result.stderr);
    console.error(`wrangler ${args.join(" ")} failed: nothing was migrated or deployed.`);
    process.exit(1);
  }
  return result.stdout;
}

function checkSecrets() {
  const out = wrangler(["secret", "list", "--env", "production", "--format", "json"]);
  const listed = new Set(
    (JSON.parse(out.slice(out.indexOf("["))) as { name: string }[]).map((s) => s.name),
  );
  const missing = REQUIRED_PRODUCTION_SECRETS.filter((name) => !listed.has(name));
  if (missing.length > 0) {
    console.error(
      `Production is missing ${missing.join(", ")}: set each with ` +
        "`npx wrangler secret put <NAME> --env production`. Nothing was migrated or deployed.",
    );
    process.exit(1);
  }
  if (!listed.has("SENTRY_DSN")) {
    console.warn("SENTRY_DSN is not set: the error tracker stays off in production.");
  }
  console.log(`Secrets present: ${REQUIRED_PRODUCTION_SECRETS.join(", ")}.`);
}

function checkVars() {
  const toml = readFileSync("wrangler.toml", "utf8");
  const production = toml.slice(toml.indexOf("[env.production]"));
  const vars = production
    .slice(production.indexOf("[env.production.vars]"))
    .split(/\n\[(?!env\.production\.vars)/)[0]!;
  const problems = [
    /^\s*DEV_MAILBOX\s*=/m.test(vars) && "DEV_MAILBOX is set in [env.production.vars]",
    !/^\s*MAIL_TRANSPORT\s*=\s*"resend"/m.test(vars) && 'MAIL_TRANSPORT is not "resend"',
    !/^\s*APP_ENV\s*=\s*"production"/m.test(vars) && 'APP_ENV is not "production"',
  ].filter(Boolean);
  if (problems.length > 0) {
    console.error(`wrangler.toml's production vars: ${problems.join("; ")}. Nothing was deployed.`);
    process.exit(1);
  }
}

function printBookmark() {
  const out = wrangler(["d1", "time-travel", "info", "DB", "--env", "production"]);
  console.log("D1 Time Travel before migrating (restore with `wrangler d1 time-travel restore`):");
  console.log(out.trim());
}

checkVars();
checkSecrets();
printBookmark();
