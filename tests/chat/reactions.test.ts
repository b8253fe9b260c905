import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatMessageView } from "~/realtime/chat";
import { REACTION_INVALID } from "~/schemas/chat";
import { LIST_FLUSH_INTERVAL_MS } from "../../durable-objects/conversation/outbox";
import { verifiedMember } from "../helpers/members";
import { openSocket, type TestSocket } from "../helpers/sockets";
import {
  block,
  conversationPair,
  conversations,
  page,
  roomMessages,
  sent,
  type Member,
} from "./helpers";

/**
 * docs/api.md "Chat: reactions, delivery…": one emoji per member per message, live on both sides;
 * a message is delivered once a device of its recipient acknowledged it (a live frame) or fetched
 * it (a page), and read implies delivered.
 */

type Frame = Record<string, unknown>;

async function socket(member: Member, id: string): Promise<TestSocket> {
  const res = await openSocket(member.client, `/ws/chat/${id}`);
  if (res.status !== 101 || !res.socket) throw new Error(`socket refused: ${res.status}`);
  return res.socket;
}

const react = (member: Member, messageId: string, emoji: unknown) =>
  member.client.json<{ emoji?: string; message?: string; errors?: Record<string, string[]> }>(
    "PUT",
    `/chat/messages/${messageId}/reaction`,
    { emoji },
  );

const unreact = (member: Member, messageId: string) =>
  member.client.json("DELETE", `/chat/messages/${messageId}/reaction`);

async function messageOn(member: Member, id: string, messageId: string) {
  const res = await page(member.client, id, "after=0");
  return res.body.messages.find((m) => m.id === messageId)!;
}

const LIST_FLUSH = { timeout: 3 * LIST_FLUSH_INTERVAL_MS };

