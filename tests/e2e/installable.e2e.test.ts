/**
 * API.md "Away from the app": Heartline can be installed, keeps an offline page and nothing else,
 * shows a push as a notification and opens its page when the notification is clicked. In
 * Chromium, through the DevTools protocol where a member's browser would act on its own (the push
 * service's delivery, the installability check).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  chromium,
  type BrowserContext,
  type CDPSession,
  type Page,
  type Worker,
} from "playwright-core";
import { describe, expect, test } from "vitest";
import { ApiMember, idOf } from "./api-member";
import {
  ACTION_TIMEOUT_MS,
  baseUrl,
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  openPage,
  registerThroughUi,
  registerVerifiedMember,
  uniqueMember,
  useBrowser,
  verifyEmailThroughMailbox,
  visit,
} from "./helpers";

/** The service worker of this page's context, once it has taken the page over. */
async function serviceWorkerOf(page: Page): Promise<Worker> {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
    timeout: 20_000,
  });
  const context = page.context();
  return context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
}

/** What every cache of the origin holds, as paths. */
async function cachedPaths(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const paths: string[] = [];
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const request of await cache.keys()) paths.push(new URL(request.url).pathname);
    }
    return paths.sort();
  });
}

/** The DevTools protocol's id of the page's browser context. */
async function contextId(page: Page): Promise<string> {
  const cdp = await page.context().newCDPSession(page);
  const { targetInfo } = await cdp.send("Target.getTargetInfo");
  return targetInfo.browserContextId!;
}

/** The registration id the DevTools protocol names the origin's service worker by. */
async function registrationId(cdp: CDPSession): Promise<string> {
  const found = new Promise<string>((resolve) => {
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const active = registrations.find((r) => !r.isDeleted && r.scopeURL === `${baseUrl()}/`);
      if (active) resolve(active.registrationId);
    });
  });
  await cdp.send("ServiceWorker.enable");
  return found;
}

/**
 * The page's service worker, and a push delivered to it as a push service would (through the
 * DevTools protocol: the plaintext the worker reads).
 */
async function pushesTo(
  page: Page,
): Promise<{ sw: Worker; push: (payload: object) => Promise<void> }> {
  const sw = await serviceWorkerOf(page);
  const cdp = await page.context().newCDPSession(page);
  const registration = await registrationId(cdp);
  const push = async (payload: object) => {
    await cdp.send("ServiceWorker.deliverPushMessage", {
      origin: baseUrl(),
      registrationId: registration,
      data: JSON.stringify(payload),
    });
  };
  return { sw, push };
}

async function notifications(
  sw: Worker,
): Promise<{ title: string; body: string; tag: string; url: string }[]> {
  return sw.evaluate(`self.registration.getNotifications().then((list) =>
    list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url })))`);
}

