/*
 * Heartline's service worker, served as /sw.js (scope /). The build (vite.config.ts,
 * `serviceWorker()`) writes it into build/client with VERSION set to a hash of this file and of
 * every file it keeps, so that a deploy which changes any of them is a new worker.
 *
 * What it does, and nothing more (API.md "Away from the app"):
 * - keeps the offline page and the three static files it loads, and shows that page when a
 *   navigation fails for want of a network. It never keeps a response that holds a member's data:
 *   pages, JSON and photos always go to the network;
 * - shows a push (`{type, title, body, url, tag}`) as a notification that replaces the previous one
 *   of its tag, and opens its `url` when the notification is clicked (a call's opens its
 *   conversation, where the call rings again and is answered; a ringing call stays on screen
 *   until the member acts, its missed call replaces it under the same tag, and so does, quietly,
 *   its answer on another device; a ring past its end is taken off the screen whenever the worker
 *   next wakes: a push, a click, a page of Heartline opened);
 * - updates itself without a reload: a new version takes over at once (it keeps no page or script
 *   of the old version that could disagree with the new one), and serves the next navigation.
 */
const VERSION = "__VERSION__";
const CACHE = `heartline-offline-${VERSION}`;
const KEPT = ["/offline", "/offline.css", "/icons/icon-192.png", "/favicon.svg"];
const OFFLINE_PAGE = KEPT[0];
const FALLBACK_URL = "/notifications";

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(KEPT.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(
        names
          .filter((name) => name.startsWith("heartline-") && name !== CACHE)
          .map((name) => caches.delete(name)),
      );
      // The page's request leaves while this worker starts, instead of after it.
      if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.waitUntil(closeEndedRings());
    event.respondWith(navigate(event));
  } else if (KEPT.includes(url.pathname) && url.search === "") {
    event.respondWith(fetch(request).catch(() => kept(url.pathname)));
  }
});

/** The network's answer, whatever its status; the offline page only when there is no network. */
async function navigate(event) {
  try {
    const preloaded = await event.preloadResponse;
    if (preloaded) return preloaded;
    return await fetch(event.request);
  } catch {
    return kept(OFFLINE_PAGE);
  }
}

async function kept(path) {
  const cache = await caches.open(CACHE);
  return (await cache.match(path)) ?? Response.error();
}

self.addEventListener("push", (event) => {
  const push = readPush(event.data);
  event.waitUntil(
    (async () => {
      await closeEndedRings();
      if (push.type === "call_answered" && !(await stillRinging(push.tag))) {
        // This browser's ring is gone already (answered here, or dismissed). A page of Heartline
        // in front is where the member is: nothing to show. Otherwise a browser requires a push
        // to show something, and the answer is shown quietly.
        if (await pageInFront()) return;
      }
      await Promise.all([
        self.registration.showNotification(push.title, notificationOptions(push)),
        // The exact count is the page's to set (it knows the bell); here: "something new".
        push.type === "call_answered" || !self.navigator.setAppBadge
          ? undefined
          : self.navigator.setAppBadge().catch(() => {}),
      ]);
    })(),
  );
});

/** How a push shows: a ring stays on screen with a sound; an answer elsewhere replaces it quietly. */
function notificationOptions(push) {
  const quiet = push.type === "call_answered";
  return {
    body: push.body,
    tag: push.tag,
    // Pushes of one tag are folded by the server; each one that arrives is worth a sound.
    renotify: !quiet,
    silent: quiet,
    // A call rings for 45 s: it stays on screen until then (its missed call replaces it).
    requireInteraction: push.type === "call",
    icon: "/icons/icon-192.png",
    badge: "/icons/badge-96.png",
    data: { url: push.url, type: push.type, ends_at: push.endsAt },
  };
}

/** Whether a ring is on screen under this tag. */
async function stillRinging(tag) {
  const shown = await self.registration.getNotifications({ tag });
  return shown.some((n) => n.data?.type === "call");
}

/** Whether a window of Heartline is visible now. */
async function pageInFront() {
  const windows = await self.clients.matchAll({ type: "window" });
  return windows.some((client) => client.visibilityState === "visible");
}

/**
 * Takes off the screen every ring past its end that nothing replaced: one whose call ended by a
 * block, or whose missed call did not reach this browser.
 */
async function closeEndedRings() {
  const now = Date.now();
  for (const n of await self.registration.getNotifications()) {
    if (n.data?.type === "call" && typeof n.data.ends_at === "number" && n.data.ends_at <= now) {
      n.close();
    }
  }
}

/**
 * A push's payload, or a plain notice when it cannot be read: a browser requires every push to
 * show something, and an unreadable one still means there is something new.
 */
function readPush(data) {
  let push = null;
  try {
    push = data ? data.json() : null;
  } catch {
    push = null;
  }
  const text = (value) => (typeof value === "string" && value.length > 0 ? value : null);
  return {
    type: text(push?.type) ?? "notification",
    title: text(push?.title) ?? "Heartline",
    body: text(push?.body) ?? "Something new is waiting for you.",
    url: pagePath(push?.url),
    tag: text(push?.tag) ?? "heartline",
    endsAt: typeof push?.ends_at === "number" ? push.ends_at : null,
  };
}

/** A path of this site; anything else (another origin, a scheme) opens the notifications page. */
function pagePath(value) {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//")) {
    return FALLBACK_URL;
  }
  return value;
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const opening = Promise.all([
    openPage(pagePath(event.notification.data?.url)),
    closeEndedRings(),
  ]);
  // A click the browser reports keeps the worker alive until the page is open; an event made by a
  // script is not trusted with that, and the page opens all the same.
  if (event.isTrusted) event.waitUntil(opening);
});

/** Brings a Heartline window forward on `path`: the one already there, another one, or a new one. */
async function openPage(path) {
  const target = new URL(path, self.location.origin).href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const there = windows.find((client) => client.url === target);
  if (there) return there.focus().catch(() => there);
  for (const client of windows) {
    try {
      const navigated = await client.navigate(target);
      if (navigated) return navigated.focus().catch(() => navigated);
    } catch {
      // Not controlled by this worker (opened before it): try the next, or a new window.
    }
  }
  return self.clients.openWindow(target);
}
