import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FREE_DAILY_LIKES, secondsUntilUtcMidnight } from "~/server/likes.server";
import { registerMember, verifiedMember } from "../helpers/members";
import { search, seedMember, setUser } from "./fixtures";

type Member = Awaited<ReturnType<typeof verifiedMember>>;
type Card = { id: string; liked_at?: string; matched_at?: string };
interface LikesBody {
  received?: Card[];
  sent?: Card[];
  matches?: Card[];
  meta: Record<string, { page: number; per_page: number; total: number; has_more: boolean }>;
}

const like = (m: Member, userId: string) =>
  m.client.json<{ liked: boolean; is_match: boolean; message?: string }>("POST", "/my/likes", {
    user_id: userId,
  });
const unlike = (m: Member, userId: string) => m.client.json("DELETE", `/my/likes/${userId}`);
const lists = async (m: Member, query = "") => {
  const res = await m.client.json<LikesBody>("GET", `/my/likes${query}`);
  expect(res.status).toBe(200);
  return res.body;
};
const ids = (cards: Card[] | undefined) => (cards ?? []).map((c) => c.id);

async function likeRows(likerId: string) {
  const { results } = await env.DB.prepare("SELECT liked_id FROM likes WHERE liker_id = ?1")
    .bind(likerId)
    .all<{ liked_id: string }>();
  return results.map((r) => r.liked_id);
}

async function notificationsOf(userId: string) {
  const { results } = await env.DB.prepare(
    "SELECT type, actor_id, data FROM notifications WHERE user_id = ?1 ORDER BY seq",
  )
    .bind(userId)
    .all<{ type: string; actor_id: string; data: string }>();
  return results.map((r) => ({ ...r, data: JSON.parse(r.data) as { user?: { id: string } } }));
}

