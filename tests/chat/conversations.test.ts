import { describe, expect, it } from "vitest";
import { registerMember, verifiedMember } from "../helpers/members";
import { TestClient } from "../helpers/client";
import {
  archived,
  block,
  conversationPair,
  conversations,
  page,
  send,
  sent,
  start,
  withLimits,
} from "./helpers";

describe("starting a conversation", () => {
  it("creates it once; starting again returns the same one, with the message when one is sent", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const first = await start(alice, bob);
    expect(first.status).toBe(201);
    expect(first.body.message).toBeNull();
    expect(first.body.conversation).toMatchObject({
      last_message: null,
      last_message_time: null,
      unread_count: 0,
      user_id: bob.id,
      user: { id: bob.id, username: bob.details.username, online: expect.any(Boolean) },
    });

    const again = await start(alice, bob, { message: "Hi Bob!", client_id: "start-1" });
    expect(again.status).toBe(200);
    expect(again.body.conversation.id).toBe(first.body.conversation.id);
    expect(again.body.message).toMatchObject({ message: "Hi Bob!", sender_id: alice.id, seq: 1 });
    expect(again.body.conversation.last_message).toBe("Hi Bob!");

    // From the other side it is the same conversation too.
    const fromBob = await start(bob, alice);
    expect(fromBob.status).toBe(200);
    expect(fromBob.body.conversation).toMatchObject({
      id: first.body.conversation.id,
      user_id: alice.id,
      unread_count: 1,
    });
  });

  it("starts with a first message in one call", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const res = await start(alice, bob, { message: "Hello there" });
    expect(res.status).toBe(201);
    expect(res.body.message).toMatchObject({ message: "Hello there", seq: 1, read_at: null });
    expect((await conversations(bob.client)).body.conversations[0]).toMatchObject({
      id: res.body.conversation.id,
      last_message: "Hello there",
      unread_count: 1,
    });
  });

  it("shows a conversation to the other member only once it has a message", async () => {
    const { alice, bob, id } = await conversationPair();
    expect((await conversations(alice.client)).body.conversations.map((c) => c.id)).toEqual([id]);
    expect((await conversations(bob.client)).body.conversations).toEqual([]);
    await sent(alice.client, id, "Now you see it");
    expect((await conversations(bob.client)).body.conversations.map((c) => c.id)).toEqual([id]);
  });

  it("refuses yourself (422), an unknown member (404), across a block (403) and without a verified email", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const self = await start(alice, alice);
    expect(self.status).toBe(422);
    expect(self.body).toMatchObject({ errors: { user_id: ["You cannot message yourself."] } });
    expect(
      (await alice.client.json("POST", "/chat/conversations", { user_id: "nobody" })).status,
    ).toBe(404);
    expect((await alice.client.json("POST", "/chat/conversations", {})).status).toBe(422);

    const unverified = await registerMember();
    expect(
      (await alice.client.json("POST", "/chat/conversations", { user_id: unverified.id })).status,
    ).toBe(404);
    const fromUnverified = await unverified.client.json("POST", "/chat/conversations", {
      user_id: alice.id,
    });
    expect(fromUnverified).toMatchObject({
      status: 403,
      body: { message: "Your email address is not verified." },
    });
    expect((await new TestClient().json("GET", "/chat/conversations")).status).toBe(401);

    await block(bob, alice);
    expect((await start(alice, bob)).status).toBe(403);
    expect((await start(bob, alice)).status).toBe(403);
  });

  it("limits how many new conversations a member starts (429 with Retry-After)", async () => {
    const alice = await verifiedMember();
    const others = [await verifiedMember(), await verifiedMember(), await verifiedMember()];
    const limited = withLimits(alice.client, { chat_start_account: "2/86400" });
    const answers = [];
    for (const other of others) {
      answers.push(await limited.json("POST", "/chat/conversations", { user_id: other.id }));
    }
    expect(answers.map((a) => a.status)).toEqual([201, 201, 429]);
    expect(Number(answers[2]!.headers.get("Retry-After"))).toBeGreaterThan(0);
    // Finding an existing conversation is not starting one.
    expect(
      (await limited.json("POST", "/chat/conversations", { user_id: others[0]!.id })).status,
    ).toBe(200);
  });
});

