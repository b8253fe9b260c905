/**
 * Registers the service worker (app/service-worker/sw.js, served as /sw.js) once the page has
 * loaded and the browser is idle: it is for the next visit (the offline page, notifications), so it
 * never competes with this page's own start. `updateViaCache: "none"` makes every update check
 * ask the server for /sw.js, so a deploy reaches installed apps on their next navigation.
 */
export function registerServiceWorker(): void {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  const register = () => {
    registerWorker().catch(() => {
      // A browser that refuses (private mode, a policy) still has the whole site.
    });
  };
  const whenIdle = () =>
    "requestIdleCallback" in window
      ? window.requestIdleCallback(register, { timeout: 5_000 })
      : setTimeout(register, 1_000);
  if (document.readyState === "complete") whenIdle();
  else window.addEventListener("load", whenIdle, { once: true });
}

/** The one registration of /sw.js, wherever it is made (here, or when push is turned on). */
export function registerWorker(): Promise<ServiceWorkerRegistration> {
  return navigator.serviceWorker.register("/sw.js", { scope: "/", updateViaCache: "none" });
}

/**
 * The unread count on the installed app's icon, where the platform has one (Chrome and Edge on
 * desktop and Android, Safari for apps on the home screen); nothing elsewhere.
 */
export function showAppBadge(count: number): void {
  if (!("setAppBadge" in navigator)) return;
  const done = count > 0 ? navigator.setAppBadge(count) : navigator.clearAppBadge();
  done.catch(() => {
    // Not installed, or the permission is not there: the bell in the page still counts.
  });
}

/**
 * A call stopped ringing (answered, declined or ended, on any page): its ring's notification in
 * this browser goes too (app/service-worker/sw.js shows it under the tag `call:{conversation}`).
 */
export function closeRingNotification(conversationId: string): void {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker
    .getRegistration("/")
    .then((registration) => registration?.getNotifications({ tag: `call:${conversationId}` }))
    .then((shown) => {
      for (const n of shown ?? [])
        if ((n.data as { type?: string } | null)?.type === "call") n.close();
    })
    .catch(() => {
      // No worker, or notifications not allowed: nothing is on screen.
    });
}
