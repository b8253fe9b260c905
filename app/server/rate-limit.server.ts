import { sql } from "drizzle-orm";
import { readConfig, type Env, type RateLimitName } from "./env.server";
import type { RateLimitSpec } from "./room-api.server";
import { rateLimits } from "./db/schema";
import { firstOf, run, selection } from "./sql.server";

/** The counts of a key's window (the upsert's RETURNING list names the same). */
const countFields = selection({ count: rateLimits.count, prev_count: rateLimits.prevCount });

/** A key's window and its counts. */
const windowFields = selection({
  window_start: rateLimits.windowStart,
  count: rateLimits.count,
  prev_count: rateLimits.prevCount,
});

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

// Re-exported while the conversation room still imports it from here (room-api.server.ts holds it).

function windowFor(env: Env, name: RateLimitName, now: number) {
  return windowOf(readConfig(env).rateLimits[name], now);
}

function windowOf({ max, windowSeconds }: RateLimitSpec, now: number) {
  const nowSeconds = Math.floor(now / 1000);
  const windowStart = nowSeconds - (nowSeconds % windowSeconds);
  /** How much of the previous window still lies inside the sliding window ending now. */
  const previousWeight = 1 - (now / 1000 - windowStart) / windowSeconds;
  return { max, windowSeconds, windowStart, nowSeconds, previousWeight };
}

/**
 * One upsert per hit: the counter of the current fixed window, and the previous window's count
 * (carried over when a new window starts, zero after a gap). SQLite reads every SET expression
 * from the old row, so the order below does not matter.
 */
/** A counter's key: the limit's name and the subject it counts (case-insensitive). */
const keyOf = (name: RateLimitName, subject: string) => `${name}:${subject.toLowerCase()}`;

/**
 * The sliding-window estimate (docs/decisions/009): the hits of the current window plus the
 * previous window's, weighted by how much of it the last `windowSeconds` still cover. A burst at a
 * window boundary therefore counts against the next window too (a fixed window let twice the
 * limit through around a boundary).
 */
function verdict(w: ReturnType<typeof windowFor>, count: number, prev: number): RateLimitResult {
  const estimate = count + prev * w.previousWeight;
  const elapsed = w.nowSeconds - w.windowStart;
  let retryAfter: number;
  if (count > w.max) {
    // Wait for this window to end and the next to slide far enough past it.
    retryAfter = w.windowSeconds - elapsed + w.windowSeconds * Math.max(0, 1 - (w.max - 1) / count);
  } else {
    // Wait until enough of the previous window has slid out.
    const needed = prev > 0 ? w.windowSeconds * (1 - (w.max - count) / prev) : 0;
    retryAfter = needed - elapsed;
  }
  return {
    allowed: estimate <= w.max,
    remaining: Math.max(0, Math.floor(w.max - estimate)),
    retryAfter: Math.max(1, Math.ceil(retryAfter)),
  };
}

/**
 * The same sliding window counted elsewhere than D1 (a Durable Object's memory): `count` hits in
 * the fixed window starting at `windowStart`, `prev` in the one before. Returns the window `hits`
 * more hits at `now` would leave (the counts rolled over to the window `now` falls in), and the
 * verdict for them; with `hits` 0, what is left of the limit now.
 */
export function slidingWindowHit(
  limit: RateLimitSpec,
  counter: { windowStart: number; count: number; prev: number } | undefined,
  now: number,
  hits = 1,
) {
  const w = windowOf(limit, now);
  let count = 0;
  let prev = 0;
  if (counter?.windowStart === w.windowStart) {
    count = counter.count;
    prev = counter.prev;
  } else if (counter?.windowStart === w.windowStart - w.windowSeconds) {
    prev = counter.count;
  }
  return {
    next: { windowStart: w.windowStart, count: count + hits, prev },
    result: verdict(w, count + hits, prev),
  };
}

/**
 * Takes back `hits` counted in the window starting at `windowStart` (hits reserved and not
 * used): from the current window's count or the previous one's, whichever it was; a window
 * already out of the sliding window counts nothing any more.
 */
export function slidingWindowGiveBack(
  limit: RateLimitSpec,
  counter: { windowStart: number; count: number; prev: number } | undefined,
  windowStart: number,
  hits: number,
) {
  if (!counter || hits <= 0) return counter;
  if (counter.windowStart === windowStart) {
    return { ...counter, count: Math.max(0, counter.count - hits) };
  }
  if (counter.windowStart - limit.windowSeconds === windowStart) {
    return { ...counter, prev: Math.max(0, counter.prev - hits) };
  }
  return counter;
}

/**
 * Counts a hit and says whether it is within the limit (a sliding window over D1 counters: one
 * upsert, atomic in SQLite). A flood ages out on its own, so bad attempts can never lock the
 * real member out for longer than two windows.
 */
export async function hit(
  env: Env,
  name: RateLimitName,
  subject: string,
  now = Date.now(),
): Promise<RateLimitResult> {
  const w = windowFor(env, name, now);
  const row = await firstOf(
    env.DB,
    countFields,
    sql`INSERT INTO rate_limits (key, window_start, count, prev_count)
        VALUES (${keyOf(name, subject)}, ${w.windowStart}, 1, 0)
        ON CONFLICT(key) DO UPDATE SET
          prev_count = CASE
            WHEN rate_limits.window_start = excluded.window_start THEN rate_limits.prev_count
            WHEN rate_limits.window_start = excluded.window_start - ${w.windowSeconds} THEN rate_limits.count
            ELSE 0 END,
          count = CASE WHEN rate_limits.window_start = excluded.window_start THEN rate_limits.count + 1 ELSE 1 END,
          window_start = excluded.window_start
        RETURNING count, prev_count`,
  );
  return verdict(w, row?.count ?? 1, row?.prev_count ?? 0);
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
  await run(
    env.DB,
    sql`UPDATE rate_limits SET count = count - 1
        WHERE key = ${keyOf(name, subject)} AND window_start = ${windowStart} AND count > 0`,
  );
}

/** Forgets a counter (its owner proved who they are: a password reset clears their sign-in limits). */
export async function clear(env: Env, name: RateLimitName, subject: string): Promise<void> {
  await run(env.DB, sql`DELETE FROM rate_limits WHERE key = ${keyOf(name, subject)}`);
}

/** Reads a counter without counting (used to refuse before doing expensive work). */
export async function peek(
  env: Env,
  name: RateLimitName,
  subject: string,
  now = Date.now(),
): Promise<RateLimitResult> {
  const w = windowFor(env, name, now);
  const row = await firstOf(
    env.DB,
    windowFields,
    sql`SELECT ${windowFields.sql} FROM rate_limits WHERE key = ${keyOf(name, subject)}`,
  );
  const [count, prev] = !row
    ? [0, 0]
    : row.window_start === w.windowStart
      ? [row.count, row.prev_count]
      : row.window_start === w.windowStart - w.windowSeconds
        ? [0, row.count]
        : [0, 0];
  // Allowed when one more hit would still be within the limit.
  const next = verdict(w, count + 1, prev);
  return { ...next, remaining: Math.max(0, Math.floor(w.max - count - prev * w.previousWeight)) };
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
