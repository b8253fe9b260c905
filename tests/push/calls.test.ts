import { describe, expect, it } from "vitest";
import { RING_TIMEOUT_MS } from "~/realtime/chat";
import { callTag } from "~/server/away.server";
import { pushTopic } from "~/server/push.server";
import { block, matchedPair, type Member } from "../chat/helpers";
import { openSocket, type TestSocket } from "../helpers/sockets";
import {
  attemptsAt,
  plaintextOf,
  pushesTo,
  subscribeBrowser,
  waitForAttempts,
  type BrowserSubscription,
} from "./browser";

/**
 * A call for a member with no page open (docs/api.md "Chat: reactions, delivery, photos, voice,
 * calls", docs/decisions/039): their hub pushes the ring at once, and replaces it with a missed
 * call when nobody answered; checked at the push service's stand-in, which decrypts each payload.
 * AWAY_PUSH_DELAY_SECONDS is 1 here (vitest.config.ts); a call does not wait for it.
 */

const DELAY_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Frame = Record<string, unknown>;

async function subscribe(m: Member): Promise<BrowserSubscription> {
  const sub = await subscribeBrowser();
  const res = await m.client.json("POST", "/my/push/subscriptions", {
    endpoint: sub.endpoint,
    keys: sub.keys,
  });
  expect(res.status).toBe(201);
  return sub;
}

/** The conversation's socket, or (`id` empty) the member's own channel. */
async function socket(member: Member, id: string): Promise<TestSocket> {
  const res = await openSocket(member.client, id ? `/ws/chat/${id}` : "/ws/me");
  if (res.status !== 101 || !res.socket) throw new Error(`socket refused: ${res.status}`);
  return res.socket;
}

async function settings(m: Member, change: Record<string, unknown>) {
  const res = await m.client.json("PUT", "/my/notification-preferences", change);
  expect(res.status).toBe(200);
}

const call = (s: TestSocket, callId: string, action: string, data?: unknown) =>
  s.ws.send(JSON.stringify({ type: "call", call_id: callId, action, data }));

const callFrame = (callId: string, action: string) => (f: Frame) =>
  f.type === "call" && f.call_id === callId && f.action === action;

/** The decrypted pushes this browser got, oldest first. */
const payloads = async (sub: BrowserSubscription) => (await pushesTo(sub)).map(plaintextOf);

/** Alice calls Bob, who has one browser subscribed and no page open. */
async function callPair() {
  const pair = await matchedPair();
  const sub = await subscribe(pair.bob);
  const caller = await socket(pair.alice, pair.id);
  return { ...pair, sub, caller };
}

