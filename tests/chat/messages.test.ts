import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { registerMember, verifiedMember } from "../helpers/members";
import { TestClient } from "../helpers/client";
import { openSocket } from "../helpers/sockets";
import {
  block,
  conversationPair,
  conversations,
  giveCredits,
  ledgerOf,
  page,
  send,
  sent,
  withLimits,
} from "./helpers";

const UNLIMITED = { chat_send_account: "100000/60" };

/** A conversation holding `count` messages, alternating between the two members. */
async function conversationWith(count: number) {
  const pair = await conversationPair();
  const a = withLimits(pair.alice.client, UNLIMITED);
  const b = withLimits(pair.bob.client, UNLIMITED);
  for (let i = 1; i <= count; i++) {
    const res = await send(i % 2 ? a : b, pair.id, `m${i}`);
    if (res.status !== 201) throw new Error(`send ${i}: ${res.status}`);
  }
  return pair;
}

describe("reading messages", () => {
  it("pages newest first: oldest-first pages of 50, older pages by cursor, catch-up by after", async () => {
    const { alice, id } = await conversationWith(120);
    const newest = await page(alice.client, id);
    expect(newest.status).toBe(200);
    expect(newest.body.messages).toHaveLength(50);
    expect(newest.body.messages[0]!.message).toBe("m71");
    expect(newest.body.messages.at(-1)!.message).toBe("m120");
    expect(newest.body.messages.map((m) => m.seq)).toEqual(
      Array.from({ length: 50 }, (_, i) => 71 + i),
    );
    expect(newest.body.meta).toEqual({ has_more: true, next_cursor: "71" });

    const older = await page(alice.client, id, `cursor=${newest.body.meta.next_cursor}`);
    expect(older.body.messages.map((m) => m.message)).toEqual(
      Array.from({ length: 50 }, (_, i) => `m${21 + i}`),
    );
    const oldest = await page(alice.client, id, `cursor=${older.body.meta.next_cursor}`);
    expect(oldest.body.messages.map((m) => m.seq)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect(oldest.body.meta).toEqual({ has_more: false, next_cursor: null });

    // Catch-up: everything after a sequence number, oldest first, 50 at a time.
    const after = await page(alice.client, id, "after=60");
    expect(after.body.messages[0]!.seq).toBe(61);
    expect(after.body.messages).toHaveLength(50);
    expect(after.body.meta).toEqual({ has_more: true, next_cursor: "110" });
    const rest = await page(alice.client, id, "after=110");
    expect(rest.body.messages.map((m) => m.seq)).toEqual(
      Array.from({ length: 10 }, (_, i) => 111 + i),
    );
    expect(rest.body.meta).toEqual({ has_more: false, next_cursor: null });
    expect((await page(alice.client, id, "after=120")).body.messages).toEqual([]);

    expect((await page(alice.client, id, "cursor=abc")).status).toBe(422);
    expect((await page(alice.client, id, "after=-1")).status).toBe(422);
  }, 60_000);

  it("returns docs/api.md's message shape with ISO times", async () => {
    const { alice, bob, id } = await conversationPair();
    const stored = await sent(alice.client, id, "Shape");
    const [message] = (await page(bob.client, id)).body.messages;
    expect(message).toEqual({
      id: stored.id,
      conversation_id: id,
      seq: 1,
      sender_id: alice.id,
      client_id: null,
      message: "Shape",
      sent_at: stored.sent_at,
      read_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      gift: null,
      reactions: [],
      delivered_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      attachment: null,
    });
    expect(stored.sent_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("the newest page marks the conversation read for the reader only, and sets read_at", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(alice.client, id, "one");
    await sent(alice.client, id, "two");
    expect((await conversations(bob.client)).body.conversations[0]!.unread_count).toBe(2);
    // An older page or a catch-up does not mark anything read.
    await page(bob.client, id, "after=0");
    expect((await conversations(bob.client)).body.conversations[0]!.unread_count).toBe(2);
    expect((await page(alice.client, id)).body.messages.map((m) => m.read_at)).toEqual([
      null,
      null,
    ]);

    await page(bob.client, id);
    expect((await conversations(bob.client)).body.conversations[0]!.unread_count).toBe(0);
    const seenByAlice = (await page(alice.client, id)).body.messages;
    expect(seenByAlice.every((m) => m.read_at !== null)).toBe(true);
  });

  it("POST …/read marks read (204) and the other member sees read_at", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(alice.client, id, "one");
    await sent(bob.client, id, "mine");
    const res = await bob.client.json("POST", `/chat/conversations/${id}/read`);
    expect(res.status).toBe(204);
    const messages = (await page(alice.client, id, "after=0")).body.messages;
    expect(messages[0]!.read_at).not.toBeNull();
    // Bob's own message is read by Alice only once she reads.
    expect(messages[1]!.read_at).toBeNull();
    expect((await conversations(bob.client)).body.conversations[0]!.unread_count).toBe(0);
  });
});

describe("deleting a message", () => {
  it("only the sender deletes; it is gone from every page and the last message is recomputed", async () => {
    const { alice, bob, id } = await conversationPair();
    const first = await sent(alice.client, id, "first");
    const second = await sent(alice.client, id, "second");
    expect((await bob.client.json("DELETE", `/chat/messages/${second.id}`)).status).toBe(403);
    const carol = await verifiedMember();
    expect((await carol.client.json("DELETE", `/chat/messages/${second.id}`)).status).toBe(404);
    expect((await alice.client.json("DELETE", "/chat/messages/nope")).status).toBe(404);

    expect((await alice.client.json("DELETE", `/chat/messages/${second.id}`)).status).toBe(204);
    // Deleting again changes nothing.
    expect((await alice.client.json("DELETE", `/chat/messages/${second.id}`)).status).toBe(204);
    for (const member of [alice, bob]) {
      expect((await page(member.client, id)).body.messages.map((m) => m.id)).toEqual([first.id]);
      expect((await page(member.client, id, "after=0")).body.messages).toHaveLength(1);
      expect((await conversations(member.client)).body.conversations[0]).toMatchObject({
        last_message: "first",
        last_message_time: first.sent_at,
      });
    }
    // The text is not kept (the row in the conversation's room).
    const row = await env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(id)).findMessage(
      id,
      second.id,
    );
    expect(row).toMatchObject({ message: "", deleted_at: expect.any(String) });

    // Its sequence number is never given again.
    await sent(bob.client, id, "reply");
    expect((await page(bob.client, id)).body.messages.map((m) => m.seq)).toEqual([1, 3]);

    await alice.client.json("DELETE", `/chat/messages/${first.id}`);
    const reply = (await page(bob.client, id)).body.messages.at(-1)!;
    expect(reply.message).toBe("reply");
    await bob.client.json("DELETE", `/chat/messages/${reply.id}`);
    expect((await conversations(alice.client)).body.conversations[0]).toMatchObject({
      last_message: null,
      last_message_time: null,
    });
  });

  it("an unread message that is deleted no longer counts as unread", async () => {
    const { alice, bob, id } = await conversationPair();
    const m = await sent(alice.client, id, "oops");
    expect((await conversations(bob.client)).body.conversations[0]!.unread_count).toBe(1);
    await alice.client.json("DELETE", `/chat/messages/${m.id}`);
    expect((await conversations(bob.client)).body.conversations[0]!.unread_count).toBe(0);
  });
});

describe("gifts and credits", () => {
  it("lists the catalogue with the member's credits", async () => {
    const alice = await verifiedMember();
    const res = await alice.client.json<{
      gifts: { id: string; name: string; icon: string; price_credits: number }[];
      user_credits: number;
    }>("GET", "/chat/gifts");
    expect(res.status).toBe(200);
    expect(res.body.user_credits).toBe(0);
    expect(res.body.gifts.length).toBeGreaterThanOrEqual(3);
    expect(res.body.gifts[0]).toEqual({ id: "rose", name: "Rose", icon: "🌹", price_credits: 5 });
    await giveCredits(alice.id, 12);
    expect((await alice.client.json("GET", "/chat/gifts")).body).toMatchObject({
      user_credits: 12,
    });
  });

  it("a gift spends its price with the message in one step; short of credits nothing is stored (402)", async () => {
    const { alice, bob, id } = await conversationPair();
    const short = await send(alice.client, id, "For you", { gift_id: "rose", client_id: "g-1" });
    expect(short).toMatchObject({ status: 402, body: { message: "Not enough credits" } });
    expect((await page(alice.client, id, "after=0")).body.messages).toEqual([]);
    expect((await ledgerOf(alice.id)).rows).toEqual([]);

    await giveCredits(alice.id, 12);
    const gift = await send(alice.client, id, "For you", { gift_id: "rose", client_id: "g-1" });
    expect(gift.status).toBe(201);
    expect(gift.body.message).toMatchObject({
      message: "For you",
      gift: { id: "rose", name: "Rose", icon: "🌹", price_credits: 5 },
    });
    // Retrying the same send does not pay twice.
    await send(alice.client, id, "For you", { gift_id: "rose", client_id: "g-1" });
    // A gift without a note carries the gift's name.
    const bare = await send(alice.client, id, "", { gift_id: "rose" });
    expect(bare.body.message.message).toBe("🌹 Rose");

    const ledger = await ledgerOf(alice.id);
    expect(ledger.totals).toEqual({
      user_id: alice.id,
      balance: 2,
      lifetime_earned: 12,
      lifetime_spent: 10,
    });
    expect(ledger.sum).toBe(2);
    expect(ledger.rows.filter((r) => r.direction === "out")).toEqual([
      { amount: 5, direction: "out", reason: "gift", reference: gift.body.message.id },
      { amount: 5, direction: "out", reason: "gift", reference: bare.body.message.id },
    ]);

    // 2 credits left: the next rose is refused and nothing changes.
    const refused = await send(alice.client, id, "", { gift_id: "rose" });
    expect(refused.status).toBe(402);
    expect((await ledgerOf(alice.id)).totals!.balance).toBe(2);
    expect((await page(bob.client, id)).body.messages.map((m) => m.gift?.id)).toEqual([
      "rose",
      "rose",
    ]);
  });

  it("concurrent gifts never overdraw the balance", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(bob.client, id, "hi");
    await giveCredits(alice.id, 25);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        send(withLimits(alice.client, UNLIMITED), id, `gift ${i}`, { gift_id: "coffee" }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    expect(results.filter((r) => r.status === 402)).toHaveLength(6);
    const ledger = await ledgerOf(alice.id);
    expect(ledger.totals!.balance).toBe(5);
    expect(ledger.sum).toBe(5);
  });
});

describe("authorisation", () => {
  it("a third member gets 403 for everything of the conversation (404 for its messages), sockets included", async () => {
    const { alice, bob, id } = await conversationPair();
    const m = await sent(alice.client, id, "private");
    await sent(bob.client, id, "very");
    const carol = await verifiedMember();
    const c = carol.client;
    const answers = {
      messages: await page(c, id),
      send: await send(c, id, "let me in"),
      archive: await c.json("POST", `/chat/conversations/${id}/archive`),
      unarchive: await c.json("POST", `/chat/conversations/${id}/unarchive`),
      read: await c.json("POST", `/chat/conversations/${id}/read`),
      delete: await c.json("DELETE", `/chat/messages/${m.id}`),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, v.status]))).toEqual({
      messages: 403,
      send: 403,
      archive: 403,
      unarchive: 403,
      read: 403,
      delete: 404,
    });
    expect((await openSocket(c, `/ws/chat/${id}`)).status).toBe(403);
    expect((await conversations(c)).body.conversations).toEqual([]);
    // Nothing changed for the members.
    expect((await page(alice.client, id, "after=0")).body.messages).toHaveLength(2);

    // An unknown conversation is 404 everywhere.
    expect((await page(c, "nope")).status).toBe(404);
    expect((await send(c, "nope", "hi")).status).toBe(404);
    expect((await c.json("POST", "/chat/conversations/nope/archive")).status).toBe(404);
    expect((await openSocket(c, "/ws/chat/nope")).status).toBe(404);
  });

  it("needs a signed-in member (401) with a verified email (403) and the CSRF token (419)", async () => {
    const { alice, id } = await conversationPair();
    const visitor = new TestClient();
    expect((await page(visitor, id)).status).toBe(401);
    expect((await visitor.json("GET", "/chat/gifts")).status).toBe(401);
    expect((await openSocket(visitor, `/ws/chat/${id}`)).status).toBe(401);
    const unverified = await registerMember();
    expect((await unverified.client.json("GET", "/chat/conversations")).status).toBe(403);
    expect((await unverified.client.json("GET", "/chat/gifts")).status).toBe(403);
    const noToken = await alice.client.json(
      "POST",
      `/chat/conversations/${id}/messages`,
      { message: "x" },
      { csrf: null },
    );
    expect(noToken.status).toBe(419);
  });

  it("refuses a blocked member's socket and a cross-site origin", async () => {
    const { alice, bob, id } = await conversationPair();
    const cross = await openSocket(alice.client, `/ws/chat/${id}`, {
      Origin: "https://evil.example",
    });
    expect(cross.status).toBe(403);
    await block(bob, alice);
    expect((await openSocket(alice.client, `/ws/chat/${id}`)).status).toBe(403);
    expect((await openSocket(bob.client, `/ws/chat/${id}`)).status).toBe(403);
  });
});
