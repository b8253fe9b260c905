import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { recordProfileView } from "~/server/profile-views.server";
import { pushTopic } from "~/server/push.server";
import { conversationTag } from "~/server/away.server";
import type { MemberHub } from "../../durable-objects/member-hub";
import { block, conversationPair, giveCredits, send, sent, type Member } from "../chat/helpers";
import { signInAs } from "../helpers/auth";
import { verifiedMember } from "../helpers/members";
import { openSocket, type TestSocket } from "../helpers/sockets";
import {
  attemptsAt,
  plaintextOf,
  pushesTo,
  pushServiceAnswers,
  subscribeBrowser,
  waitForAttempts,
  type BrowserSubscription,
} from "./browser";

/**
 * Pushes to a member who is away (docs/api.md "Away from the app", docs/decisions/033), decided
 * by the member's hub and checked at the push service's stand-in, which verifies the VAPID JWT and
 * decrypts each payload. The tests run with AWAY_PUSH_DELAY_SECONDS = 1 (vitest.config.ts).
 */

const DELAY_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function subscribe(m: Member): Promise<BrowserSubscription> {
  const sub = await subscribeBrowser();
  const res = await m.client.json("POST", "/my/push/subscriptions", {
    endpoint: sub.endpoint,
    keys: sub.keys,
  });
  expect(res.status).toBe(201);
  return sub;
}

async function memberSocket(m: Member): Promise<TestSocket> {
  const res = await openSocket(m.client, "/ws/me");
  if (res.status !== 101 || !res.socket) throw new Error(`socket refused: ${res.status}`);
  return res.socket;
}

async function settings(m: Member, change: Record<string, unknown>) {
  const res = await m.client.json("PUT", "/my/notification-preferences", change);
  expect(res.status).toBe(200);
}

const like = (from: Member, to: Member) =>
  from.client.json<{ is_match: boolean }>("POST", "/my/likes", { user_id: to.id });

/** The decrypted pushes this browser got, oldest first. */
const payloads = async (sub: BrowserSubscription) => (await pushesTo(sub)).map(plaintextOf);

/** A conversation whose recipient (bob) is away with one browser subscribed. */
async function awayPair() {
  const pair = await conversationPair();
  // Bob answers once, so that Alice may write several messages in a row.
  await sent(pair.bob.client, pair.id, "hello");
  const sub = await subscribe(pair.bob);
  return { ...pair, sub };
}