describe("a call for a member with no page open", () => {
  it("rings by push at once, naming the caller; unanswered, a missed call replaces it", async () => {
    const { alice, bob, id, sub, caller } = await callPair();
    // Bob's last page closed just now: a message would wait for the delay, a call does not.
    const page = await socket(bob, "");
    page.close();
    await sleep(200);
    const before = Date.now();
    call(caller, "k1", "ring", { video: true });

    await waitForAttempts(sub, 1);
    const [ring] = await pushesTo(sub);
    expect(ring!.received_at - before).toBeLessThan(DELAY_MS);
    const name = alice.details.username;
    expect(plaintextOf(ring!)).toEqual({
      type: "call",
      title: "Incoming call",
      body: `${name} is calling you`,
      url: `/chat/${id}`,
      tag: callTag(id),
      ends_at: expect.any(Number),
    });
    // It says when it stops ringing, so that a browser can take it off the screen then.
    const endsAt = plaintextOf(ring!).ends_at as number;
    expect(endsAt - before).toBeGreaterThanOrEqual(RING_TIMEOUT_MS);
    expect(endsAt - before).toBeLessThan(RING_TIMEOUT_MS + DELAY_MS);
    expect(ring!.headers.urgency).toBe("high");
    // A ring is worth nothing once it stopped: the push service drops it within a minute.
    expect(Number(ring!.headers.ttl)).toBeLessThanOrEqual(60);
    expect(ring!.headers.topic).toBe(await pushTopic(callTag(id)));

    // Alice gives up: the same tag now says the call was missed, at once.
    const hungUp = Date.now();
    call(caller, "k1", "end");
    await waitForAttempts(sub, 2);
    const missed = (await pushesTo(sub))[1]!;
    expect(missed.received_at - hungUp).toBeLessThan(DELAY_MS);
    expect(plaintextOf(missed)).toEqual({
      type: "missed_call",
      title: "Missed call",
      body: `Missed call from ${name}`,
      url: `/chat/${id}`,
      tag: callTag(id),
    });
    expect(missed.headers.topic).toBe(ring!.headers.topic);

    // The call's line in the conversation is no push of its own.
    await sleep(DELAY_MS + 300);
    expect(await pushesTo(sub)).toHaveLength(2);
    // Bob still finds it in the conversation.
    const list = await bob.client.json<{ conversations: { id: string; unread_count: number }[] }>(
      "GET",
      "/chat/conversations",
    );
    expect(list.body.conversations.find((c) => c.id === id)?.unread_count).toBeGreaterThan(0);
  });

  it("says voice or video on the lock screen only with previews on", async () => {
    const { bob, sub, caller, alice } = await callPair();
    await settings(bob, { preview: true });
    call(caller, "p1", "ring", { video: false });
    await waitForAttempts(sub, 1);
    call(caller, "p1", "end");
    await waitForAttempts(sub, 2);
    const name = alice.details.username;
    expect(await payloads(sub)).toMatchObject([
      { type: "call", title: "Incoming voice call", body: `${name} is calling you` },
      { type: "missed_call", title: "Missed voice call", body: `Missed voice call from ${name}` },
    ]);
  });

  it("answered: the ring is replaced, quietly, on every browser it rang; no missed call, and no push for the call's line afterwards", async () => {
    const { alice, bob, id, sub, caller } = await callPair();
    call(caller, "a1", "ring", { video: true });
    await waitForAttempts(sub, 1);

    // The push opens the conversation: the page holds Bob's channel and the conversation.
    const channel = await socket(bob, "");
    const room = await socket(bob, id);
    await room.next(callFrame("a1", "ring"));
    call(room, "a1", "accept");
    await caller.next(callFrame("a1", "accept"));
    // Sent while the page is open: the browser the ring was pushed to still shows it.
    await waitForAttempts(sub, 2);
    // Bob closes the page: the call ends with it, and its line arrives while he is away.
    room.close();
    channel.close();
    await caller.next(callFrame("a1", "end"));

    await sleep(DELAY_MS + 500);
    const pushes = await pushesTo(sub);
    expect(pushes.map((p) => plaintextOf(p).type)).toEqual(["call", "call_answered"]);
    // Under the ring's tag (the browser that answered shows nothing: its ring went with the click).
    expect(plaintextOf(pushes[1]!)).toEqual({
      type: "call_answered",
      title: "Answered call",
      body: `You answered ${alice.details.username}'s call on another device`,
      url: `/chat/${id}`,
      tag: callTag(id),
    });
    expect(Number(pushes[1]!.headers.ttl)).toBeLessThanOrEqual(120);
    expect(pushes[1]!.headers.topic).toBe(pushes[0]!.headers.topic);
  });

  it("a ring shown before a page opened is still replaced by its missed call", async () => {
    const { bob, sub, caller } = await callPair();
    call(caller, "m1", "ring", { video: true });
    await waitForAttempts(sub, 1);
    // Bob opens Heartline somewhere else, but not the call; Alice gives up.
    const channel = await socket(bob, "");
    call(caller, "m1", "end");
    await channel.next((f) => f.type === "call" && f.call_id === "m1" && f.missed === true);
    await waitForAttempts(sub, 2);
    expect((await payloads(sub)).map((p) => p.type)).toEqual(["call", "missed_call"]);
    channel.close();
  });

  it("declined: the ring is replaced by the answer, and no missed call", async () => {
    const { alice, bob, id, sub, caller } = await callPair();
    call(caller, "d1", "ring", { video: true });
    await waitForAttempts(sub, 1);

    const channel = await socket(bob, "");
    const room = await socket(bob, id);
    await room.next(callFrame("d1", "ring"));
    call(room, "d1", "decline");
    await caller.next(callFrame("d1", "decline"));
    room.close();
    channel.close();

    await sleep(DELAY_MS + 500);
    expect(await payloads(sub)).toMatchObject([
      { type: "call" },
      {
        type: "call_answered",
        title: "Declined call",
        body: `You declined ${alice.details.username}'s call on another device`,
      },
    ]);
  });

  it("with a page open, rings there and pushes nothing, nor when it is missed or answered", async () => {
    const { bob, id, sub, caller } = await callPair();
    const channel = await socket(bob, "");
    call(caller, "o1", "ring", { video: true });
    await channel.next((f) => f.type === "call" && f.call_id === "o1" && f.ringing === true);
    call(caller, "o1", "end");
    await channel.next((f) => f.type === "call" && f.call_id === "o1" && f.ringing === false);

    // Rung on the page and answered there: nothing was pushed, so nothing replaces it.
    const room = await socket(bob, id);
    call(caller, "o2", "ring", { video: false });
    await room.next(callFrame("o2", "ring"));
    call(room, "o2", "accept");
    await channel.next(
      (f) =>
        f.type === "call" && f.call_id === "o2" && f.ringing === false && f.answered === "accepted",
    );

    await sleep(DELAY_MS + 500);
    expect(await attemptsAt(sub)).toEqual([]);
    room.close();
    channel.close();
  });
});

