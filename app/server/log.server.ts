/**
 * A failure that is logged rather than answered (best-effort deliveries, background work): one
 * JSON line, `event` naming what failed, `detail` what it concerned.
 */
export function logFailure(event: string, error: unknown, detail: Record<string, unknown> = {}) {
  console.error(JSON.stringify({ level: "error", event, ...detail, error: String(error) }));
}