describe("a member who is away", () => {
  it("gets one push for a message at once, naming the sender only, opening the conversation", async () => {
    const { alice, id, sub } = await awayPair();
    const before = Date.now();
    await sent(alice.client, id, "Are you free on Friday?");

    const [attempt] = await waitForAttempts(sub, 1);
    expect(attempt?.status).toBe(201);
    const [push] = await pushesTo(sub);
    expect(push!.received_at - before).toBeLessThan(DELAY_MS);
    expect(plaintextOf(push!)).toEqual({
      type: "message",
      title: alice.details.username,
      body: `${alice.details.username} sent you a message`,
      url: `/chat/${id}`,
      tag: conversationTag(id),
    });
    // The push service keeps only the newest push of a conversation (RFC 8030 Topic).
    expect(push!.headers.topic).toBe(await pushTopic(conversationTag(id)));
    expect(push!.headers.urgency).toBe("high");
    expect(Number(push!.headers.ttl)).toBeGreaterThan(0);
    // Alice's own message is never pushed to Alice.
    await sleep(DELAY_MS + 300);
    expect(await pushesTo(sub)).toHaveLength(1);
  });

  it("folds five messages in a row into at most two pushes, the second replacing the first", async () => {
    const { alice, id, sub } = await awayPair();
    for (let i = 1; i <= 5; i++) await sent(alice.client, id, `message ${i}`);

    await waitForAttempts(sub, 2);
    await sleep(DELAY_MS + 500);
    const pushes = await pushesTo(sub);
    expect(pushes).toHaveLength(2);
    const [first, second] = pushes.map(plaintextOf);
    expect(first!.tag).toBe(second!.tag);
    expect(second).toMatchObject({
      type: "message",
      body: `${alice.details.username} sent 5 messages`,
      url: `/chat/${id}`,
    });
    // The fold waits for the delay after the first push.
    expect(pushes[1]!.received_at - pushes[0]!.received_at).toBeGreaterThanOrEqual(DELAY_MS - 50);
    expect(pushes[1]!.headers.topic).toBe(pushes[0]!.headers.topic);
  });

  it("shows the message's text on the lock screen only when the member turned previews on", async () => {
    const { alice, bob, id, sub } = await awayPair();
    await settings(bob, { preview: true });
    await sent(alice.client, id, "Dinner at eight?");
    await waitForAttempts(sub, 1);
    expect((await payloads(sub))[0]).toMatchObject({ body: "Dinner at eight?" });
  });

  it("gets nothing for a kind switched off for push, and pushes again once it is on", async () => {
    const { alice, bob, id, sub } = await awayPair();
    await settings(bob, { preferences: { message: { push: false } } });
    await sent(alice.client, id, "one");
    await sleep(DELAY_MS + 500);
    expect(await attemptsAt(sub)).toEqual([]);

    await settings(bob, { preferences: { message: { push: true } } });
    await sent(alice.client, id, "two");
    await waitForAttempts(sub, 1);
    // One push telling of everything still unread.
    expect(await payloads(sub)).toMatchObject([
      { body: `${alice.details.username} sent 2 messages` },
    ]);
  });

  it("gets nothing in quiet hours in their own time zone, and pushes outside them", async () => {
    const { alice, bob, id, sub } = await awayPair();
    // Quiet for the two hours around now in Tokyo (UTC+9, no daylight saving): now is inside,
    // whatever the hour in UTC.
    const tokyo = new Date(Date.now() + 9 * 3_600_000);
    const hh = (h: number) => String((h + 24) % 24).padStart(2, "0");
    const around = {
      start: `${hh(tokyo.getUTCHours() - 1)}:00`,
      end: `${hh(tokyo.getUTCHours() + 1)}:59`,
    };
    await settings(bob, { quiet_hours: { ...around, time_zone: "Asia/Tokyo" } });
    await sent(alice.client, id, "late night");
    await sleep(DELAY_MS + 500);
    expect(await attemptsAt(sub)).toEqual([]);

    // The same hours twelve hours away (New York in winter is UTC−5: 14 hours behind Tokyo) are
    // not now there: the push goes.
    const ny = new Date(Date.now() - 5 * 3_600_000);
    const elsewhere = {
      start: `${hh(ny.getUTCHours() + 3)}:00`,
      end: `${hh(ny.getUTCHours() + 5)}:00`,
      time_zone: "America/New_York",
    };
    await settings(bob, { quiet_hours: elsewhere });
    await sent(alice.client, id, "morning");
    await waitForAttempts(sub, 1);
    expect(await pushesTo(sub)).toHaveLength(1);
  });

  it("gets a push for a like, a match, a gift, and a profile view when turned on", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const sub = await subscribe(bob);

    expect((await like(alice, bob)).status).toBe(201);
    await waitForAttempts(sub, 1);
    expect((await payloads(sub))[0]).toMatchObject({
      type: "like",
      body: `${alice.details.username} liked you`,
      url: `/members/${alice.details.username}`,
      tag: "likes",
    });

    expect((await like(bob, alice)).body.is_match).toBe(true);
    await waitForAttempts(sub, 2);
    expect((await payloads(sub))[1]).toMatchObject({
      type: "match",
      title: "It's a match!",
      body: `You and ${alice.details.username} like each other`,
      tag: `match:${alice.id}`,
    });

    const started = await alice.client.json<{ conversation: { id: string } }>(
      "POST",
      "/chat/conversations",
      { user_id: bob.id },
    );
    const id = started.body.conversation.id;
    await giveCredits(alice.id, 100);
    expect((await send(alice.client, id, "For you", { gift_id: "rose" })).status).toBe(201);
    await waitForAttempts(sub, 3);
    expect((await payloads(sub))[2]).toMatchObject({
      type: "gift",
      body: `${alice.details.username} sent you a gift`,
      url: `/chat/${id}`,
    });

    // Profile views are off for push until the member turns them on (the view is still told of
    // in the next push).
    const carol = await verifiedMember();
    await recordProfileView(env, carol.id, bob.id);
    await sleep(DELAY_MS + 300);
    expect(await pushesTo(sub)).toHaveLength(3);
    await settings(bob, { preferences: { profile_view: { push: true } } });
    const dave = await verifiedMember();
    await recordProfileView(env, dave.id, bob.id);
    await waitForAttempts(sub, 4);
    // The push tells of every view since the member left, the one before the switch too.
    expect((await payloads(sub))[3]).toMatchObject({
      type: "profile_view",
      body: `${dave.details.username} and 1 other viewed your profile`,
      url: "/my/profile",
      tag: "profile_views",
    });
  });

  it("a kind off in the app but on for push is pushed while away, and never shows on the bell", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const sub = await subscribe(bob);
    await settings(bob, { preferences: { like: { in_app: false, push: true } } });
    const bell = async () => {
      const res = await bob.client.json<{ notifications: unknown[]; unread_count: number }>(
        "GET",
        "/notifications",
      );
      return { count: res.body.unread_count, rows: res.body.notifications.length };
    };

    expect((await like(alice, bob)).status).toBe(201);
    await waitForAttempts(sub, 1);
    expect(await payloads(sub)).toMatchObject([
      { type: "like", body: `${alice.details.username} liked you`, tag: "likes" },
    ]);
    expect(await bell()).toEqual({ count: 0, rows: 0 });

    // Here, nothing reaches the page and nothing is pushed; off everywhere, nothing is kept.
    const socket = await memberSocket(bob);
    const carol = await verifiedMember();
    expect((await like(carol, bob)).status).toBe(201);
    await sleep(DELAY_MS + 300);
    expect(socket.frames.filter((f) => f.type === "notification")).toEqual([]);
    socket.close();
    await settings(bob, { preferences: { like: { push: false, email: false } } });
    const dave = await verifiedMember();
    expect((await like(dave, bob)).status).toBe(201);
    await sleep(DELAY_MS + 500);
    expect(await pushesTo(sub)).toHaveLength(1);
    const kept = await env.DB.prepare(
      "SELECT actor_id FROM notifications WHERE user_id = ? AND type = 'like' ORDER BY seq",
    )
      .bind(bob.id)
      .all<{ actor_id: string }>();
    expect(kept.results.map((r) => r.actor_id)).toEqual([alice.id, carol.id]);
    expect(await bell()).toEqual({ count: 0, rows: 0 });
  });

  it("folds likes into one push naming the newest, and forgets a member blocked meanwhile", async () => {
    const bob = await verifiedMember();
    const [alice, carol, dave] = [
      await verifiedMember(),
      await verifiedMember(),
      await verifiedMember(),
    ];
    const sub = await subscribe(bob);
    await like(alice!, bob);
    await waitForAttempts(sub, 1);
    await like(carol!, bob);
    await like(dave!, bob);
    // Dave is blocked before the fold goes: the push neither names nor counts him.
    await block(bob, dave!);
    await waitForAttempts(sub, 2);
    await sleep(DELAY_MS + 300);
    const pushes = await payloads(sub);
    expect(pushes).toHaveLength(2);
    expect(pushes[1]).toMatchObject({
      type: "like",
      title: "New likes",
      body: `${carol!.details.username} and 1 other liked you`,
      url: "/my/likes",
      tag: "likes",
    });
  });
});