describe("the conversation lists", () => {
  it("lists active conversations newest activity first with the card, last message, time and unread count", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const carol = await verifiedMember();
    const withBob = (await start(bob, alice, { message: "From Bob" })).body.conversation.id;
    const withCarol = (await start(carol, alice, { message: "From Carol" })).body.conversation.id;
    await sent(carol.client, withCarol, "Carol again");

    let list = (await conversations(alice.client)).body.conversations;
    expect(list.map((c) => c.id)).toEqual([withCarol, withBob]);
    expect(list[0]).toMatchObject({
      last_message: "Carol again",
      unread_count: 2,
      user_id: carol.id,
      user: { id: carol.id, username: carol.details.username },
    });
    expect(Date.parse(list[0]!.last_message_time!)).toBeGreaterThan(0);
    expect(list[0]!.last_message_time).toMatch(/Z$/);

    // Bob writes again: his conversation moves to the top.
    await sent(bob.client, withBob, "Bob again");
    list = (await conversations(alice.client)).body.conversations;
    expect(list.map((c) => c.id)).toEqual([withBob, withCarol]);
    expect(list[0]).toMatchObject({ last_message: "Bob again", unread_count: 2 });

    // Reading the newest page zeroes the unread count.
    await page(alice.client, withBob);
    list = (await conversations(alice.client)).body.conversations;
    expect(list.find((c) => c.id === withBob)!.unread_count).toBe(0);
    expect(
      (await alice.client.json<{ unread_count: number }>("GET", "/chat/unread")).body.unread_count,
    ).toBe(2);
  });

  it("archives for one member only; a new message brings it back; unarchive restores it", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(alice.client, id, "Hello");
    await sent(bob.client, id, "Hi");

    expect(await alice.client.json("POST", `/chat/conversations/${id}/archive`)).toMatchObject({
      status: 200,
      body: { archived: true },
    });
    expect((await conversations(alice.client)).body.conversations).toEqual([]);
    expect((await archived(alice.client)).body.archived_conversations.map((c) => c.id)).toEqual([
      id,
    ]);
    expect((await conversations(bob.client)).body.conversations.map((c) => c.id)).toEqual([id]);

    // Bob writes: it is back in Alice's active list.
    await sent(bob.client, id, "Still there?");
    expect((await conversations(alice.client)).body.conversations.map((c) => c.id)).toEqual([id]);
    expect((await archived(alice.client)).body.archived_conversations).toEqual([]);

    await alice.client.json("POST", `/chat/conversations/${id}/archive`);
    expect(await alice.client.json("POST", `/chat/conversations/${id}/unarchive`)).toMatchObject({
      status: 200,
      body: { archived: false },
    });
    expect((await conversations(alice.client)).body.conversations.map((c) => c.id)).toEqual([id]);
    expect((await archived(alice.client)).body.archived_conversations).toEqual([]);
  });

  it("hides a conversation from both lists while either member blocks the other", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(alice.client, id, "Hello");
    await block(alice, bob);
    expect((await conversations(alice.client)).body.conversations).toEqual([]);
    expect((await conversations(bob.client)).body.conversations).toEqual([]);
    await alice.client.json("DELETE", `/my/block/${bob.id}`);
    expect((await conversations(bob.client)).body.conversations.map((c) => c.id)).toEqual([id]);
  });

  it("pages the list with a cursor", async () => {
    const alice = await verifiedMember();
    const others = await Promise.all(Array.from({ length: 3 }, () => verifiedMember()));
    const ids: string[] = [];
    for (const other of others) {
      ids.push((await start(other, alice, { message: "hi" })).body.conversation.id);
    }
    const first = await alice.client.json<{
      conversations: { id: string }[];
      meta: { has_more: boolean; next_cursor: string | null };
    }>("GET", "/chat/conversations");
    expect(first.body.meta).toEqual({ has_more: false, next_cursor: null });
    expect(first.body.conversations.map((c) => c.id)).toEqual([...ids].reverse());
    expect((await alice.client.json("GET", "/chat/conversations?cursor=%%%")).status).toBe(422);
  });

  it("answers a browser's page request for these paths with the chat page, not JSON", async () => {
    const alice = await verifiedMember();
    const res = await alice.client.fetch("/chat/conversations", {
      headers: { Accept: "text/html" },
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/chat");
    const page = await alice.client.fetch("/chat", { headers: { Accept: "text/html" } });
    expect(page.headers.get("Content-Type")).toContain("text/html");
    const archived = await alice.client.fetch("/chat/conversations/archived", {
      headers: { Accept: "text/html" },
    });
    expect(archived.headers.get("Content-Type")).toContain("text/html");
  });
});