describe("reactions", () => {
  it("keeps one reaction per member, replaced and taken back, live on both sides", async () => {
    const { alice, bob, id } = await conversationPair();
    const hello = await sent(alice.client, id, "hello");
    const alices = await socket(alice, id);
    const bobs = await socket(bob, id);

    expect((await react(bob, hello.id, "❤️")).status).toBe(200);
    for (const s of [alices, bobs]) {
      expect(await s.next((f) => f.type === "reaction")).toEqual({
        type: "reaction",
        conversation_id: id,
        message_id: hello.id,
        user_id: bob.id,
        emoji: "❤️",
      });
    }
    expect((await react(alice, hello.id, "👍🏽")).status).toBe(200);
    // Replacing: still one reaction of bob's.
    expect((await react(bob, hello.id, "😂")).status).toBe(200);
    await alices.next((f) => f.type === "reaction" && f.emoji === "😂");
    for (const viewer of [alice, bob]) {
      expect((await messageOn(viewer, id, hello.id)).reactions).toEqual([
        { user_id: alice.id, emoji: "👍🏽" },
        { user_id: bob.id, emoji: "😂" },
      ]);
    }
    // The same emoji again changes nothing and sends nothing.
    expect((await react(bob, hello.id, "😂")).status).toBe(200);
    expect((await unreact(bob, hello.id)).status).toBe(204);
    const removed = await alices.next((f) => f.type === "reaction" && f.emoji === null);
    expect(removed).toMatchObject({ user_id: bob.id, message_id: hello.id });
    expect(alices.frames.filter((f) => f.type === "reaction")).toHaveLength(4);
    expect((await messageOn(bob, id, hello.id)).reactions).toEqual([
      { user_id: alice.id, emoji: "👍🏽" },
    ]);
    // Taking back what is not there is no error.
    expect((await unreact(bob, hello.id)).status).toBe(204);
    alices.close();
    bobs.close();
  });

  it("shows the newest reaction in both members' list previews, until a message or its removal", async () => {
    const { alice, bob, id } = await conversationPair();
    const hello = await sent(alice.client, id, "hello there");
    const preview = async (member: Member) =>
      (await conversations(member.client)).body.conversations.find((c) => c.id === id)
        ?.last_message;
    // A list's preview follows within the room's flush of list entries (at most one a second).
    await react(bob, hello.id, "❤️");
    await expect.poll(() => preview(alice), LIST_FLUSH).toBe("Reacted ❤️ to “hello there”");
    await expect.poll(() => preview(bob), LIST_FLUSH).toBe("You reacted ❤️ to “hello there”");
    // Taken back: the message again.
    await unreact(bob, hello.id);
    await expect.poll(() => preview(alice), LIST_FLUSH).toBe("hello there");
    await react(alice, hello.id, "🔥");
    await expect.poll(() => preview(bob), LIST_FLUSH).toBe("Reacted 🔥 to “hello there”");
    // A newer message comes first.
    await sent(bob.client, id, "a reply");
    await expect.poll(() => preview(alice), LIST_FLUSH).toBe("a reply");
    // The unread count is the messages' only.
    const entry = (await conversations(alice.client)).body.conversations.find((c) => c.id === id);
    expect(entry?.unread_count).toBe(1);
  });

  it("takes a reaction over the socket: the same rules, answered to that socket when nothing changed", async () => {
    const { alice, bob, id } = await conversationPair();
    const hello = await sent(alice.client, id, "hello");
    const alices = await socket(alice, id);
    const bobs = await socket(bob, id);
    bobs.ws.send(JSON.stringify({ type: "react", message_id: hello.id, emoji: "🔥" }));
    expect(await alices.next((f) => f.type === "reaction")).toMatchObject({
      message_id: hello.id,
      user_id: bob.id,
      emoji: "🔥",
    });
    await bobs.next((f) => f.type === "reaction" && f.emoji === "🔥");
    // The same again: only Bob's socket hears, as its answer.
    bobs.ws.send(JSON.stringify({ type: "react", message_id: hello.id, emoji: "🔥" }));
    await expect.poll(() => bobs.frames.filter((f) => f.type === "reaction").length).toBe(2);
    // Refusals come back as react_error with the API's status and message; nothing changes.
    bobs.ws.send(JSON.stringify({ type: "react", message_id: "no-such", emoji: "❤️" }));
    expect(await bobs.next((f) => f.type === "react_error")).toMatchObject({
      message_id: "no-such",
      status: 404,
    });
    // A frame the union refuses (two emoji) is not heard at all.
    bobs.ws.send(JSON.stringify({ type: "react", message_id: hello.id, emoji: "❤️❤️" }));
    bobs.ws.send(JSON.stringify({ type: "react", message_id: hello.id, emoji: null }));
    await alices.next((f) => f.type === "reaction" && f.emoji === null);
    expect(alices.frames.filter((f) => f.type === "reaction")).toHaveLength(2);
    expect((await messageOn(alice, id, hello.id)).reactions).toEqual([]);
    alices.close();
    bobs.close();
  });

  it("takes one emoji only, with the same error, and changes nothing otherwise", async () => {
    const { alice, bob, id } = await conversationPair();
    const hello = await sent(alice.client, id, "hello");
    for (const emoji of ["", "hi", "❤️❤️", "a❤️", 5, null, "👨‍👩‍👧‍👦x"]) {
      const res = await react(bob, hello.id, emoji);
      expect(res.status, JSON.stringify(emoji)).toBe(422);
      expect(res.body.errors?.emoji).toEqual([REACTION_INVALID]);
    }
    for (const emoji of ["👨‍👩‍👧‍👦", "🇫🇷", "👍🏿", "❤️", "🔥", "1️⃣"]) {
      expect((await react(bob, hello.id, emoji)).status, emoji).toBe(200);
    }
    expect((await messageOn(alice, id, hello.id)).reactions).toEqual([
      { user_id: bob.id, emoji: "1️⃣" },
    ]);
  });

  it("is refused to anyone outside the conversation, after a block, and on a deleted message", async () => {
    const { alice, bob, id } = await conversationPair();
    const hello = await sent(alice.client, id, "hello");
    const stranger = await verifiedMember();
    expect((await react(stranger, hello.id, "❤️")).status).toBe(404);
    expect((await unreact(stranger, hello.id)).status).toBe(404);
    expect((await react(bob, "no-such-message", "❤️")).status).toBe(404);

    await react(bob, hello.id, "❤️");
    const gone = await sent(alice.client, id, "to delete");
    await react(bob, gone.id, "🔥");
    expect((await alice.client.json("DELETE", `/chat/messages/${gone.id}`)).status).toBe(204);
    expect((await react(bob, gone.id, "❤️")).status).toBe(404);

    await block(alice, bob);
    const refused = await react(bob, hello.id, "😢");
    expect(refused.status).toBe(403);
    expect((await react(alice, hello.id, "😢")).status).toBe(403);
    const stored = await roomMessages(id);
    expect(stored.find((m) => m.id === hello.id)!.reactions).toEqual([]);
  });
});