describe("a member who is here", () => {
  it("gets no push while a page of theirs is open, and one once they have been away for the delay", async () => {
    const { alice, bob, id, sub } = await awayPair();
    const page = await memberSocket(bob);
    await sent(alice.client, id, "are you there?");
    await page.next((f) => f.type === "conversation" && f.last_message === "are you there?", 3000);
    await sleep(DELAY_MS + 300);
    expect(await attemptsAt(sub)).toEqual([]);

    // The page closes; a message right after waits until the member has been away for the delay.
    page.close();
    const closed = Date.now();
    await sleep(100);
    await sent(alice.client, id, "still there?");
    await waitForAttempts(sub, 1);
    const [push] = await pushesTo(sub);
    expect(push!.received_at - closed).toBeGreaterThanOrEqual(DELAY_MS - 100);
    expect(plaintextOf(push!)).toMatchObject({
      body: `${alice.details.username} sent 2 messages`,
    });
  });

  it("coming back drops what waited to be folded", async () => {
    const { alice, bob, id, sub } = await awayPair();
    await sent(alice.client, id, "one");
    await waitForAttempts(sub, 1);
    await sent(alice.client, id, "two");
    // Bob opens a page before the fold is due: he sees it there, no second push.
    const page = await memberSocket(bob);
    await sleep(DELAY_MS + 500);
    expect(await pushesTo(sub)).toHaveLength(1);
    page.close();
  });
});

