/**
 * Presence and live notifications in Chromium: two members; the dashboard says how many members
 * are online; one goes away and comes back online and the other, looking at their profile (which
 * watches that member), sees the online dot go and come back without reloading;
 * a profile view and a like then reach the first member live, as a toast and an unread count in
 * the header, and the notifications page lists them and marks them read.
 */
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import {
  ACTION_TIMEOUT_MS,
  useBrowser,
  registerVerifiedMember,
  visit,
  visitFromApp,
  waitForPath,
} from "./helpers";

/** The presence room lets a member go 5 s after their last tab closes (wrangler.toml). */
const PRESENCE_TIMEOUT_MS = 20_000;

/** The signed-in member's id, from the page's root loader data. */
function memberIdOf(page: Page): Promise<string> {
  return page.evaluate(() => {
    const context = (
      window as unknown as {
        __remixContext: { state: { loaderData: { root: { user: { id: string } } } } };
      }
    ).__remixContext;
    return context.state.loaderData.root.user.id;
  });
}

/** A JSON call from inside the page, with its CSRF token, as the app's own client makes it. */
function callApi(page: Page, method: string, path: string, body?: unknown): Promise<number> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const token =
        document.querySelector('meta[name="csrf-token"]')?.getAttribute("content") ?? "";
      const res = await fetch(path, {
        method,
        headers: {
          Accept: "application/json",
          "Content-Type": "application/json",
          "X-CSRF-Token": token,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return res.status;
    },
    { method, path, body },
  );
}

function unreadBadge(page: Page) {
  return page.getByTestId("unread-count");
}

describe("presence and live notifications in Chromium", () => {
  const browser = useBrowser();

  test("a dot appears when a member comes online; a like arrives live with an unread count", async () => {
    const { member: aliceMember, page: alice } = await registerVerifiedMember(browser(), "alice");
    const { member: bobMember, page: bob } = await registerVerifiedMember(browser(), "bob");
    const aliceId = await memberIdOf(alice);

    // Bob closes his last tab: after the grace period he is gone from the room.
    const bobContext = bob.context();
    await bob.close();

    // The dashboard says how many members are online (the room's count, Alice included).
    await visit(alice, "/dashboard");
    await expect
      .poll(() => alice.getByTestId("online-count").innerText(), { timeout: PRESENCE_TIMEOUT_MS })
      .toMatch(/^[\d,]+ members? online$/);

    await visit(alice, `/members/${bobMember.username}`);
    const bobsBadge = alice.locator(".profile-summary-head .presence");
    await expect
      .poll(() => bobsBadge.innerText(), { timeout: PRESENCE_TIMEOUT_MS })
      .not.toContain("Online now");
    expect(await unreadBadge(alice).count()).toBe(0);

    // Bob comes back: Alice sees the dot appear on the page she has open.
    const bobAgain = await bobContext.newPage();
    await visit(bobAgain, "/dashboard");
    await expect
      .poll(() => bobsBadge.innerText(), { timeout: PRESENCE_TIMEOUT_MS })
      .toContain("Online now");
    expect(await alice.locator(".profile-summary-head .presence-online").count()).toBe(1);

    // Bob looks at Alice's profile: she hears of it at once, wherever she is.
    await visitFromApp(bobAgain, `/members/${aliceMember.username}`);
    const toast = alice.getByTestId("notification-toast");
    await toast.getByText(`${bobMember.username} viewed your profile`).waitFor({
      timeout: ACTION_TIMEOUT_MS,
    });
    await expect.poll(() => unreadBadge(alice).innerText()).toBe("1");

    // Bob likes Alice: a live notification and the unread count goes up.
    expect(await callApi(bobAgain, "POST", "/my/likes", { user_id: aliceId })).toBe(201);
    await toast
      .getByText(`${bobMember.username} liked you`)
      .waitFor({ timeout: ACTION_TIMEOUT_MS });
    await expect.poll(() => unreadBadge(alice).innerText()).toBe("2");
    expect(
      await alice.getByRole("link", { name: "Notifications, 2 unread" }).getAttribute("href"),
    ).toBe("/notifications");

    // The notifications page lists both, newest first; marking all read clears the header.
    await alice.getByRole("link", { name: "Notifications, 2 unread" }).click();
    await waitForPath(alice, "/notifications");
    const items = alice.getByRole("list", { name: "Notifications" }).getByRole("listitem");
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.nth(0).innerText()).toContain(`${bobMember.username} liked you`);
    expect(await items.nth(1).innerText()).toContain(`${bobMember.username} viewed your profile`);
    await alice.getByRole("button", { name: "Mark all read" }).click();
    await expect.poll(() => unreadBadge(alice).count()).toBe(0);
    await expect.poll(() => alice.getByRole("button", { name: /^Mark read/ }).count()).toBe(0);
    await alice.reload();
    await waitForPath(alice, "/notifications");
    expect(await alice.getByRole("button", { name: /^Mark read/ }).count()).toBe(0);
  });

  test("no heartbeat while the presence socket is open; a page without it beats", async () => {
    const heartbeats = (page: Page) => {
      const sent: number[] = [];
      page.on("request", (r) => {
        if (r.method() === "POST" && new URL(r.url()).pathname === "/me/heartbeat") {
          sent.push(Date.now());
        }
      });
      return sent;
    };
    // With the socket: the presence shard keeps last_seen_at, the page sends nothing.
    const { page } = await registerVerifiedMember(browser(), "beat");
    const withSocket = heartbeats(page);
    const sockets: string[] = [];
    page.on("websocket", (ws) => sockets.push(ws.url()));
    const ticketRequests: string[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === "/my/socket-ticket") ticketRequests.push(r.url());
    });
    await visit(page, "/dashboard");
    await page.getByText(/members? online/).waitFor();
    await page.waitForTimeout(7_000);
    expect(withSocket).toEqual([]);
    // Both sockets opened with the ticket the page came with (ADR 044): no request for another.
    const paths = sockets
      .map((url) => new URL(url))
      .filter((url) => url.pathname.startsWith("/ws/"));
    expect(new Set(paths.map((url) => url.pathname))).toEqual(new Set(["/ws/me", "/ws/presence"]));
    for (const url of paths) expect(url.searchParams.get("ticket")).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(ticketRequests).toEqual([]);

    // Without it (websockets refused, as behind some proxies): the heartbeat keeps it fresh.
    await page.routeWebSocket(/\/ws\//, (ws) => ws.close({ code: 1011, reason: "refused" }));
    const withoutSocket = heartbeats(page);
    await visit(page, "/dashboard");
    await expect.poll(() => withoutSocket.length, { timeout: 15_000 }).toBeGreaterThan(0);
    await page.context().close();
  });
});
