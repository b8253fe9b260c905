import type { Options } from "partysocket/ws";

/**
 * How a socket comes back after it drops (docs/realtime.md "Reconnecting"): full jitter. The
 * n-th retry waits a time drawn uniformly from [0, window), the window doubling from `baseMs` up
 * to `capMs`, so that the tabs a deploy or a restart dropped together spread over the window
 * instead of arriving in one wave. A server that closes with 1012 (restarting) or 1013 (try again
 * later) may name a window of its own in the reason (`retry=SECONDS`): the next retry draws from
 * that one when it is longer.
 */
export interface Backoff {
  baseMs: number;
  capMs: number;
}

export const MEMBER_BACKOFF: Backoff = { baseMs: 1_000, capMs: 30_000 };
export const CONVERSATION_BACKOFF: Backoff = { baseMs: 500, capMs: 15_000 };

/** Longest window a server's hint may ask for. */
export const MAX_HINT_MS = 300_000;

/** The wait before retry `attempt` (0 for the first), drawn with `random` (in [0, 1)). */
export function reconnectDelay(
  backoff: Backoff,
  attempt: number,
  random: () => number = Math.random,
  hintMs = 0,
): number {
  const window = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, attempt));
  return Math.floor(random() * Math.max(window, Math.min(hintMs, MAX_HINT_MS)));
}

/** The retry window a close names (`retry=SECONDS` with 1012 or 1013), in ms, or 0. */
export function retryHint(code: number, reason: string): number {
  if (code !== 1012 && code !== 1013) return 0;
  const seconds = /\bretry=(\d{1,4})\b/.exec(reason)?.[1];
  return seconds ? Math.min(Number(seconds) * 1000, MAX_HINT_MS) : 0;
}

/**
 * partysocket options (`extra`, and) waiting `reconnectDelay` before each retry: partysocket reads
 * its options at every retry, so the delay it computes (`minReconnectionDelay` × 1^n) is ours. The
 * delay is a getter: do not spread the result into another object (that would read it once).
 * `state.attempts` counts the retries since the socket was last open; `state.hintMs` is the last
 * close's hint. The owner resets both when the socket opens.
 */
export function jitteredOptions(
  backoff: Backoff,
  state: { attempts: number; hintMs: number },
  extra: Options = {},
): Options {
  const options: Options = {
    ...extra,
    reconnectionDelayGrowFactor: 1,
    maxReconnectionDelay: MAX_HINT_MS,
  };
  Object.defineProperty(options, "minReconnectionDelay", {
    enumerable: true,
    get: () => reconnectDelay(backoff, state.attempts++, Math.random, state.hintMs),
  });
  return options;
}
