import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatMessageView } from "~/realtime/chat";
import { CHAT_CLOSE_FORBIDDEN } from "~/realtime/chat";
import type { ConversationRoom } from "../../durable-objects/conversation/room";
import { openSocket, type TestSocket } from "../helpers/sockets";
import { block, conversationPair, giveCredits, page, send, sent, type Member } from "./helpers";

type Frame = Record<string, unknown>;
const isMessage = (f: Frame) => f.type === "message";
const messageOf = (f: Frame) => f.message as ChatMessageView;

async function socket(client: Parameters<typeof openSocket>[0], id: string): Promise<TestSocket> {
  const res = await openSocket(client, `/ws/chat/${id}`);
  if (res.status !== 101 || !res.socket) throw new Error(`socket refused: ${res.status}`);
  return res.socket;
}

/** Resolves when the socket has closed, with the code and reason it closed with. */
function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => {
    ws.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }));
  });
}

const roomOf = (id: string) => env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(id));

const notificationType = (f: Frame) => (f.notification as { type: string }).type;

/** Sends a rose (granting the credits for it): every gift is notified to its recipient. */
async function sentGift(from: Member, conversationId: string) {
  await giveCredits(from.id, 100);
  const res = await send(from.client, conversationId, "", { gift_id: "rose" });
  if (res.status !== 201) throw new Error(`gift failed: ${res.status} ${JSON.stringify(res.body)}`);
}

