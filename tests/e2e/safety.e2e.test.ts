/**
 * Blocking in Chromium: two members who find each other in search chat; one blocks the other from
 * the open conversation. Both composers stop at once, the conversation leaves the list, the
 * members vanish from each other's search, and the profiles are gone. Then the block is lifted
 * from Settings › Blocked members and the profile comes back, and one reports the other from it.
 */
import type { Page, WebSocketRoute } from "playwright-core";
import { describe, expect, test } from "vitest";
import { REPORTED_MESSAGE } from "../../app/schemas/report";
import {
  ACTION_TIMEOUT_MS,
  useBrowser,
  registerVerifiedMember,
  visit,
  waitForPath,
} from "./helpers";

/** POSTs JSON from the page, as the app's own client does (CSRF token from the meta tag). */
async function postFromPage(page: Page, path: string, body: unknown): Promise<number> {
  return page.evaluate(
    async ({ path, body }) => {
      const token = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content");
      const res = await fetch(path, {
        method: "POST",
        headers: {
          Accept: "application/json",
          "Content-Type": "application/json",
          "X-CSRF-Token": token ?? "",
        },
        body: JSON.stringify(body),
      });
      return res.status;
    },
    { path, body },
  );
}

/**
 * Searches the dashboard for a username and says whether that member is among the results
 * (waiting for the search to finish either way).
 */
async function findsInSearch(page: Page, username: string): Promise<boolean> {
  await visit(page, "/dashboard");
  const form = page.getByRole("search", { name: "Search members" });
  await form.getByLabel("Keywords").fill(username);
  await form.getByRole("button", { name: "Search" }).click();
  // The summary names the keywords once this search has answered.
  await page
    .getByTestId("search-summary")
    .filter({ hasText: `found for “${username}”` })
    .waitFor();
  return (await page.getByRole("article", { name: new RegExp(`^${username}, \\d+$`) }).count()) > 0;
}

/**
 * Opens the conversation's socket from `page` as the chat page does (a browser's own handshake,
 * with its cookie) and says how it ended: its close code and reason, and what it received.
 */
async function conversationSocketEnd(page: Page, conversationId: string) {
  return page.evaluate(
    (id) =>
      new Promise<{ code: number; reason: string; frames: unknown[] }>((resolve) => {
        const frames: unknown[] = [];
        const ws = new WebSocket(`${location.origin.replace(/^http/, "ws")}/ws/chat/${id}`);
        ws.onmessage = (event) => frames.push(event.data);
        ws.onclose = (event) => resolve({ code: event.code, reason: event.reason, frames });
      }),
    conversationId,
  );
}

/** Bob writes to Alice from her profile; his chat page opens on the conversation. */
async function bobWritesToAlice(bob: { page: Page }, alice: { member: { username: string } }) {
  await visit(bob.page, `/members/${alice.member.username}`);
  await bob.page.getByRole("button", { name: /^Message / }).click();
  await waitForPath(bob.page, "/chat");
  const composer = bob.page.getByLabel("Message", { exact: true });
  await composer.fill("Hi Alice, fancy a coffee?");
  await composer.press("Enter");
  await expect
    .poll(() => bob.page.getByTestId("message").count(), { timeout: ACTION_TIMEOUT_MS })
    .toBe(1);
  const conversation = new URL(bob.page.url()).searchParams.get("conversation");
  expect(conversation).toBeTruthy();
  return conversation!;
}

