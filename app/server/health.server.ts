import type { Env } from "./env.server";
import { log, loggedError } from "./log.server";
import { count } from "./metrics.server";

export type CheckName = "d1" | "r2" | "rooms";
export type CheckResult = "ok" | "timeout" | "error";

export interface Health {
  ok: boolean;
  checks: Record<CheckName, CheckResult>;
}

/** A check that has not answered in this long counts as failed (a load balancer waits longer). */
const CHECK_TIMEOUT_MS = 3000;

/**
 * GET /healthz (docs/api.md "Operations"): one cheap read from each part a request depends on.
 * D1 answers `SELECT 1`; R2 looks a key up (none is stored under it); the rooms: a member hub
 * named for the check answers how many unread messages it holds (its storage opened and read).
 * The answer names each check "ok" or a word for how it failed, nothing more: the error itself
 * goes to the log, with the request id.
 */
export async function checkHealth(env: Env, requestId?: string): Promise<Health> {
  const checks: Record<CheckName, () => Promise<unknown>> = {
    d1: () => env.DB.prepare("SELECT 1").first(),
    r2: () => env.PHOTOS.head("healthz/probe"),
    rooms: async () => env.MEMBER_HUB.get(env.MEMBER_HUB.idFromName("healthz")).unreadTotal(),
  };
  const names = Object.keys(checks) as CheckName[];
  const results = await Promise.all(names.map((name) => runCheck(checks[name])));
  const out = {} as Record<CheckName, CheckResult>;
  names.forEach((name, i) => {
    const { result, error } = results[i]!;
    out[name] = result;
    if (result === "ok") return;
    count(env, "health_failed");
    log({
      event: "health_check_failed",
      level: "error",
      request_id: requestId,
      check: name,
      error: loggedError(error ?? new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)),
    });
  });
  return { ok: results.every((r) => r.result === "ok"), checks: out };
}

async function runCheck(
  check: () => Promise<unknown>,
): Promise<{ result: CheckResult; error?: unknown }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<{ result: CheckResult }>((resolve) => {
    timer = setTimeout(() => resolve({ result: "timeout" }), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().then(() => ({ result: "ok" as const })), timeout]);
  } catch (error) {
    return { result: "error", error };
  } finally {
    clearTimeout(timer);
  }
}