describe("the conversation room", () => {
  it("delivers each message once to every open socket, the sender's own included, in order", async () => {
    const { alice, bob, id } = await conversationPair();
    const aliceTab1 = await socket(alice.client, id);
    const aliceTab2 = await socket(alice.client, id);
    const bobs = await socket(bob.client, id);
    const first = await sent(alice.client, id, "one");
    await sent(bob.client, id, "two");
    await sent(alice.client, id, "three");
    for (const s of [aliceTab1, aliceTab2, bobs]) {
      await s.next((f) => isMessage(f) && messageOf(f).message === "three");
      expect(s.frames.filter(isMessage).map((f) => messageOf(f).message)).toEqual([
        "one",
        "two",
        "three",
      ]);
    }
    // The live frame is the stored message, as every later fetch returns it.
    const live = messageOf(bobs.frames.find(isMessage)!);
    expect(live).toEqual({ ...first, read_at: null });
    const fetched = (await page(alice.client, id, "after=0")).body.messages[0]!;
    expect(fetched).toEqual(live);
    for (const s of [aliceTab1, aliceTab2, bobs]) s.close();
  });

  it("takes a message sent over the socket: the same rules, stored, delivered once to every socket", async () => {
    const { alice, bob, id } = await conversationPair();
    const alices = await socket(alice.client, id);
    const bobs = await socket(bob.client, id);
    alices.ws.send(JSON.stringify({ type: "send", client_id: "ws-1", message: "Over the socket" }));
    const live = messageOf(await bobs.next((f) => isMessage(f)));
    expect(live).toMatchObject({
      seq: 1,
      sender_id: alice.id,
      client_id: "ws-1",
      message: "Over the socket",
    });
    const echo = await alices.next((f) => isMessage(f) && messageOf(f).id === live.id);
    // Bob's page delivers it (his device has it now).
    const delivered = { ...live, delivered_at: expect.any(String) };
    expect((await page(bob.client, id, "after=0")).body.messages).toEqual([delivered]);

    // The same client id again: stored once, and only the sender hears it again (Bob's socket is
    // checked below, once later messages prove the room has sent everything before them).
    alices.ws.send(JSON.stringify({ type: "send", client_id: "ws-1", message: "Over the socket" }));
    expect(messageOf(await alices.next((f) => isMessage(f) && f !== echo))).toEqual(delivered);
    expect(alices.frames.filter(isMessage)).toHaveLength(2);
    expect((await page(bob.client, id, "after=0")).body.messages).toHaveLength(1);

    // Refusals come back to the sender as send_error, with the HTTP API's status and message.
    alices.ws.send(JSON.stringify({ type: "send", client_id: "ws-2", message: " " }));
    expect(await alices.next((f) => f.type === "send_error")).toMatchObject({
      client_id: "ws-2",
      status: 422,
      message: "The message field is required.",
    });
    for (const n of [3, 4]) {
      alices.ws.send(JSON.stringify({ type: "send", client_id: `ws-${n}`, message: `#${n}` }));
      await alices.next((f) => isMessage(f) && messageOf(f).client_id === `ws-${n}`);
    }
    // The room publishes in sequence order: once Bob has #4, a repeat of ws-1 would be there.
    await bobs.next((f) => isMessage(f) && messageOf(f).client_id === "ws-4");
    expect(bobs.frames.filter(isMessage).map((f) => messageOf(f).client_id)).toEqual([
      "ws-1",
      "ws-3",
      "ws-4",
    ]);
    alices.ws.send(JSON.stringify({ type: "send", client_id: "ws-5", message: "a fourth" }));
    expect(
      await alices.next((f) => f.type === "send_error" && f.client_id === "ws-5"),
    ).toMatchObject({
      status: 429,
      retry_after: expect.any(Number),
    });
    alices.ws.send(JSON.stringify({ type: "send", client_id: "ws-6", gift_id: "rose" }));
    expect(
      await alices.next((f) => f.type === "send_error" && f.client_id === "ws-6"),
    ).toMatchObject({
      status: 429,
    });
    bobs.ws.send(JSON.stringify({ type: "send", client_id: "ws-7", gift_id: "rose" }));
    expect(await bobs.next((f) => f.type === "send_error" && f.client_id === "ws-7")).toMatchObject(
      {
        status: 402,
        message: "Not enough credits",
      },
    );
    expect(alices.frames.filter((f) => f.type === "send_error")).toHaveLength(3);
    expect(bobs.frames.filter((f) => f.type === "send_error")).toHaveLength(1);
    alices.close();
    bobs.close();
  });

  it("refuses a socket send once either member blocked the other", async () => {
    const { alice, bob, id } = await conversationPair();
    const alices = await socket(alice.client, id);
    // A block that lands without closing the room (as if the room were elsewhere): the chat
    // module still refuses.
    await env.DB.prepare(
      "INSERT INTO blocks (blocker_id, blocked_id, reason_type) VALUES (?1, ?2, 'spam')",
    )
      .bind(bob.id, alice.id)
      .run();
    alices.ws.send(JSON.stringify({ type: "send", client_id: "b-1", message: "hello?" }));
    expect(await alices.next((f) => f.type === "send_error")).toMatchObject({
      status: 403,
      message: "You cannot message this member.",
    });
    // Nothing stored in the conversation's room.
    expect(await roomOf(id).allMessages(id)).toHaveLength(0);
    alices.close();
  });

  it("answers a ping with a pong", async () => {
    const { alice, id } = await conversationPair();
    const s = await socket(alice.client, id);
    s.ws.send(JSON.stringify({ type: "ping" }));
    await s.next((f) => f.type === "pong");
    s.close();
  });

  it("pushes read receipts to the sender", async () => {
    const { alice, bob, id } = await conversationPair();
    const alices = await socket(alice.client, id);
    await sent(alice.client, id, "read me");
    await bob.client.json("POST", `/chat/conversations/${id}/read`);
    const frame = await alices.next((f) => f.type === "read");
    expect(frame).toMatchObject({ conversation_id: id, user_id: bob.id, seq: 1 });
    expect(frame.read_at).toMatch(/Z$/);
    // Reading again with nothing new sends nothing (checked once the next receipt has arrived).
    await bob.client.json("POST", `/chat/conversations/${id}/read`);

    // Reading over the socket does the same.
    const bobs = await socket(bob.client, id);
    await sent(alice.client, id, "and this");
    bobs.ws.send(JSON.stringify({ type: "read" }));
    expect(await alices.next((f) => f.type === "read" && f.seq === 2)).toMatchObject({
      user_id: bob.id,
    });
    expect(alices.frames.filter((f) => f.type === "read").map((f) => f.seq)).toEqual([1, 2]);
    const [, second] = (await page(alice.client, id, "after=0")).body.messages;
    expect(second!.read_at).not.toBeNull();
    alices.close();
    bobs.close();
  });

  it("relays typing to the other member only, throttled, and never stores it", async () => {
    const { alice, bob, id } = await conversationPair();
    const alices = await socket(alice.client, id);
    const alice2 = await socket(alice.client, id);
    const bobs = await socket(bob.client, id);
    alices.ws.send(JSON.stringify({ type: "typing" }));
    alices.ws.send(JSON.stringify({ type: "typing" }));
    alice2.ws.send(JSON.stringify({ type: "typing" }));
    expect(await bobs.next((f) => f.type === "typing")).toEqual({
      type: "typing",
      user_id: alice.id,
    });
    // Something that is not a frame is ignored.
    alices.ws.send("not json");
    alices.ws.send(JSON.stringify({ type: "message", message: "sneaky" }));
    // A message sent after everything above, from each of Alice's sockets: once every socket has
    // both, the room has handled (and relayed) all that came before them on those sockets.
    alices.ws.send(JSON.stringify({ type: "send", client_id: "after-1", message: "after one" }));
    alice2.ws.send(JSON.stringify({ type: "send", client_id: "after-2", message: "after two" }));
    for (const s of [alices, alice2, bobs]) {
      for (const clientId of ["after-1", "after-2"])
        await s.next((f) => isMessage(f) && messageOf(f).client_id === clientId);
    }
    expect(bobs.frames.filter((f) => f.type === "typing")).toHaveLength(1);
    expect(bobs.frames.filter(isMessage)).toHaveLength(2);
    expect(alices.frames.filter((f) => f.type === "typing")).toHaveLength(0);
    expect(alice2.frames.filter((f) => f.type === "typing")).toHaveLength(0);
    const stored = (await page(bob.client, id, "after=0")).body.messages;
    expect(stored.map((m) => m.message).sort()).toEqual(["after one", "after two"]);
    for (const s of [alices, alice2, bobs]) s.close();
  });

  it("pushes a deletion to both members", async () => {
    const { alice, bob, id } = await conversationPair();
    const alices = await socket(alice.client, id);
    const bobs = await socket(bob.client, id);
    const m = await sent(alice.client, id, "regret");
    await alice.client.json("DELETE", `/chat/messages/${m.id}`);
    for (const s of [alices, bobs]) {
      expect(await s.next((f) => f.type === "message_deleted")).toEqual({
        type: "message_deleted",
        id: m.id,
        conversation_id: id,
      });
    }
    alices.close();
    bobs.close();
  });

  it("stops delivering when one member blocks the other: sockets close and cannot come back", async () => {
    const { alice, bob, id } = await conversationPair();
    const alices = await socket(alice.client, id);
    const bobs = await socket(bob.client, id);
    const aliceClosed = closed(alices.ws);
    const bobClosed = closed(bobs.ws);
    await block(bob, alice);
    expect((await aliceClosed).code).toBe(CHAT_CLOSE_FORBIDDEN);
    expect((await bobClosed).code).toBe(CHAT_CLOSE_FORBIDDEN);
    expect((await send(alice.client, id, "hello?")).status).toBe(403);
    expect((await openSocket(alice.client, `/ws/chat/${id}`)).status).toBe(403);
    const room = env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(id));
    expect(await room.connectionCount()).toBe(0);
  });

  it("sends messages that reach it out of order in sequence order", async () => {
    const { alice, id } = await conversationPair();
    const s = await socket(alice.client, id);
    const room = env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(id));
    const message = (seq: number): ChatMessageView => ({
      id: `m${seq}`,
      conversation_id: id,
      seq,
      sender_id: alice.id,
      client_id: null,
      message: `#${seq}`,
      sent_at: new Date().toISOString(),
      read_at: null,
      gift: null,
      reactions: [],
      delivered_at: null,
      attachment: null,
    });
    await room.publish({ type: "message", message: message(1) });
    // 3 arrives before 2: it waits for 2, then both go out in order.
    const late = room.publish({ type: "message", message: message(3) });
    await room.publish({ type: "message", message: message(2) });
    await late;
    // 5 arrives and 4 never does: 5 goes out after a short hold.
    await room.publish({ type: "message", message: message(5) });
    await s.next((f) => isMessage(f) && messageOf(f).seq === 5);
    expect(s.frames.filter(isMessage).map((f) => messageOf(f).seq)).toEqual([1, 2, 3, 5]);
    await runInDurableObject(room, async (instance: ConversationRoom) => {
      expect(await instance.connectionCount()).toBe(1);
    });
    s.close();
  });

  it("tells each member's own channel about the conversation, and notifies the first unread message", async () => {
    const { alice, bob, id } = await conversationPair();
    const bobMe = (await openSocket(bob.client, "/ws/me")).socket!;
    const aliceMe = (await openSocket(alice.client, "/ws/me")).socket!;
    await sent(alice.client, id, "hello bob");
    const update = await bobMe.next((f) => f.type === "conversation");
    expect(update).toMatchObject({
      conversation_id: id,
      last_message: "hello bob",
      unread_count: 1,
      unread_total: 1,
      message: { sender_id: alice.id, message: "hello bob" },
    });
    const notification = await bobMe.next((f) => f.type === "notification");
    expect(notification).toMatchObject({
      notification: { type: "message", data: { conversation_id: id, preview: "hello bob" } },
    });
    expect(await aliceMe.next((f) => f.type === "conversation")).toMatchObject({
      conversation_id: id,
      unread_count: 0,
    });
    // A second unread message updates the list but is not notified again. A gift (always
    // notified) sent after it is the proof: once its notification is here, one for the second
    // message would be too.
    await sent(alice.client, id, "are you there?");
    await bobMe.next((f) => f.type === "conversation" && f.unread_count === 2);
    await sentGift(alice, id);
    await bobMe.next((f) => f.type === "notification" && notificationType(f) === "gift");
    expect(bobMe.frames.filter((f) => f.type === "notification").map(notificationType)).toEqual([
      "message",
      "gift",
    ]);
    // Reading clears the count on Bob's other pages.
    await page(bob.client, id);
    await bobMe.next(
      (f) => f.type === "conversation" && f.unread_count === 0 && f.unread_total === 0,
    );
    bobMe.close();
    aliceMe.close();
  });

  it("does not notify a member who has the conversation open", async () => {
    const { alice, bob, id } = await conversationPair();
    const bobMe = (await openSocket(bob.client, "/ws/me")).socket!;
    const bobRoom = await socket(bob.client, id);
    await sent(alice.client, id, "you are here");
    await bobRoom.next((f) => isMessage(f));
    await bobMe.next((f) => f.type === "conversation" && f.unread_count === 1);
    // A gift is notified even to a member who is looking: once its notification is here, one for
    // the first message would be too.
    await sentGift(alice, id);
    await bobMe.next((f) => f.type === "notification");
    expect(bobMe.frames.filter((f) => f.type === "notification").map(notificationType)).toEqual([
      "gift",
    ]);
    bobRoom.close();
    bobMe.close();
  });
});
