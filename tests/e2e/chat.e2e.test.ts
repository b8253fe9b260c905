/**
 * Chat in Chromium, two members in two browser contexts: one starts the conversation from the
 * other's profile and writes; the other (on a phone-sized screen) sees it arrive live in the list
 * and the header, opens and reads it, and the sender sees the read ticks; a reply arrives live,
 * typing shows, and a deletion disappears on both screens.
 */
import type { Page, WebSocketRoute } from "playwright-core";
import { describe, expect, test } from "vitest";
import { expectTitle, useBrowser, registerVerifiedMember, visit } from "./helpers";

const bubble = (page: Page, text: string) => page.getByTestId("message").filter({ hasText: text });

describe("chat in Chromium", () => {
  const browser = useBrowser();

  test("send, receive live, read ticks, reply, typing and delete on both sides", async () => {
    const { member: alice, page: a } = await registerVerifiedMember(browser(), "alice");
    const { member: bob, page: b } = await registerVerifiedMember(browser(), "bob");
    await b.setViewportSize({ width: 390, height: 844 });

    // Bob waits on the chat page, with no conversation yet.
    await visit(b, "/chat");
    await expectTitle(b, "Chat");
    await b.getByText("No conversations yet.", { exact: false }).waitFor();

    // Alice starts the conversation from Bob's profile.
    await visit(a, `/members/${bob.username}`);
    await a.getByRole("button", { name: `Message ${bob.username}` }).click();
    await a.waitForURL((url) => url.pathname === "/chat" && url.searchParams.has("conversation"));
    await a.getByRole("region", { name: `Conversation with ${bob.username}` }).waitFor();
    await a.getByText("No messages yet. Say hello!").waitFor();
    expect(await a.getByText("Want to know when").count()).toBe(0);

    const composer = a.getByLabel("Message", { exact: true });
    await composer.fill("Hello Bob, nice profile!");
    await composer.press("Enter");
    const sent = bubble(a, "Hello Bob, nice profile!");
    await sent.waitFor();
    // Sent, or already Delivered: Bob's open chat page hears of it on his own channel at once.
    await sent.getByLabel(/^(Sent|Delivered)$/).waitFor();
    await expect.poll(() => composer.inputValue()).toBe("");
    // Having written, Alice is offered pushes (never before); "Not now" keeps the offer away.
    const aliceThread = a.getByRole("region", { name: `Conversation with ${bob.username}` });
    const offer = aliceThread.getByText(`Want to know when ${bob.username} writes back`);
    await offer.waitFor();
    await aliceThread.getByRole("button", { name: "Not now" }).click();
    await offer.waitFor({ state: "hidden" });

    // Bob: the conversation arrives live in his list, unread, and in the header's badge.
    const item = b.getByTestId("conversation-item").filter({ hasText: alice.username });
    await item.waitFor();
    await item.getByText("Hello Bob, nice profile!").waitFor();
    await expect.poll(() => item.getByTestId("unread-badge").textContent()).toBe("1");
    await expect.poll(() => b.getByTestId("chat-unread").textContent()).toBe("1");
    // Bob's device has it (his list heard it), though he has not read it: Alice sees "Delivered".
    await sent.getByLabel("Delivered").waitFor();

    // He opens it (the phone shows the conversation alone, with a way back) and reads it.
    await item.click();
    const thread = b.getByRole("region", { name: `Conversation with ${alice.username}` });
    await thread.waitFor();
    await bubble(b, "Hello Bob, nice profile!").waitFor();
    await b.getByRole("button", { name: "Back to conversations" }).waitFor();
    expect(await b.getByRole("region", { name: "Conversations" }).isVisible()).toBe(false);

    // Alice sees the read ticks.
    await sent.getByLabel("Read").waitFor();
    await expect.poll(() => b.getByTestId("chat-unread").count()).toBe(0);

    // Bob types (Alice sees it), then replies; Alice sees the reply live. Typing is only said
    // over an open socket, so both rooms must be connected first.
    for (const page of [a, b])
      await page.locator('section.thread[data-connected="true"]').waitFor();
    const bobComposer = b.getByLabel("Message", { exact: true });
    await bobComposer.fill("Hi Alice");
    await a.getByTestId("typing").waitFor();
    await b.getByRole("button", { name: "Send", exact: true }).click();
    await bubble(a, "Hi Alice").waitFor();
    await expect.poll(() => a.getByTestId("typing").count()).toBe(0);
    await bubble(b, "Hi Alice")
      .getByLabel(/^(Sent|Delivered|Read)$/)
      .waitFor();
    // Alice has the conversation open, so the reply is read at once.
    await bubble(b, "Hi Alice").getByLabel("Read").waitFor();

    // Bob reacts to Alice's message from its actions (a heart); Alice sees it live. He changes
    // it, then Alice double-taps his reply for a heart of her own.
    const hello = bubble(b, "Hello Bob, nice profile!");
    await hello.click();
    await hello.getByRole("button", { name: "React to message" }).click();
    await hello.getByRole("button", { name: "React ❤️" }).click();
    await sent.getByTestId("reactions").getByLabel("They reacted ❤️").waitFor();
    await hello.getByRole("button", { name: "React to message" }).click();
    await hello.getByRole("button", { name: "React 😂" }).click();
    await sent.getByTestId("reactions").getByLabel("They reacted 😂").waitFor();
    expect(await sent.getByTestId("reaction").count()).toBe(1);
    await bubble(a, "Hi Alice").locator(".bubble").dblclick();
    await bubble(b, "Hi Alice").getByTestId("reactions").getByLabel("They reacted ❤️").waitFor();
    // Alice takes hers back by tapping it.
    await bubble(a, "Hi Alice")
      .getByRole("button", { name: "You reacted ❤️. Remove your reaction" })
      .click();
    await expect.poll(() => bubble(b, "Hi Alice").getByTestId("reaction").count()).toBe(0);

    // Both see one order.
    const order = (page: Page) =>
      page
        .getByTestId("message")
        .evaluateAll((els) => els.map((el) => el.getAttribute("data-seq")));
    expect(await order(a)).toEqual(["1", "2"]);
    expect(await order(b)).toEqual(["1", "2"]);

    // Alice deletes her first message: gone on both screens, and from Bob's list preview.
    await sent.hover();
    await sent.getByRole("button", { name: "Delete message" }).click();
    await sent.getByRole("button", { name: "Delete for everyone" }).click();
    await expect.poll(() => bubble(a, "Hello Bob, nice profile!").count()).toBe(0);
    await expect.poll(() => bubble(b, "Hello Bob, nice profile!").count()).toBe(0);
    await bubble(b, "Hi Alice").waitFor();

    // Back on the phone's list, the entry shows the message that remains.
    await b.getByRole("button", { name: "Back to conversations" }).click();
    await item.getByText("Hi Alice").waitFor();

    // After a reload everything is as it was: nothing lost, nothing doubled.
    await a.reload();
    await bubble(a, "Hi Alice").waitFor();
    expect(await order(a)).toEqual(["2"]);
  });

  test("archive hides the conversation; a new message brings it back", async () => {
    const { member: carol, page: c } = await registerVerifiedMember(browser(), "carol");
    const { member: dan, page: d } = await registerVerifiedMember(browser(), "dan");

    await visit(c, `/members/${dan.username}`);
    await c.getByRole("button", { name: `Message ${dan.username}` }).click();
    await c.getByRole("region", { name: `Conversation with ${dan.username}` }).waitFor();
    await c.getByLabel("Message", { exact: true }).fill("Coffee sometime?");
    await c.getByLabel("Message", { exact: true }).press("Enter");
    await bubble(c, "Coffee sometime?")
      .getByLabel(/^(Sent|Delivered)$/)
      .waitFor();

    await visit(d, "/chat");
    const item = d.getByTestId("conversation-item").filter({ hasText: carol.username });
    await item.click();
    await bubble(d, "Coffee sometime?").waitFor();
    await d.getByRole("button", { name: "More actions" }).click();
    await d.getByRole("menuitem", { name: "Archive" }).click();
    await expect.poll(() => item.count()).toBe(0);
    await d.getByRole("tab", { name: "Archived" }).click();
    await item.waitFor();
    await d.getByRole("tab", { name: "Chats" }).click();

    // Carol writes again: the conversation is back in Dan's active list.
    await c.getByLabel("Message", { exact: true }).fill("Or tea?");
    await c.getByLabel("Message", { exact: true }).press("Enter");
    await item.getByText("Or tea?").waitFor();
    await d.getByRole("tab", { name: "Archived" }).click();
    await d.getByText("No archived conversations.").waitFor();
  });

  test("a message written offline is kept on the device and arrives once when the network is back", async () => {
    const { member: erin, page: e } = await registerVerifiedMember(browser(), "erin");
    const { member: finn, page: f } = await registerVerifiedMember(browser(), "finn");

    // The conversation's socket goes through a switch the test holds: the browser's offline mode
    // stops new connections and requests, not a socket already open.
    let cut = false;
    const open: WebSocketRoute[] = [];
    await e.routeWebSocket(/\/ws\/chat\//, (ws) => {
      if (cut) return ws.close({ code: 1011, reason: "offline" });
      ws.connectToServer();
      open.push(ws);
    });
    await visit(e, `/members/${finn.username}`);
    await e.getByRole("button", { name: `Message ${finn.username}` }).click();
    const thread = e.getByRole("region", { name: `Conversation with ${finn.username}` });
    await thread.waitFor();
    await e.locator('section.thread[data-connected="true"]').waitFor();
    const chatUrl = e.url();

    // The network goes: the conversation's socket drops, and what Erin writes waits, pending.
    const context = e.context();
    await context.setOffline(true);
    cut = true;
    for (const ws of open) await ws.close({ code: 1011, reason: "offline" });
    await e.locator('section.thread[data-connected="false"]').waitFor();
    const composer = e.getByLabel("Message", { exact: true });
    await composer.fill("Written on the train");
    await composer.press("Enter");
    const waiting = bubble(e, "Written on the train");
    await waiting.getByTestId("message-waiting").waitFor();
    await waiting.getByLabel("Sending").waitFor();
    // Trying again by hand while still offline: it waits again, once.
    await waiting.getByRole("button", { name: "Retry now" }).click();
    await waiting.getByTestId("message-waiting").waitFor();
    expect(await bubble(e, "Written on the train").count()).toBe(1);

    // The tab is closed before the network returns; the next page, online, sends it once.
    await e.close();
    await context.setOffline(false);
    const again = await context.newPage();
    await again.goto(chatUrl);
    // Stored (and delivered: Finn's open page heard of it on his own channel).
    await bubble(again, "Written on the train")
      .getByLabel(/^(Sent|Delivered)$/)
      .waitFor();

    await visit(f, "/chat");
    const item = f.getByTestId("conversation-item").filter({ hasText: erin.username });
    await item.click();
    await bubble(f, "Written on the train").waitFor();
    // Once, whatever was tried while offline.
    await again.reload();
    await bubble(again, "Written on the train")
      .getByLabel(/Sent|Delivered|Read/)
      .waitFor();
    expect(await bubble(again, "Written on the train").count()).toBe(1);
    expect(await bubble(f, "Written on the train").count()).toBe(1);
  });
});