describe("delivery", () => {
  it("stamps a message delivered when the recipient's device acknowledges it, and tells the sender once", async () => {
    const { alice, bob, id } = await conversationPair();
    const alices = await socket(alice, id);
    const bobs = await socket(bob, id);
    const one = await sent(alice.client, id, "one");
    const two = await sent(alice.client, id, "two");
    expect(one.delivered_at).toBeNull();
    await bobs.next((f) => f.type === "message" && (f.message as ChatMessageView).id === two.id);

    // Acknowledging one's own message, or an unknown id, stamps nothing.
    alices.ws.send(JSON.stringify({ type: "received", ids: [one.id] }));
    bobs.ws.send(JSON.stringify({ type: "received", ids: [one.id, two.id, "unknown"] }));
    const delivered = await alices.next((f) => f.type === "delivered");
    expect(delivered).toMatchObject({ conversation_id: id, ids: [one.id, two.id] });
    expect(delivered.delivered_at).toMatch(/Z$/);
    // Once: a second acknowledgement (another tab) sends nothing more.
    bobs.ws.send(JSON.stringify({ type: "received", ids: [one.id, two.id] }));
    const three = await sent(bob.client, id, "three");
    alices.ws.send(JSON.stringify({ type: "received", ids: [three.id] }));
    await bobs.next((f) => f.type === "delivered");
    expect(alices.frames.filter((f: Frame) => f.type === "delivered")).toHaveLength(1);
    // The delivered frame goes to the sender only.
    expect(bobs.frames.filter((f: Frame) => f.type === "delivered")).toHaveLength(1);

    const first = await messageOn(alice, id, one.id);
    expect(first.delivered_at).toBe(delivered.delivered_at);
    expect(first.read_at).toBeNull();
    alices.close();
    bobs.close();
  });

  it("counts a page the recipient fetched as delivered, and read as delivered", async () => {
    const { alice, bob, id } = await conversationPair();
    const alices = await socket(alice, id);
    const one = await sent(alice.client, id, "one");
    // The sender's own fetch delivers nothing.
    expect((await messageOn(alice, id, one.id)).delivered_at).toBeNull();
    // A catch-up page of the recipient's does.
    const fetched = await messageOn(bob, id, one.id);
    expect(fetched.delivered_at).not.toBeNull();
    expect(fetched.read_at).toBeNull();
    expect(await alices.next((f) => f.type === "delivered")).toMatchObject({ ids: [one.id] });

    // Read over POST …/read before any device acknowledged it: delivered at the same time.
    const two = await sent(alice.client, id, "two");
    await bob.client.json("POST", `/chat/conversations/${id}/read`);
    const second = await messageOn(alice, id, two.id);
    expect(second.read_at).not.toBeNull();
    expect(second.delivered_at).toBe(second.read_at);
    alices.close();
  });

  it("takes acknowledgements on the member channel when the conversation is not open", async () => {
    const { alice, bob, id } = await conversationPair();
    const stranger = await verifiedMember();
    const alices = await socket(alice, id);
    const channel = await openSocket(bob.client, "/ws/me");
    const strangers = await openSocket(stranger.client, "/ws/me");
    const one = await sent(alice.client, id, "one");
    const heard = await channel.socket!.next((f) => f.type === "conversation" && !!f.message);
    expect((heard.message as { id: string }).id).toBe(one.id);
    // Someone else's channel cannot say bob received it: its hub passes it on as the stranger's,
    // which the room refuses (given time to be heard, nothing is stamped).
    strangers.socket!.ws.send(
      JSON.stringify({ type: "received", conversation_id: id, ids: [one.id] }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await roomMessages(id))[0]!.delivered_at).toBeNull();
    channel.socket!.ws.send(
      JSON.stringify({ type: "received", conversation_id: id, ids: [one.id] }),
    );
    expect(await alices.next((f) => f.type === "delivered")).toMatchObject({ ids: [one.id] });
    expect(alices.frames.filter((f: Frame) => f.type === "delivered")).toHaveLength(1);
    alices.close();
    channel.socket!.close();
    strangers.socket!.close();
  });

  it("refuses acknowledgements after a block", async () => {
    const { alice, bob, id } = await conversationPair();
    const one = await sent(alice.client, id, "one");
    await block(bob, alice);
    // The room closed bob's sockets; its own door (the member channel's path) refuses too.
    const room = env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(id));
    const answer = await room.received(id, bob.id, [one.id]);
    expect(answer).toMatchObject({ ok: false, refusal: { status: 403 } });
    const [stored] = await roomMessages(id);
    expect(stored!.delivered_at).toBeNull();
  });
});
