import { api, ApiError } from "~/lib/http";

/**
 * docs/domain.md "Presence": POST /me/heartbeat while a signed-in page is open, so that the
 * member's last_seen_at stays fresh. A 419 (the page's CSRF token expired) reloads the page; any
 * other failure is only logged.
 */
export const HEARTBEAT_INTERVAL_MS = 60_000;

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

/** Beats now, then every interval and whenever the page becomes visible again. Returns a stop. */
export function startHeartbeat(intervalMs = HEARTBEAT_INTERVAL_MS): () => void {
  void sendHeartbeat();
  const timer = setInterval(() => void sendHeartbeat(), intervalMs);
  const onVisible = () => {
    if (document.visibilityState === "visible") void sendHeartbeat();
  };
  document.addEventListener("visibilitychange", onVisible);
  return () => {
    clearInterval(timer);
    document.removeEventListener("visibilitychange", onVisible);
  };
}
