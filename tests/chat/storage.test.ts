import { env, runInDurableObject } from "cloudflare:test";
import { conversationRoom } from "~/server/chat-rooms.server";
import { restartObject } from "../helpers/restart";
import { describe, expect, it } from "vitest";
import { giftMessageId, spendForGift } from "~/server/gifts.server";
import type { ConversationRoom } from "../../durable-objects/conversation/room";
import { STAMP_DELIVERED_LIST } from "../../durable-objects/conversation/storage";
import { openSocket } from "../helpers/sockets";
import {
  block,
  conversationPair,
  conversations,
  giveCredits,
  ledgerOf,
  page,
  roomMessages,
  send,
  sent,
  withLimits,
} from "./helpers";

const UNLIMITED = { chat_send_account: "100000/60" };
const roomOf = (id: string) => env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(id));
const ROSE = { id: "rose", name: "Rose", icon: "🌹", price_credits: 5 };

/** What D1 holds of a gift message besides the ledger: its notification and activities. */
async function giftRecords(messageId: string) {
  const notifications = await env.DB.prepare(
    "SELECT user_id AS userId, type FROM notifications WHERE json_extract(data, '$.message_id') = ?1",
  )
    .bind(messageId)
    .all<{ userId: string; type: string }>();
  const activities = await env.DB.prepare(
    "SELECT user_id AS userId, type FROM activities WHERE id IN (?1 || '.s', ?1 || '.r') ORDER BY type",
  )
    .bind(messageId)
    .all<{ userId: string; type: string }>();
  return { notifications: notifications.results, activities: activities.results };
}