describe("a call push is never sent", () => {
  it("across a block: one ringing when the block comes is not told missed, and no call rings after", async () => {
    const { alice, bob, id, sub, caller } = await callPair();
    call(caller, "b1", "ring", { video: true });
    await waitForAttempts(sub, 1);
    // Bob blocks Alice while it rings: the call ends with the conversation's sockets.
    await block(bob, alice);
    await sleep(DELAY_MS + 500);
    expect((await payloads(sub)).map((p) => p.type)).toEqual(["call"]);

    // Alice cannot ring again: the conversation does not open for her any more.
    const again = await openSocket(alice.client, `/ws/chat/${id}`);
    if (again.status === 101 && again.socket) {
      call(again.socket, "b2", "ring", { video: true });
      await again.socket.next((f) => f.type === "call_error" && f.call_id === "b2");
      again.socket.close();
    } else {
      expect(again.status).toBe(403);
    }
    await sleep(DELAY_MS);
    expect(await pushesTo(sub)).toHaveLength(1);
  });

  it("for a member who switched message pushes off, nor in their quiet hours", async () => {
    const { bob, id, sub, caller } = await callPair();
    await settings(bob, { preferences: { message: { push: false } } });
    call(caller, "s1", "ring", { video: true });
    await sleep(300);
    call(caller, "s1", "end");
    await sleep(DELAY_MS + 300);
    expect(await attemptsAt(sub)).toEqual([]);

    // Quiet for the two hours around now in Tokyo (UTC+9, no daylight saving).
    const tokyo = new Date(Date.now() + 9 * 3_600_000);
    const hh = (h: number) => String((h + 24) % 24).padStart(2, "0");
    await settings(bob, {
      preferences: { message: { push: true } },
      quiet_hours: {
        start: `${hh(tokyo.getUTCHours() - 1)}:00`,
        end: `${hh(tokyo.getUTCHours() + 1)}:59`,
        time_zone: "Asia/Tokyo",
      },
    });
    call(caller, "s2", "ring", { video: true });
    await sleep(300);
    call(caller, "s2", "end");
    await sleep(DELAY_MS + 300);
    expect(await attemptsAt(sub)).toEqual([]);
    // A ring withheld and then answered on a page: no answer is pushed either (nothing to replace).
    call(caller, "s2b", "ring", { video: true });
    await sleep(300);
    const room = await socket(bob, id);
    await room.next(callFrame("s2b", "ring"));
    call(room, "s2b", "accept");
    await caller.next(callFrame("s2b", "accept"));
    room.close();
    await caller.next(callFrame("s2b", "end"));
    await sleep(DELAY_MS + 300);
    expect(await attemptsAt(sub)).toEqual([]);

    // Without quiet hours, the next call rings.
    await settings(bob, { quiet_hours: null });
    call(caller, "s3", "ring", { video: true });
    await waitForAttempts(sub, 1);
    expect((await payloads(sub)).map((p) => p.type)).toEqual(["call"]);
  }, 15_000);
});