describe("blocking in Chromium", () => {
  const browser = useBrowser();

  test("block from a conversation: composers refuse, the member vanishes", async () => {
    const alice = await registerVerifiedMember(browser(), "alice");
    const bob = await registerVerifiedMember(browser(), "bob");

    // Before the block they find each other.
    expect(await findsInSearch(alice.page, bob.member.username)).toBe(true);

    // Bob writes to Alice from her profile.
    const conversation = await bobWritesToAlice(bob, alice);
    const bobComposer = bob.page.getByLabel("Message", { exact: true });

    // Alice opens the conversation and sees the message.
    await visit(alice.page, `/chat?conversation=${conversation}`);
    await expect
      .poll(
        () =>
          alice.page
            .getByTestId("message")
            .filter({ hasText: "Hi Alice, fancy a coffee?" })
            .count(),
        { timeout: ACTION_TIMEOUT_MS },
      )
      .toBe(1);
    const aliceComposer = alice.page.getByLabel("Message", { exact: true });
    expect(await aliceComposer.isEnabled()).toBe(true);

    // Alice blocks Bob from the conversation.
    await alice.page.getByRole("button", { name: "More actions" }).click();
    await alice.page.getByRole("menuitem", { name: /^Block / }).click();
    const dialog = alice.page.getByRole("dialog");
    await dialog.getByLabel("Reason").selectOption("harassment");
    await dialog.getByLabel("Note (optional)").fill("Would not take no for an answer.");
    await dialog.getByRole("button", { name: "Block", exact: true }).click();
    await dialog.getByText("User has been blocked successfully.").waitFor();

    // Both composers refuse at once: the conversation's sockets were closed by the block.
    await expect.poll(() => aliceComposer.isDisabled(), { timeout: ACTION_TIMEOUT_MS }).toBe(true);
    await expect.poll(() => bobComposer.isDisabled(), { timeout: ACTION_TIMEOUT_MS }).toBe(true);
    expect(await bobComposer.getAttribute("placeholder")).toBe(
      "You can no longer message this member",
    );
    // And the server refuses a message sent anyway.
    expect(
      await postFromPage(bob.page, `/chat/conversations/${conversation}/messages`, {
        message: "Why?",
      }),
    ).toBe(403);

    // Back to the lists: the conversation is gone.
    await dialog.getByRole("button", { name: "Back to conversations" }).click();
    await expect
      .poll(() => alice.page.getByRole("dialog").count(), { timeout: ACTION_TIMEOUT_MS })
      .toBe(0);
    await visit(alice.page, "/chat");
    expect(await alice.page.getByText(bob.member.username).count()).toBe(0);

    // They vanish from each other's search.
    expect(await findsInSearch(alice.page, bob.member.username)).toBe(false);
    expect(await findsInSearch(bob.page, alice.member.username)).toBe(false);

    // Each profile is gone for the other.
    const bobSeesAlice = await bob.page.goto(`/members/${alice.member.username}`);
    expect(bobSeesAlice?.status()).toBe(404);
    const aliceSeesBob = await alice.page.goto(`/members/${bob.member.username}`);
    expect(aliceSeesBob?.status()).toBe(404);

    // Alice's blocked list shows Bob; unblocking brings his profile back.
    await visit(alice.page, "/settings/blocked");
    const row = alice.page.getByRole("listitem").filter({ hasText: bob.member.username });
    await row.waitFor();
    await row.getByRole("button", { name: /^Unblock / }).click();
    await alice.page.getByText("User has been unblocked successfully.").waitFor();
    await alice.page.getByText("You have not blocked anyone.").waitFor();
    const again = await alice.page.goto(`/members/${bob.member.username}`);
    expect(again?.status()).toBe(200);

    // From the profile, Alice reports Bob to the moderators: a reason is required.
    await alice.page.getByRole("button", { name: "More actions" }).click();
    await alice.page.getByRole("menuitem", { name: /^Report / }).click();
    const report = alice.page.getByRole("dialog");
    await report.getByRole("button", { name: "Send report" }).click();
    await report.getByText("Please choose a reason.").waitFor();
    await report.getByLabel("What is wrong?").selectOption("harassment");
    await report.getByLabel("Details (optional)").fill("Kept writing after I said no.");
    await report.getByRole("button", { name: "Send report" }).click();
    await report.getByText(REPORTED_MESSAGE).waitFor();
  });

  test("a block while the blocked member's conversation socket is down closes his conversation once he is back", async () => {
    const alice = await registerVerifiedMember(browser(), "alice");
    const bob = await registerVerifiedMember(browser(), "bob");

    // Bob's conversation sockets go through a switch the test holds (the browser's offline mode
    // stops new connections, not a socket already open); each is the browser's own handshake.
    const attempts: WebSocketRoute[] = [];
    await bob.page.routeWebSocket(/\/ws\/chat\//, (ws) => {
      attempts.push(ws);
      ws.connectToServer();
    });
    const conversation = await bobWritesToAlice(bob, alice);
    const thread = bob.page.locator("section.thread");
    await bob.page.locator('section.thread[data-connected="true"]').waitFor();
    const bobComposer = bob.page.getByLabel("Message", { exact: true });

    // Bob's conversation socket drops (a keepalive timeout) while his network is gone: it keeps
    // trying, and every try fails before it opens.
    const context = bob.page.context();
    await context.setOffline(true);
    const cutAt = attempts.length;
    for (const ws of attempts) await ws.close({ code: 4000, reason: "keepalive timeout" });
    await bob.page.locator('section.thread[data-connected="false"]').waitFor();

    // Meanwhile Alice blocks him from her side of the conversation.
    await visit(alice.page, `/chat?conversation=${conversation}`);
    await alice.page.getByRole("button", { name: "More actions" }).click();
    await alice.page.getByRole("menuitem", { name: /^Block / }).click();
    const dialog = alice.page.getByRole("dialog");
    await dialog.getByLabel("Reason").selectOption("harassment");
    await dialog.getByRole("button", { name: "Block", exact: true }).click();
    await dialog.getByText("User has been blocked successfully.").waitFor();

    // Bob's page tries again and again, offline: a network that is down closes nothing, not even
    // once the tries that failed in a row have his page ask over HTTP (ROOM_FAILED_OPENS_CHECK, 3;
    // waited for until a try made after the block, the third or later since the cut, has failed:
    // the next one has begun). The tries back off (windows of up to 15 s).
    const triedBefore = attempts.length;
    const enough = Math.max(triedBefore, cutAt + 2) + 2;
    await expect.poll(() => attempts.length, { timeout: 45_000 }).toBeGreaterThanOrEqual(enough);
    expect(await bobComposer.isEnabled()).toBe(true);
    expect(await thread.getAttribute("data-connected")).toBe("false");

    // His network returns: within a few seconds the conversation is closed to him, as on 4403.
    await context.setOffline(false);
    await expect.poll(() => bobComposer.isDisabled(), { timeout: 5_000 }).toBe(true);
    expect(await bobComposer.getAttribute("placeholder")).toBe(
      "You can no longer message this member",
    );
    await thread.getByText("This conversation is no longer available.").waitFor();

    // A browser's socket to the conversation is now answered with the room's 4403
    // (CHAT_CLOSE_FORBIDDEN) and nothing else, for either member: the refusal a browser can read
    // (it sees no HTTP status).
    const bobElsewhere = await context.newPage();
    await visit(bobElsewhere, "/chat");
    for (const page of [bobElsewhere, alice.page]) {
      expect(await conversationSocketEnd(page, conversation)).toEqual({
        code: 4403,
        reason: "This conversation is no longer available.",
        frames: [],
      });
    }
  });
});
