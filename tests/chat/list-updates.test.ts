import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatMessageView } from "~/realtime/chat";
import { LIST_FLUSH_INTERVAL_MS } from "../../durable-objects/conversation/outbox";
import { openSocket, type TestSocket } from "../helpers/sockets";
import { conversationPair, conversations, sent, type Member } from "./helpers";

const hubOf = (userId: string) => env.MEMBER_HUB.get(env.MEMBER_HUB.idFromName(userId));

async function socket(member: Member, path: string): Promise<TestSocket> {
  const res = await openSocket(member.client, path);
  if (res.status !== 101 || !res.socket) throw new Error(`socket refused: ${res.status}`);
  return res.socket;
}

/** Sends `texts` over the sender's room socket at once, and waits for the room's own copies. */
async function burst(room: TestSocket, texts: string[]) {
  for (const text of texts) {
    room.ws.send(JSON.stringify({ type: "send", client_id: crypto.randomUUID(), message: text }));
  }
  const last = texts.at(-1)!;
  await room.next(
    (f) => f.type === "message" && (f.message as ChatMessageView).message === last,
    5000,
  );
}

/** The member's list entry of the conversation, once it shows `lastMessage` (up to `ms`). */
async function entryShowing(member: Member, id: string, lastMessage: string, ms = 6000) {
  const until = Date.now() + ms;
  for (;;) {
    const list = (await conversations(member.client)).body.conversations;
    const entry = list.find((c) => c.id === id);
    if (entry?.last_message === lastMessage || Date.now() > until) return entry;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const conversationFrames = (s: TestSocket) => s.frames.filter((f) => f.type === "conversation");

describe("the members' lists after a burst of messages over the socket", () => {
  it("reach each hub coalesced, in order, with the right unread counts", async () => {
    const { alice, bob, id } = await conversationPair();
    // Bob has written, so Alice may send more than 3 in a row.
    await sent(bob.client, id, "hi");
    const bobMe = await socket(bob, "/ws/me");
    const aliceMe = await socket(alice, "/ws/me");
    const room = await socket(alice, `/ws/chat/${id}`);
    // A second with no list update: the burst's first message is flushed at once.
    await new Promise((resolve) => setTimeout(resolve, LIST_FLUSH_INTERVAL_MS + 100));
    const texts = Array.from({ length: 12 }, (_, i) => `burst ${i + 1}`);
    await burst(room, texts);

    const last = await bobMe.next(
      (f) => f.type === "conversation" && f.last_message === "burst 12",
      5000,
    );
    expect(last).toMatchObject({
      conversation_id: id,
      unread_count: 12,
      unread_total: 12,
      message: { sender_id: alice.id, message: "burst 12" },
    });
    // Never an older entry after a newer one; the first message's entry at once, then the rest
    // of the burst together (at most one flush a second).
    const counts = conversationFrames(bobMe).map((f) => f.unread_count as number);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts[0]).toBe(1);
    expect(counts.at(-1)).toBe(12);
    expect(counts.length).toBeLessThanOrEqual(3);
    await aliceMe.next((f) => f.type === "conversation" && f.last_message === "burst 12", 5000);
    // Alice's own count is Bob's "hi", which she has not read.
    expect(conversationFrames(aliceMe).every((f) => f.unread_count === 1)).toBe(true);

    // The lists read from the hubs agree.
    const bobs = await entryShowing(bob, id, "burst 12");
    expect(bobs).toMatchObject({ unread_count: 12, last_message: "burst 12" });
    const alices = await entryShowing(alice, id, "burst 12");
    expect(alices).toMatchObject({ unread_count: 1, last_message: "burst 12" });
    for (const s of [bobMe, aliceMe, room]) s.close();
  });

  it("reach a hub that failed in the middle of the burst, with the newest entry", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(bob.client, id, "hi");
    const room = await socket(alice, `/ws/chat/${id}`);
    await burst(room, ["one", "two", "three"]);
    // Bob's hub stops (its calls in flight fail); the room keeps his entry in its outbox.
    await runInDurableObject(hubOf(bob.id), (_hub, state: DurableObjectState) => {
      try {
        state.abort("reset in the middle of a burst");
      } catch {
        // Aborting throws in the caller too.
      }
    }).catch(() => undefined);
    await burst(room, ["four", "five", "six"]);

    const bobs = await entryShowing(bob, id, "six");
    expect(bobs).toMatchObject({ unread_count: 6, last_message: "six" });
    const alices = await entryShowing(alice, id, "six");
    expect(alices).toMatchObject({ unread_count: 1, last_message: "six" });
    // And Bob's unread total, from his hub, counts them once.
    expect(await hubOf(bob.id).unreadTotal()).toBe(6);
    room.close();
  });

  it("reach the hubs after the room restarts on a machine whose clock is behind its last one's", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(bob.client, id, "hi");
    const room = await socket(alice, `/ws/chat/${id}`);
    await burst(room, ["before"]);
    expect(await entryShowing(bob, id, "before")).toMatchObject({ last_message: "before" });
    // The room's last instance ran where the clock was 30 s ahead: its hubs hold versions from
    // then, and it stored its version ceiling as it does (a minute above what it handed out).
    const ahead = (Date.now() + 30_000) * 1000;
    for (const member of [alice, bob]) {
      await runInDurableObject(hubOf(member.id), (_hub, state: DurableObjectState) => {
        state.storage.sql.exec(
          "UPDATE chat_list SET version = ? WHERE conversation_id = ?",
          ahead,
          id,
        );
      });
    }
    const roomStub = env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(id));
    await runInDurableObject(roomStub, (_room, state: DurableObjectState) => {
      state.storage.sql.exec(
        "UPDATE meta SET value = ? WHERE key = 'version'",
        String(ahead + 60_000_000),
      );
      try {
        state.abort("moved to another machine");
      } catch {
        // Aborting throws in the caller too.
      }
    }).catch(() => undefined);
    room.close();

    // The new instance's versions start above the ceiling, so the hubs take its entries.
    const again = await socket(alice, `/ws/chat/${id}`);
    await burst(again, ["after"]);
    expect(await entryShowing(bob, id, "after")).toMatchObject({
      last_message: "after",
      unread_count: 2,
    });
    expect(await entryShowing(alice, id, "after")).toMatchObject({ last_message: "after" });
    again.close();
  });
});