describe("likes and matches", () => {
  it("likes idempotently, and a like back is a match", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();

    expect(await like(alice, bob.id)).toMatchObject({
      status: 201,
      body: { liked: true, is_match: false },
    });
    // Liking twice is harmless: one row, one notification, one use of the day's likes.
    expect(await like(alice, bob.id)).toMatchObject({
      status: 201,
      body: { liked: true, is_match: false },
    });
    expect(await likeRows(alice.id)).toEqual([bob.id]);
    const quota = await env.DB.prepare("SELECT count FROM like_quota WHERE user_id = ?1")
      .bind(alice.id)
      .first<{ count: number }>();
    expect(quota?.count).toBe(1);
    const bobHeard = await notificationsOf(bob.id);
    expect(bobHeard).toHaveLength(1);
    expect(bobHeard[0]).toMatchObject({ type: "like", actor_id: alice.id });
    expect(bobHeard[0]!.data.user?.id).toBe(alice.id);

    expect((await lists(alice)).sent?.map((c) => c.id)).toEqual([bob.id]);
    const bobLists = await lists(bob);
    expect(ids(bobLists.received)).toEqual([alice.id]);
    expect(bobLists.received![0]!.liked_at).toMatch(/Z$/);

    // Bob likes back: a match, both are told, and it moves to both members' matches.
    expect(await like(bob, alice.id)).toMatchObject({
      status: 201,
      body: { liked: true, is_match: true },
    });
    expect((await notificationsOf(alice.id)).map((n) => n.type)).toEqual(["match"]);
    expect((await notificationsOf(bob.id)).map((n) => n.type)).toEqual(["like", "match"]);
    for (const [me, other] of [
      [alice, bob],
      [bob, alice],
    ] as const) {
      const body = await lists(me);
      expect(ids(body.matches)).toEqual([other.id]);
      expect(body.matches![0]!.matched_at).toMatch(/Z$/);
      expect(ids(body.received)).toEqual([]);
      expect(ids(body.sent)).toEqual([]);
      expect(body.meta.matches).toMatchObject({ page: 1, total: 1, has_more: false });
    }
    // Liking again after the match still says so.
    expect((await like(alice, bob.id)).body).toEqual({ liked: true, is_match: true });

    // The history records it.
    const activity = await env.DB.prepare(
      "SELECT type FROM activities WHERE user_id = ?1 ORDER BY seq",
    )
      .bind(bob.id)
      .all<{ type: string }>();
    expect(activity.results.map((r) => r.type)).toEqual(["like_received", "like_sent", "match"]);

    // Unliking takes my like back, and the match with it; unliking twice is harmless.
    expect((await unlike(alice, bob.id)).status).toBe(204);
    expect((await unlike(alice, bob.id)).status).toBe(204);
    expect(ids((await lists(alice)).received)).toEqual([bob.id]);
    expect(ids((await lists(bob)).sent)).toEqual([alice.id]);
    expect(ids((await lists(bob)).matches)).toEqual([]);
  });

  it("marks liked members in search results", async () => {
    const me = await verifiedMember();
    const word = `likeword${Math.random().toString(36).slice(2, 8)}`;
    const member = await seedMember({ bio: word });
    await like(me, member.id);
    const res = await search(me.client, { keywords: word });
    expect(res.body.results).toMatchObject([{ id: member.id, liked: true }]);
    await unlike(me, member.id);
    expect((await search(me.client, { keywords: word })).body.results[0]!.liked).toBe(false);
  });

  it("refuses myself (422) and members hidden from me (404)", async () => {
    const me = await verifiedMember();
    expect(await like(me, me.id)).toMatchObject({
      status: 422,
      body: { errors: { user_id: ["You cannot like yourself."] } },
    });
    expect((await like(me, "nobody")).status).toBe(404);
    const unverified = await registerMember();
    expect((await like(me, unverified.id)).status).toBe(404);
    const suspended = await seedMember();
    await setUser(suspended.id, { status: "suspended" });
    expect((await like(me, suspended.id)).status).toBe(404);
    const iBlocked = await verifiedMember();
    const blockedMe = await verifiedMember();
    await me.client.json("POST", "/my/block", { user_id: iBlocked.id, reason_type: "spam" });
    await blockedMe.client.json("POST", "/my/block", { user_id: me.id, reason_type: "spam" });
    expect((await like(me, iBlocked.id)).status).toBe(404);
    expect((await like(me, blockedMe.id)).status).toBe(404);
    expect(await likeRows(me.id)).toEqual([]);
    expect((await like(me, "")).status).toBe(422);
  });

  it("hides members blocked after liking from the lists", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    await like(me, other.id);
    await like(other, me.id);
    expect(ids((await lists(me)).matches)).toEqual([other.id]);
    await other.client.json("POST", "/my/block", { user_id: me.id, reason_type: "other" });
    expect(ids((await lists(me)).matches)).toEqual([]);
    expect(ids((await lists(other)).matches)).toEqual([]);
  });

  it("needs a verified email", async () => {
    const unverified = await registerMember();
    const other = await verifiedMember();
    expect((await unverified.client.json("POST", "/my/likes", { user_id: other.id })).status).toBe(
      403,
    );
    expect((await unverified.client.json("GET", "/my/likes")).status).toBe(403);
  });

  it("limits free members to the daily number of likes, with Retry-After until midnight UTC", async () => {
    const me = await verifiedMember();
    const targets = [];
    for (let i = 0; i < 4; i++) targets.push(await seedMember());
    for (const t of targets.slice(0, 2)) expect((await like(me, t.id)).status).toBe(201);
    // The day's likes up to the last one, without sending each of them through the API.
    await env.DB.prepare("UPDATE like_quota SET count = ?1 WHERE user_id = ?2")
      .bind(FREE_DAILY_LIKES - 1, me.id)
      .run();
    expect((await like(me, targets[2]!.id)).status).toBe(201);
    const refused = await like(me, targets[3]!.id);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe("You have reached your daily like limit.");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    const expected = secondsUntilUtcMidnight(Date.now());
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - expected)).toBeLessThanOrEqual(5);
    expect(await likeRows(me.id)).toHaveLength(3);

    // Liking someone already liked is still harmless; unliking does not give a like back.
    expect((await like(me, targets[0]!.id)).status).toBe(201);
    expect((await unlike(me, targets[0]!.id)).status).toBe(204);
    expect((await like(me, targets[0]!.id)).status).toBe(429);

    // Yesterday's count does not count today.
    await env.DB.prepare("UPDATE like_quota SET day = '2000-01-01' WHERE user_id = ?1")
      .bind(me.id)
      .run();
    expect((await like(me, targets[0]!.id)).status).toBe(201);
    const days = await env.DB.prepare("SELECT day FROM like_quota WHERE user_id = ?1")
      .bind(me.id)
      .all<{ day: string }>();
    expect(days.results.map((r) => r.day)).toEqual([new Date().toISOString().slice(0, 10)]);
  });

  it("pages each list", async () => {
    const me = await verifiedMember();
    const likers = [];
    for (let i = 0; i < 5; i++) likers.push(await verifiedMember());
    for (const l of likers) await like(l, me.id);
    const first = await lists(me, "?list=received&per_page=2");
    expect(Object.keys(first).sort()).toEqual(["meta", "received"]);
    expect(first.meta.received).toEqual({ page: 1, per_page: 2, total: 5, has_more: true });
    const third = await lists(me, "?list=received&per_page=2&page=3");
    expect(third.meta.received).toMatchObject({ page: 3, has_more: false });
    expect(ids(third.received)).toEqual([likers[0]!.id]);
  });

  it("answers GET /my/matches and GET /dashboard as JSON", async () => {
    const me = await verifiedMember();
    const fan = await verifiedMember();
    const match = await verifiedMember();
    await like(fan, me.id);
    await like(match, me.id);
    await like(me, match.id);
    const matches = await me.client.json<{ matches: Card[] }>("GET", "/my/matches");
    expect(ids(matches.body.matches)).toEqual([match.id]);
    const dashboard = await me.client.json<{
      new_likes: { members: Card[]; total: number };
      new_matches: { members: Card[]; total: number };
      unread_conversations: unknown[];
      profile_views: number;
    }>("GET", "/dashboard");
    expect(dashboard.status).toBe(200);
    expect(ids(dashboard.body.new_likes.members)).toEqual([fan.id]);
    expect(dashboard.body.new_likes.total).toBe(1);
    expect(ids(dashboard.body.new_matches.members)).toEqual([match.id]);
    expect(dashboard.body.unread_conversations).toEqual([]);
    expect(dashboard.body.profile_views).toBe(0);
  });
});
