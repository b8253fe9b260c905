import { readConfig, type Env, type RateLimitName } from "./env.server";

export interface RateLimitResult {
  allowed: boolean;
  remaining: number;
  /** Seconds until the window resets (for Retry-After). */
  retryAfter: number;
}

export class RateLimitedError extends Error {
  constructor(readonly retryAfter: number) {
    super("Too many attempts. Please try again later.");
  }
}

function windowFor(env: Env, name: RateLimitName, now: number) {
  const { max, windowSeconds } = readConfig(env).rateLimits[name];
  const nowSeconds = Math.floor(now / 1000);
  const windowStart = nowSeconds - (nowSeconds % windowSeconds);
  return { max, windowSeconds, windowStart, nowSeconds };
}

const HIT_SQL = `INSERT INTO rate_limits (key, window_start, count) VALUES (?1, ?2, 1)
     ON CONFLICT(key) DO UPDATE SET
       count = CASE WHEN rate_limits.window_start = excluded.window_start THEN rate_limits.count + 1 ELSE 1 END,
       window_start = excluded.window_start
     RETURNING count`;

/**
 * `hit` as a statement for a caller's own D1 batch, so that counting the attempt and the work it
 * limits are one transaction: later statements of the batch can require
 * `(SELECT count FROM rate_limits WHERE key = <key>) <= <max>`, and a batch that fails leaves the
 * attempt uncounted.
 */
export function hitStatement(env: Env, name: RateLimitName, subject: string, now = Date.now()) {
  const { max, windowSeconds, windowStart, nowSeconds } = windowFor(env, name, now);
  const key = `${name}:${subject.toLowerCase()}`;
  return {
    statement: env.DB.prepare(HIT_SQL).bind(key, windowStart),
    key,
    max,
    retryAfter: windowStart + windowSeconds - nowSeconds,
  };
}

/**
 * Fixed-window counter in D1: one upsert, atomic in SQLite. A window ends on its own, so a flood
 * of bad attempts can never lock the real member out for longer than the window.
 */
export async function hit(
  env: Env,
  name: RateLimitName,
  subject: string,
  now = Date.now(),
): Promise<RateLimitResult> {
  const { max, windowSeconds, windowStart, nowSeconds } = windowFor(env, name, now);
  const row = await env.DB.prepare(HIT_SQL)
    .bind(`${name}:${subject.toLowerCase()}`, windowStart)
    .first<{ count: number }>();
  const count = row?.count ?? 1;
  return {
    allowed: count <= max,
    remaining: Math.max(0, max - count),
    retryAfter: windowStart + windowSeconds - nowSeconds,
  };
}

/**
 * Gives back an attempt that `hit` counted at `now`, for limits that count only failures: the
 * attempt is counted before the (slow) check, so that parallel requests cannot all slip past the
 * limit, and given back once it turns out to have succeeded. Nothing happens once the window ended.
 */
export async function release(
  env: Env,
  name: RateLimitName,
  subject: string,
  now: number,
): Promise<void> {
  const { windowStart } = windowFor(env, name, now);
  await env.DB.prepare(
    `UPDATE rate_limits SET count = count - 1 WHERE key = ?1 AND window_start = ?2 AND count > 0`,
  )
    .bind(`${name}:${subject.toLowerCase()}`, windowStart)
    .run();
}

/** Reads a counter without counting (used to refuse before doing expensive work). */
export async function peek(
  env: Env,
  name: RateLimitName,
  subject: string,
  now = Date.now(),
): Promise<RateLimitResult> {
  const { max, windowSeconds, windowStart, nowSeconds } = windowFor(env, name, now);
  const row = await env.DB.prepare(`SELECT window_start, count FROM rate_limits WHERE key = ?1`)
    .bind(`${name}:${subject.toLowerCase()}`)
    .first<{ window_start: number; count: number }>();
  const count = row && row.window_start === windowStart ? row.count : 0;
  return {
    allowed: count < max,
    remaining: Math.max(0, max - count),
    retryAfter: windowStart + windowSeconds - nowSeconds,
  };
}

/** Counts an attempt and throws RateLimitedError when it goes over the limit. */
export async function enforce(env: Env, name: RateLimitName, subject: string): Promise<void> {
  const result = await hit(env, name, subject);
  if (!result.allowed) throw new RateLimitedError(result.retryAfter);
}

/** Refuses when the limit is already reached, without counting this attempt. */
export async function enforceWithoutCounting(
  env: Env,
  name: RateLimitName,
  subject: string,
): Promise<void> {
  const result = await peek(env, name, subject);
  if (!result.allowed) throw new RateLimitedError(result.retryAfter);
}
