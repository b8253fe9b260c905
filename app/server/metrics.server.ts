import type { Env } from "./env.server";

/**
 * Counters an operator alerts on, written to Workers Analytics Engine (the METRICS binding; see
 * docs/runbook.md for the queries and what each one means). One data point per event: `blob1` and
 * `index1` are the counter's name, `double1` how many. Writing never waits and never throws: a
 * counter lost is better than a request failed. Without the binding (a copy of the Worker that has
 * none) nothing is written.
 */
export type Counter =
  | "message_sent"
  | "email_queued"
  | "email_sent"
  | "email_failed"
  | "webhook_failed"
  | "d1_error"
  | "http_5xx"
  | "health_failed"
  | "housekeeping_failed"
  | "push_sent"
  | "push_failed"
  | "push_removed"
  | "push_withheld"
  | "presence_turned_away";

export function count(env: Pick<Env, "METRICS">, counter: Counter, n = 1): void {
  try {
    env.METRICS?.writeDataPoint({ indexes: [counter], blobs: [counter], doubles: [n] });
  } catch {
    // Analytics Engine drops points it cannot take; the request goes on.
  }
}