describe("subscriptions as the hub holds them", () => {
  it("a push service's 410 removes the subscription; the next push goes to the others only", async () => {
    const { alice, bob, id, sub } = await awayPair();
    const other = await subscribe(bob);
    await pushServiceAnswers(sub, 410);
    await sent(alice.client, id, "first");
    await waitForAttempts(other, 1);
    await waitForAttempts(sub, 1);
    const row = await env.DB.prepare("SELECT 1 AS x FROM push_subscriptions WHERE endpoint = ?1")
      .bind(sub.endpoint)
      .first();
    expect(row).toBeNull();

    await sleep(DELAY_MS + 200);
    await sent(alice.client, id, "second");
    await waitForAttempts(other, 2);
    expect(await attemptsAt(sub)).toHaveLength(1);
  });

  it("signing out ends the subscription this browser made in that session: no more pushes", async () => {
    const { alice, bob, id, sub } = await awayPair();
    await sent(alice.client, id, "one");
    await waitForAttempts(sub, 1);
    // Bob also signed in on a second browser, subscribed there; only the first one signs out.
    const { client: elsewhere } = await signInAs(bob.details.email, bob.details.password);
    const other = await subscribeBrowser();
    expect(
      (
        await elsewhere.json("POST", "/my/push/subscriptions", {
          endpoint: other.endpoint,
          keys: other.keys,
        })
      ).status,
    ).toBe(201);

    expect((await bob.client.json("POST", "/logout")).status).toBe(204);
    const rows = await env.DB.prepare("SELECT endpoint FROM push_subscriptions WHERE user_id = ?1")
      .bind(bob.id)
      .all<{ endpoint: string }>();
    expect(rows.results.map((r) => r.endpoint)).toEqual([other.endpoint]);

    await sleep(DELAY_MS + 200);
    await sent(alice.client, id, "two");
    await waitForAttempts(other, 1);
    await sleep(300);
    // The browser signed out of gets nothing more; the one still signed in does.
    expect(await attemptsAt(sub)).toHaveLength(1);
    expect(await payloads(other)).toMatchObject([
      { body: `${alice.details.username} sent 2 messages` },
    ]);
  });

  it("a push its service failed (503) is tried again and arrives once", async () => {
    const { alice, id, sub } = await awayPair();
    await pushServiceAnswers(sub, 503, 1);
    await sent(alice.client, id, "are you there?");
    const attempts = await waitForAttempts(sub, 2);
    expect(attempts.map((a) => a.status)).toEqual([503, 201]);
    expect(await payloads(sub)).toMatchObject([
      { body: `${alice.details.username} sent you a message` },
    ]);
    await sleep(DELAY_MS + 300);
    expect(await attemptsAt(sub)).toHaveLength(2);
  });

  it("a browser that another member signs up for stops getting the first member's pushes", async () => {
    const { alice, id, sub } = await awayPair();
    await sent(alice.client, id, "for bob");
    await waitForAttempts(sub, 1);
    // The same browser profile, now subscribed by Carol.
    const carol = await verifiedMember();
    const res = await carol.client.json("POST", "/my/push/subscriptions", {
      endpoint: sub.endpoint,
      keys: sub.keys,
    });
    expect(res.status).toBe(201);
    await sleep(DELAY_MS + 200);
    await sent(alice.client, id, "still for bob");
    await sleep(DELAY_MS + 500);
    expect(await pushesTo(sub)).toHaveLength(1);
  });

  it("decides and sends from what the hub holds: a hub that has pushed once reads no subscription again", async () => {
    const { alice, bob, id, sub } = await awayPair();
    await sent(alice.client, id, "one");
    await waitForAttempts(sub, 1);
    const hub = env.MEMBER_HUB.get(env.MEMBER_HUB.idFromName(bob.id));
    const held = await runInDurableObject(hub, async (_instance: MemberHub, state) =>
      state.storage.get<{ subscriptions: { endpoint: string }[] }>("away:context"),
    );
    expect(held?.subscriptions.map((s) => s.endpoint)).toEqual([sub.endpoint]);
    // Changing a setting drops the copy; the next push reads it again.
    await settings(bob, { preview: true });
    const dropped = await runInDurableObject(hub, async (_instance: MemberHub, state) =>
      state.storage.get("away:context"),
    );
    expect(dropped).toBeUndefined();
  });
});

describe("blocks", () => {
  it("a conversation's pending fold goes when either member blocks the other", async () => {
    const { alice, bob, id, sub } = await awayPair();
    await sent(alice.client, id, "one");
    await waitForAttempts(sub, 1);
    await sent(alice.client, id, "two");
    await block(alice, bob);
    await sleep(DELAY_MS + 500);
    expect(await pushesTo(sub)).toHaveLength(1);
  });
});