describe("installable", () => {
  const browser = useBrowser();

  test("the manifest is valid, its icons load, and Chromium finds the app installable", async () => {
    // A profile of its own: Chromium never offers to install from an incognito context, which is
    // what every other test's context is.
    const profile = await mkdtemp(path.join(os.tmpdir(), "heartline-install-"));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      baseURL: baseUrl(),
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await visit(page, "/login");
      await serviceWorkerOf(page);
      const cdp = await context.newCDPSession(page);
      const manifest = await cdp.send("Page.getAppManifest");
      expect(manifest.url).toBe(`${baseUrl()}/manifest.webmanifest`);
      expect(manifest.errors).toEqual([]);
      // The check loads the icons and needs the service worker in control of the page.
      const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
      expect(installabilityErrors).toEqual([]);
    } finally {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    }
  });

  test("with the network gone, a page opens as the offline page, and Try again returns to it", async () => {
    const { page } = await registerVerifiedMember(browser(), "offline");
    await visit(page, "/dashboard");
    await serviceWorkerOf(page);
    await visit(page, "/my/profile");
    const context: BrowserContext = page.context();
    await context.setOffline(true);
    await page.goto("/my/matches");
    await expect
      .poll(() => page.getByRole("heading", { name: "You are offline" }).isVisible())
      .toBe(true);
    // Its stylesheet came from the service worker's cache too.
    expect(
      await page.locator(".offline-retry").evaluate((a) => getComputedStyle(a).borderRadius),
    ).toBe("999px");
    expect(new URL(page.url()).pathname).toBe("/my/matches");

    await context.setOffline(false);
    await page.getByRole("link", { name: "Try again" }).click();
    await page.waitForURL((url) => url.pathname === "/my/matches");
    await page.getByRole("heading", { name: "Discover" }).first().waitFor();
    // Pages of a signed-in member went through the worker; what it keeps is only the offline
    // page's static files.
    expect(await cachedPaths(page)).toEqual(
      ["/favicon.svg", "/icons/icon-192.png", "/offline", "/offline.css"].sort(),
    );
  });

  test("a push shows as a notification that replaces the one of its tag, and a click opens the conversation", async () => {
    const reader = uniqueMember("notified");
    const { member, page } = await registerVerifiedMember(browser(), reader.username.slice(0, 8));
    await page.context().grantPermissions(["notifications"], { origin: baseUrl() });
    const writer = await new ApiMember(uniqueMember("writer")).join({ interests: ["Jazz"] });
    const started = await writer.expect("POST", "/chat/conversations", 201, {
      user_id: await idOf(page, member.username),
      message: "Hello there!",
    });
    const id = (started?.conversation as { id: string }).id;

    await visit(page, "/dashboard");
    const { sw, push } = await pushesTo(page);
    const tag = `conversation:${id}`;
    await push({
      type: "message",
      title: "Sam",
      body: "Sam sent you a message",
      url: `/chat/${id}`,
      tag,
    });
    await expect
      .poll(() => notifications(sw), { timeout: ACTION_TIMEOUT_MS })
      .toEqual([{ title: "Sam", body: "Sam sent you a message", tag, url: `/chat/${id}` }]);
    await push({
      type: "message",
      title: "Sam",
      body: "Sam sent 3 messages",
      url: `/chat/${id}`,
      tag,
    });
    await expect
      .poll(() => notifications(sw), { timeout: ACTION_TIMEOUT_MS })
      .toEqual([{ title: "Sam", body: "Sam sent 3 messages", tag, url: `/chat/${id}` }]);
    // A payload that points away from Heartline opens the notifications page instead.
    await push({
      type: "like",
      title: "A new like",
      body: "",
      url: "https://evil.example/",
      tag: "like",
    });
    await expect
      .poll(async () => (await notifications(sw)).find((n) => n.tag === "like")?.url, {
        timeout: ACTION_TIMEOUT_MS,
      })
      .toBe("/notifications");

    // The click: the member's open window goes to the conversation.
    await sw.evaluate(`self.registration.getNotifications({ tag: ${JSON.stringify(tag)} }).then(([n]) =>
      self.dispatchEvent(new NotificationEvent("notificationclick", { notification: n })))`);
    await page.waitForURL(
      (url) => url.pathname === "/chat" && url.searchParams.get("conversation") === id,
    );
    await page.getByTestId("message").getByText("Hello there!").waitFor();
    await expect
      .poll(async () => (await notifications(sw)).map((n) => n.tag), { timeout: ACTION_TIMEOUT_MS })
      .toEqual(["like"]);
  });

  test("a ring leaves the screen when it ends, and an answer on another device replaces it quietly", async () => {
    const { page } = await registerVerifiedMember(browser(), "rung");
    await page.context().grantPermissions(["notifications"], { origin: baseUrl() });
    await visit(page, "/dashboard");
    const { sw, push } = await pushesTo(page);
    const ring = (tag: string, endsAt: number) =>
      push({
        type: "call",
        title: "Incoming call",
        body: "Sam is calling you",
        url: "/chat",
        tag,
        ends_at: endsAt,
      });
    const answered = (tag: string) =>
      push({
        type: "call_answered",
        title: "Answered call",
        body: "You answered Sam's call on another device",
        url: "/chat",
        tag,
      });
    const shown = async () => (await notifications(sw)).map((n) => `${n.tag} ${n.title}`).sort();

    // Answered on another device: the same tag now says so.
    await ring("call:a", Date.now() + 60_000);
    await expect.poll(shown, { timeout: ACTION_TIMEOUT_MS }).toEqual(["call:a Incoming call"]);
    await answered("call:a");
    await expect.poll(shown, { timeout: ACTION_TIMEOUT_MS }).toEqual(["call:a Answered call"]);

    // An answer for a ring this browser no longer shows, with a page of Heartline in front:
    // nothing to show.
    await answered("call:b");
    // A ring whose call ended with nothing to replace it (a block): gone at the next page opened.
    await ring("call:c", Date.now() + 1_500);
    await expect
      .poll(shown, { timeout: ACTION_TIMEOUT_MS })
      .toEqual(["call:a Answered call", "call:c Incoming call"]);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    await visit(page, "/my/matches");
    await expect.poll(shown, { timeout: ACTION_TIMEOUT_MS }).toEqual(["call:a Answered call"]);
  });

  test("notification settings: each kind by channel, quiet hours in this device's time zone, and push explained when the browser blocks it", async () => {
    const member = uniqueMember("settings");
    const page = await openPage(browser(), { timezoneId: "Asia/Tokyo" });
    await registerThroughUi(page, member);
    await verifyEmailThroughMailbox(page, member);
    await visit(page, "/settings/notifications");

    const push = page.locator("section.push-settings");
    await expect.poll(() => push.getAttribute("data-push-state")).toBe("off");
    await page.getByRole("button", { name: "Turn on push notifications" }).waitFor();

    await page.getByRole("group", { name: "Likes" }).getByLabel("Push").uncheck();
    await page.getByRole("group", { name: "Profile views" }).getByLabel("Email").check();
    await page.getByLabel("Show message text in push notifications").check();
    await page.getByLabel("Quiet hours").check();
    expect(await page.getByLabel("Time zone").inputValue()).toBe("Asia/Tokyo");
    await page.getByLabel("From").fill("23:30");
    await page.getByRole("button", { name: "Save notification settings" }).click();
    await page.getByText("Notification settings saved.").waitFor();
    const saved = await page.evaluate(async () =>
      (
        await fetch("/my/notification-preferences", { headers: { Accept: "application/json" } })
      ).json(),
    );
    expect(saved).toMatchObject({
      preferences: {
        like: { in_app: true, push: false, email: true },
        profile_view: { in_app: true, push: false, email: true },
      },
      quiet_hours: { start: "23:30", end: "08:00", time_zone: "Asia/Tokyo" },
      preview: true,
    });

    // The browser blocks notifications for the site: the page says how to undo that.
    const cdp = await page.context().browser()!.newBrowserCDPSession();
    await cdp.send("Browser.setPermission", {
      origin: baseUrl(),
      permission: { name: "notifications" },
      setting: "denied",
      browserContextId: await contextId(page),
    });
    await visit(page, "/settings/notifications");
    await expect.poll(() => push.getAttribute("data-push-state")).toBe("denied");
    await push.getByText("Notifications are blocked for Heartline in this browser").waitFor();
    expect(await page.getByRole("button", { name: "Turn on push notifications" }).count()).toBe(0);
  });
});