describe("sending", () => {
  it("validates the message: required, at most 2,000 characters, a well-formed client id", async () => {
    const { alice, id } = await conversationPair();
    expect((await send(alice.client, id, "   ")).body).toMatchObject({
      errors: { message: ["The message field is required."] },
    });
    const long = await send(alice.client, id, "x".repeat(2001));
    expect(long).toMatchObject({
      status: 422,
      body: { errors: { message: ["The message may not be greater than 2000 characters."] } },
    });
    expect((await send(alice.client, id, "x".repeat(2000))).status).toBe(201);
    expect((await send(alice.client, id, "hi", { client_id: "no spaces" })).status).toBe(422);
    expect((await send(alice.client, id, "hi", { gift_id: "no-such-gift" })).status).toBe(422);
    expect((await page(alice.client, id)).body.messages).toHaveLength(1);
  });

  it("is idempotent by client_id: a retry stores nothing new and answers the same message", async () => {
    const { alice, bob, id } = await conversationPair();
    const a = await send(alice.client, id, "Once", { client_id: "c-1" });
    const b = await send(alice.client, id, "Once", { client_id: "c-1" });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.message).toEqual(a.body.message);
    // Concurrent retries of another send.
    const together = await Promise.all(
      Array.from({ length: 4 }, () => send(alice.client, id, "Twice?", { client_id: "c-2" })),
    );
    expect(new Set(together.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(together.map((r) => r.body.message.id)).size).toBe(1);
    const messages = (await page(bob.client, id)).body.messages;
    expect(messages.map((m) => m.message)).toEqual(["Once", "Twice?"]);
    expect(messages.map((m) => m.client_id)).toEqual(["c-1", "c-2"]);

    // The same client id belongs to the sender: another member may use it, the sender may not
    // reuse it for another conversation.
    expect((await send(bob.client, id, "Mine", { client_id: "c-1" })).status).toBe(201);
    const carol = await verifiedMember();
    const other = (await start(alice, carol)).body.conversation.id;
    expect((await send(alice.client, other, "Elsewhere", { client_id: "c-1" })).status).toBe(409);
  });

  it("limits messages to a member who has not replied, until they reply (429)", async () => {
    const { alice, bob, id } = await conversationPair();
    for (const text of ["one", "two", "three"]) await sent(alice.client, id, text);
    const fourth = await send(alice.client, id, "four");
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({
      message: "You can send 3 messages until they reply. Please wait for a reply.",
    });
    expect(Number(fourth.headers.get("Retry-After"))).toBeGreaterThan(0);
    await sent(bob.client, id, "Hi!");
    expect((await send(alice.client, id, "four")).status).toBe(201);
  });

  it("rate-limits each sender (429 with Retry-After)", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(bob.client, id, "hello");
    const limited = withLimits(alice.client, { chat_send_account: "2/86400" });
    expect((await send(limited, id, "1")).status).toBe(201);
    expect((await send(limited, id, "2")).status).toBe(201);
    const third = await send(limited, id, "3");
    expect(third.status).toBe(429);
    expect(third.body.message).toBe("You are sending messages too quickly. Please wait a moment.");
    expect(Number(third.headers.get("Retry-After"))).toBeGreaterThan(0);
    // A retry of a stored message is answered from D1, not limited.
    const first = (await page(alice.client, id)).body.messages[1]!;
    expect(first.message).toBe("1");
  });

  it("lets neither member send while either has blocked the other (403), both ways", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(alice.client, id, "Before");
    await block(alice, bob);
    expect((await send(alice.client, id, "From the blocker")).status).toBe(403);
    expect((await send(bob.client, id, "From the blocked")).status).toBe(403);
    expect((await page(bob.client, id)).status).toBe(403);
    await alice.client.json("DELETE", `/my/block/${bob.id}`);

    await block(bob, alice);
    expect((await send(alice.client, id, "To the blocker")).status).toBe(403);
    expect((await send(bob.client, id, "From the blocker")).status).toBe(403);
    await bob.client.json("DELETE", `/my/block/${alice.id}`);

    expect((await send(bob.client, id, "After")).status).toBe(201);
    expect((await page(alice.client, id)).body.messages.map((m) => m.message)).toEqual([
      "Before",
      "After",
    ]);
  });
});
