import { api, ApiError } from "~/lib/http";
import { HEARTBEAT_INTERVAL_MS } from "~/lib/online";

/**
 * docs/domain.md "Presence": POST /me/heartbeat keeps the member's last_seen_at fresh while a
 * signed-in page is open and its presence socket is not: while the socket is open, the presence
 * shard writes last_seen_at for all its members in one batch (durable-objects/presence/
 * last-seen.ts), and a heartbeat would be one more D1 read and write for nothing. A 419 (the
 * page's CSRF token expired) reloads the page; any other failure is only logged. How often it
 * beats is part of what "online" means (app/lib/online.ts).
 */

export async function sendHeartbeat(reload: () => void = () => window.location.reload()) {
  try {
    await api("/me/heartbeat", { method: "POST" });
  } catch (error) {
    if (error instanceof ApiError && error.status === 419) {
      reload();
      return;
    }
    console.error("Heartbeat failed", error);
  }
}

/** The first beat waits this long: a page whose presence socket opens by then never beats. */
export const FIRST_BEAT_MS = 5_000;

/**
 * Beats soon after the page opens, then every interval and whenever the page becomes visible
 * again, each time only if `covered()` (the presence socket is open) says no. Returns a stop.
 */
export function startHeartbeat(
  covered: () => boolean = () => false,
  intervalMs = HEARTBEAT_INTERVAL_MS,
): () => void {
  const beat = () => {
    if (!covered()) void sendHeartbeat();
  };
  const first = setTimeout(beat, FIRST_BEAT_MS);
  const timer = setInterval(beat, intervalMs);
  const onVisible = () => {
    if (document.visibilityState === "visible") beat();
  };
  document.addEventListener("visibilitychange", onVisible);
  return () => {
    clearTimeout(first);
    clearInterval(timer);
    document.removeEventListener("visibilitychange", onVisible);
  };
}