describe("the room's own storage", () => {
  it("holds the messages in seq order, survives an eviction, keeps deleted rows without text, and pages them", async () => {
    const { alice, bob, id } = await conversationPair();
    const a = withLimits(alice.client, UNLIMITED);
    const b = withLimits(bob.client, UNLIMITED);
    const ids: string[] = [];
    for (let i = 1; i <= 120; i++) {
      const res = await send(i % 2 ? a : b, id, `m${i}`, { client_id: `s-${i}` });
      expect(res.status).toBe(201);
      ids.push(res.body.message.id);
    }
    // Message ids name their conversation (so a message's room is found from its id alone).
    expect(ids.every((m) => m.startsWith(`${id}.`))).toBe(true);
    expect((await alice.client.json("DELETE", `/chat/messages/${ids[58]}`)).status).toBe(204);

    // The room is evicted: everything acknowledged is still there.
    await restartObject(conversationRoom(env, id));
    const stored = await roomMessages(id);
    expect(stored.map((m) => m.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(stored[58]).toMatchObject({ message: "", deleted_at: expect.any(String) });
    expect(stored.filter((m) => m.deleted_at === null).map((m) => m.message)).toEqual(
      Array.from({ length: 120 }, (_, i) => `m${i + 1}`).filter((_, i) => i !== 58),
    );

    // The newest page (which marks it read for Bob), the page before it, the first one.
    const newest = await page(bob.client, id);
    expect(newest.body.messages.map((m) => m.seq)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 71),
    );
    expect(newest.body.meta).toEqual({ has_more: true, next_cursor: "71" });
    const before = await page(bob.client, id, "cursor=71");
    // Seq 59 was deleted: the page reaches one further back.
    expect(before.body.messages.map((m) => m.seq)).toEqual(
      Array.from({ length: 51 }, (_, i) => i + 20).filter((s) => s !== 59),
    );
    const first = await page(bob.client, id, `cursor=${before.body.meta.next_cursor}`);
    expect(first.body.messages.map((m) => m.seq)).toEqual(
      Array.from({ length: 19 }, (_, i) => i + 1),
    );
    expect(first.body.meta).toEqual({ has_more: false, next_cursor: null });
    // Catch-up after a sequence number, in pages too.
    const after = await page(alice.client, id, "after=100");
    expect(after.body.messages.map((m) => m.seq)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 101),
    );

    // Read receipts are stored: Alice's messages up to 119 carry read_at, Bob's do not.
    const receipts = await roomMessages(id);
    expect(receipts.filter((m) => m.sender_id === alice.id).every((m) => m.read_at !== null)).toBe(
      true,
    );
    expect(receipts.filter((m) => m.sender_id === bob.id).every((m) => m.read_at === null)).toBe(
      true,
    );
    await runInDurableObject(roomOf(id), (_room: ConversationRoom, state) => {
      const readers = state.storage.sql
        .exec<{ user_id: string; last_read_seq: number }>("SELECT * FROM readers")
        .toArray();
      expect(readers).toEqual([{ user_id: bob.id, last_read_seq: 120 }]);
    });
  }, 60_000);

  it("writes no message to D1: the conversation's D1 rows are the ones made when it started", async () => {
    const { alice, bob, id } = await conversationPair();
    const d1Rows = async () =>
      (await env.DB.prepare(
        `SELECT (SELECT count(*) FROM conversation_members WHERE conversation_id = ?1)
           + (SELECT count(*) FROM conversations WHERE id = ?1)
           + (SELECT count(*) FROM gift_messages WHERE conversation_id = ?1)
           + (SELECT count(*) FROM message_rooms WHERE conversation_id = ?1) AS n`,
      )
        .bind(id)
        .first<{ n: number }>())!.n;
    const before = await d1Rows();
    await sent(alice.client, id, "one");
    await sent(bob.client, id, "two");
    expect(await d1Rows()).toBe(before);
    expect((await conversations(bob.client)).body.conversations[0]).toMatchObject({
      id,
      last_message: "two",
    });
  });

  it("acknowledges several messages by their ids, not by walking the sender's messages", async () => {
    const { alice, id } = await conversationPair();
    await sent(alice.client, id, "hello");
    const plan = await runInDurableObject(roomOf(id), (_: ConversationRoom, state) =>
      state.storage.sql
        .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${STAMP_DELIVERED_LIST}`, "t", "[]", "u")
        .toArray()
        .map((r) => r.detail)
        .join("\n"),
    );
    expect(plan).toContain("USING INDEX sqlite_autoindex_messages_1 (id=?)");
    expect(plan).not.toContain("messages_sender_client");
  });

  it("the lists follow the sends across an eviction of the room", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(alice.client, id, "first");
    await restartObject(conversationRoom(env, id));
    await sent(alice.client, id, "second");
    const list = (await conversations(bob.client)).body.conversations;
    expect(list[0]).toMatchObject({ id, last_message: "second", unread_count: 2 });
  });
});

describe("gifts between the spend and the message", () => {
  it("a failure after the spend is healed by the retry with the same client id: spent once, stored once", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(bob.client, id, "hi");
    await giveCredits(alice.id, 5);
    // The first attempt spent the price (the D1 batch) and then failed before the room stored it.
    const messageId = await giftMessageId(id, alice.id, "gift-crash");
    const spent = await spendForGift(env, {
      messageId,
      conversationId: id,
      senderId: alice.id,
      recipientId: bob.id,
      gift: ROSE,
      text: "For you",
      sentAt: new Date().toISOString(),
    });
    expect(spent.outcome).toBe("spent");
    expect((await ledgerOf(alice.id)).totals!.balance).toBe(0);
    expect(await roomMessages(id)).toHaveLength(1);
    // The spend's one batch wrote Bob's notification and both activities with it.
    const records = {
      notifications: [{ userId: bob.id, type: "gift" }],
      activities: [
        { userId: bob.id, type: "gift_received" },
        { userId: alice.id, type: "gift_sent" },
      ],
    };
    expect(await giftRecords(messageId)).toEqual(records);

    // The retry (balance 0) finds the spend instead of paying again, and stores the gift.
    const retry = await send(alice.client, id, "For you", {
      gift_id: "rose",
      client_id: "gift-crash",
    });
    expect(retry.status).toBe(201);
    expect(retry.body.message).toMatchObject({ id: messageId, gift: ROSE });
    // And again: the same message, nothing new.
    const again = await send(alice.client, id, "For you", {
      gift_id: "rose",
      client_id: "gift-crash",
    });
    expect(again.body.message.id).toBe(messageId);

    const ledger = await ledgerOf(alice.id);
    expect(ledger.totals).toMatchObject({ balance: 0, lifetime_spent: 5 });
    expect(ledger.sum).toBe(0);
    expect(ledger.rows.filter((r) => r.direction === "out")).toEqual([
      { amount: 5, direction: "out", reason: "gift", reference: messageId },
    ]);
    expect((await roomMessages(id)).filter((m) => m.gift)).toHaveLength(1);
    // Retried twice, the gift still has one notification and one activity each side.
    expect(await giftRecords(messageId)).toEqual(records);
    const bell = (await bob.client.json("GET", "/notifications")).body as {
      notifications: { type: string; data: { message_id?: string } }[];
    };
    const gifts = bell.notifications.filter(
      (n) => n.type === "gift" && n.data.message_id === messageId,
    );
    expect(gifts).toHaveLength(1);
    // A new gift without credits is refused and changes nothing.
    expect(
      (await send(alice.client, id, "", { gift_id: "rose", client_id: "gift-2" })).status,
    ).toBe(402);
    expect((await ledgerOf(alice.id)).sum).toBe(0);
  });
});

describe("a block arriving while messages are in flight", () => {
  it("nothing is stored once the room has the block; every spend has its message or its refund", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(bob.client, id, "hi");
    await giveCredits(alice.id, 100);
    const limited = withLimits(alice.client, UNLIMITED);
    const socket = (await openSocket(alice.client, `/ws/chat/${id}`)).socket!;

    // Gifts over HTTP (each waits on its D1 spend inside the room) and texts over the socket, all
    // in flight while Bob blocks Alice.
    const gifts = Array.from({ length: 8 }, (_, i) =>
      send(limited, id, `gift ${i}`, { gift_id: "rose", client_id: `fly-g${i}` }),
    );
    for (let i = 0; i < 10; i++) {
      socket.ws.send(
        JSON.stringify({ type: "send", client_id: `fly-t${i}`, message: `text ${i}` }),
      );
    }
    await block(bob, alice);
    const afterBlock = (await roomMessages(id)).length;
    const results = await Promise.all(gifts);

    // Once the block reached the room, nothing more was stored.
    expect((await roomMessages(id)).length).toBe(afterBlock);
    expect((await send(limited, id, "late", { client_id: "late-1" })).status).toBe(403);
    expect((await roomMessages(id)).length).toBe(afterBlock);
    for (const r of results) expect([201, 403]).toContain(r.status);

    // Every gift acknowledged is stored; every spend has its stored message or its refund.
    const stored = (await roomMessages(id)).filter((m) => m.gift);
    const acknowledged = results.filter((r) => r.status === 201).map((r) => r.body.message.id);
    expect(new Set(stored.map((m) => m.id))).toEqual(new Set(acknowledged));
    const ledger = await ledgerOf(alice.id);
    const spends = ledger.rows.filter((r) => r.reason === "gift").map((r) => r.reference);
    const refunds = ledger.rows.filter((r) => r.reason === "gift_refund").map((r) => r.reference);
    expect(new Set(spends)).toEqual(new Set([...acknowledged, ...refunds]));
    expect(refunds.filter((r) => acknowledged.includes(r))).toEqual([]);
    // A refunded gift leaves no notification and no activity; a stored one has both.
    for (const ref of refunds) {
      expect(await giftRecords(ref!)).toEqual({ notifications: [], activities: [] });
    }
    for (const ref of acknowledged) {
      const records = await giftRecords(ref);
      expect(records.notifications).toHaveLength(1);
      expect(records.activities.map((a) => a.type)).toEqual(["gift_received", "gift_sent"]);
    }
    expect(ledger.totals!.balance).toBe(100 - 5 * acknowledged.length);
    expect(ledger.sum).toBe(ledger.totals!.balance);
    socket.close();
  });
});
