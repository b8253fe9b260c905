/**
 * The lived-in demo account (scripts/lib/seed-demo-life.ts), run against the real D1 through the
 * app's own like and view rules: the demo gets likes waiting for an answer, matches, likes it gave
 * and profile views, with the notifications and activities they make, dated over the last days;
 * some likes carry a comment, on one of the demo's prompt answers or its photo; running it again
 * adds nothing.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { promptText } from "~/schemas/prompt-catalog";
import type { Env } from "~/server/env.server";
import { DEMO_PROFILE } from "../../scripts/lib/roster";
import {
  ADMIRER_WORDS,
  DEMO_LIFE_MEMBERS,
  MATCH_WORDS,
  planDemoLife,
  seedDemoLife,
} from "../../scripts/lib/seed-demo-life";
import { verifiedMember } from "../helpers/members";
import { memberWithProfile } from "../profile/fixtures";

const DAY = 86_400_000;

type Target =
  | { photo_id: string; photo_url: string }
  | { prompt_id: string; text: string; answer: string }
  | null;
interface Card {
  id: string;
  comment?: string | null;
  target?: Target;
}

/** A demo account as the seed makes it: the demo profile's prompt answers, and photos. */
async function demoAccount() {
  const demo = await memberWithProfile({ prompts: DEMO_PROFILE.prompts }, { photos: 2 });
  const res = await demo.client.json<{ profile: { photos: { id: string }[] } }>(
    "GET",
    "/my/profile",
  );
  return { ...demo, photoIds: res.body.profile.photos.map((p) => p.id) };
}

/** Every like to or from a member, with what it says, in a fixed order. */
async function likesOf(id: string) {
  const { results } = await env.DB.prepare(
    `SELECT liker_id, liked_id, created_at, comment, target_photo_id, target_prompt_id FROM likes
     WHERE liker_id = ?1 OR liked_id = ?1 ORDER BY liker_id, liked_id`,
  )
    .bind(id)
    .all();
  return results;
}

async function likeRow(likerId: string, likedId: string) {
  return env.DB.prepare(
    `SELECT comment, target_photo_id, target_prompt_id FROM likes
     WHERE liker_id = ?1 AND liked_id = ?2`,
  )
    .bind(likerId, likedId)
    .first<{
      comment: string | null;
      target_photo_id: string | null;
      target_prompt_id: string | null;
    }>();
}

const answerOf = (promptId: string) =>
  DEMO_PROFILE.prompts!.find((p) => p.prompt_id === promptId)!.answer;

describe("the demo account's life", () => {
  it("plans who likes, matches, is liked and views, from a fixed order of members", () => {
    const ids = Array.from({ length: DEMO_LIFE_MEMBERS }, (_, i) => `m${i}`);
    const plan = planDemoLife(ids);
    expect(plan.admirers.map((a) => a.id)).toEqual(["m0", "m1", "m2", "m3", "m4", "m5"]);
    expect(plan.matches.map((m) => m.id)).toEqual(["m6", "m7", "m8", "m9"]);
    expect(plan.liked.map((l) => l.id)).toEqual(["m10", "m11", "m12"]);
    expect(plan.viewers.map((v) => v.id)).toEqual([
      "m0",
      "m1",
      "m2",
      "m6",
      "m13",
      "m14",
      "m15",
      "m16",
    ]);
    // Nobody is both an admirer and a match, or liked by the demo without answering.
    const groups = [plan.admirers, plan.matches, plan.liked].map((g) => g.map((e) => e.id));
    expect(new Set(groups.flat()).size).toBe(groups.flat().length);
    // The first admirers and the first matches say something; the others like without a word.
    expect(plan.admirers.map((a) => a.words)).toEqual([
      ...ADMIRER_WORDS,
      undefined,
      undefined,
      undefined,
    ]);
    expect(plan.matches.map((m) => m.words)).toEqual([...MATCH_WORDS, undefined, undefined]);
    expect(plan.admirers[0]!.words?.on).toEqual({ prompt_id: expect.any(String) });
    expect(plan.admirers[1]!.words?.on).toEqual({ photo_position: 0 });
    expect(plan.admirers[2]!.words?.on).toBeUndefined();
    // Fewer members, a smaller plan.
    expect(planDemoLife(ids.slice(0, 8))).toMatchObject({ liked: [], matches: [{}, {}] });
  });

  it(
    "seeds likes, matches, views, notifications and activities once, dated in the past",
    {
      timeout: 90_000,
    },
    async () => {
      const demo = await demoAccount();
      const members = await Promise.all(
        Array.from({ length: DEMO_LIFE_MEMBERS }, () => verifiedMember()),
      );
      const plan = planDemoLife(members.map((m) => m.id));
      const now = Date.now();

      const first = await seedDemoLife(env as unknown as Env, demo.id, plan, now);
      expect(first).toEqual({
        likesReceived: 10,
        matches: 4,
        likesGiven: 3,
        views: 8,
        comments: 5,
      });

      const likes = await demo.client.json<{
        received: Card[];
        sent: Card[];
        matches: Card[];
      }>("GET", "/my/likes");
      expect(likes.status).toBe(200);
      expect(new Set(likes.body.matches.map((m) => m.id))).toEqual(
        new Set(plan.matches.map((m) => m.id)),
      );
      expect(new Set(likes.body.received.map((m) => m.id))).toEqual(
        new Set(plan.admirers.map((m) => m.id)),
      );
      expect(new Set(likes.body.sent.map((m) => m.id))).toEqual(
        new Set(plan.liked.map((m) => m.id)),
      );

      // What the likes waiting for an answer say: on a prompt the demo answered, on its first
      // photo, a comment alone, then nothing.
      const received = new Map(likes.body.received.map((c) => [c.id, c]));
      const [onPrompt, onPhoto, commentOnly, ...plain] = plan.admirers.map((a) =>
        received.get(a.id)!,
      );
      const promptId = (ADMIRER_WORDS[0]!.on as { prompt_id: string }).prompt_id;
      expect(onPrompt).toMatchObject({
        comment: ADMIRER_WORDS[0]!.comment,
        target: { prompt_id: promptId, text: promptText(promptId), answer: answerOf(promptId) },
      });
      expect(onPhoto).toMatchObject({
        comment: ADMIRER_WORDS[1]!.comment,
        target: { photo_id: demo.photoIds[0] },
      });
      expect(commentOnly).toMatchObject({ comment: ADMIRER_WORDS[2]!.comment, target: null });
      expect(plain).toHaveLength(3);
      for (const card of plain) expect(card).toMatchObject({ comment: null, target: null });

      // The first matches' likes said something too, and the demo heard it with the match.
      const matchPrompt = (MATCH_WORDS[0]!.on as { prompt_id: string }).prompt_id;
      expect(await likeRow(plan.matches[0]!.id, demo.id)).toEqual({
        comment: MATCH_WORDS[0]!.comment,
        target_photo_id: null,
        target_prompt_id: matchPrompt,
      });
      expect(await likeRow(plan.matches[1]!.id, demo.id)).toEqual({
        comment: MATCH_WORDS[1]!.comment,
        target_photo_id: null,
        target_prompt_id: null,
      });
      for (const m of plan.matches.slice(2)) {
        expect(await likeRow(m.id, demo.id)).toMatchObject({ comment: null });
      }
      const said = await env.DB.prepare(
        `SELECT type, actor_id, json_extract(data, '$.comment') AS comment FROM notifications
         WHERE user_id = ?1 AND json_extract(data, '$.comment') IS NOT NULL`,
      )
        .bind(demo.id)
        .all<{ type: string; actor_id: string; comment: string }>();
      expect(new Set(said.results.map((n) => `${n.type} ${n.actor_id} ${n.comment}`))).toEqual(
        new Set([
          ...ADMIRER_WORDS.map((w, i) => `like ${plan.admirers[i]!.id} ${w.comment}`),
          // A match's like was a like first, then the demo liked back.
          ...MATCH_WORDS.map((w, i) => `like ${plan.matches[i]!.id} ${w.comment}`),
          ...MATCH_WORDS.map((w, i) => `match ${plan.matches[i]!.id} ${w.comment}`),
        ]),
      );

      const viewers = await demo.client.json<{ total_count: number }>("GET", "/my/profile-viewers");
      expect(viewers.body.total_count).toBe(8);

      // What the app's rules made: a notification per like, match and first view of a day, dated
      // when each happened, newest first.
      const notes = await demo.client.json<{
        notifications: { type: string; created_at: string }[];
      }>("GET", "/notifications?per_page=50");
      const types = notes.body.notifications.map((n) => n.type);
      expect(types.filter((t) => t === "like")).toHaveLength(10);
      expect(types.filter((t) => t === "match")).toHaveLength(4);
      expect(types.filter((t) => t === "profile_view")).toHaveLength(8);
      const times = notes.body.notifications.map((n) => Date.parse(n.created_at));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect(Math.min(...times)).toBeLessThan(now - 3 * DAY);
      expect(Math.max(...times)).toBeLessThan(now);
      const activities = await env.DB.prepare(
        "SELECT type, created_at FROM activities WHERE user_id = ?1",
      )
        .bind(demo.id)
        .all<{ type: string; created_at: string }>();
      expect(activities.results.filter((a) => a.type === "match")).toHaveLength(4);
      expect(activities.results.filter((a) => a.type === "like_received")).toHaveLength(10);
      expect(activities.results.filter((a) => a.type === "like_sent")).toHaveLength(7);
      expect(activities.results.every((a) => Date.parse(a.created_at) < now)).toBe(true);

      // Again: nothing new.
      const counts = async () =>
        env.DB.prepare(
          `SELECT (SELECT count(*) FROM likes WHERE liker_id = ?1 OR liked_id = ?1) AS likes,
                (SELECT count(*) FROM profile_views WHERE viewed_id = ?1) AS views,
                (SELECT count(*) FROM notifications WHERE user_id = ?1) AS notes,
                (SELECT count(*) FROM activities WHERE user_id = ?1) AS acts`,
        )
          .bind(demo.id)
          .first();
      const before = await counts();
      const likesBefore = await likesOf(demo.id);
      const again = await seedDemoLife(env as unknown as Env, demo.id, plan, now + DAY);
      expect(again).toEqual({ likesReceived: 0, matches: 0, likesGiven: 0, views: 0, comments: 0 });
      expect(await counts()).toEqual(before);
      expect(await likesOf(demo.id)).toEqual(likesBefore);
    },
  );

  it(
    "gives a like an earlier seed left without a word its comment, once, and tells nobody again",
    { timeout: 30_000 },
    async () => {
      const demo = await demoAccount();
      const admirer = await verifiedMember();
      const plan = planDemoLife([admirer.id]);
      const sent = await admirer.client.json("POST", "/my/likes", { user_id: demo.id });
      expect(sent.status).toBe(201);
      const likeNotes = async () =>
        (
          await env.DB.prepare(
            "SELECT count(*) AS n FROM notifications WHERE user_id = ?1 AND type = 'like'",
          )
            .bind(demo.id)
            .first<{ n: number }>()
        )?.n;
      const notesBefore = await likeNotes();

      const first = await seedDemoLife(env as unknown as Env, demo.id, plan);
      expect(first).toMatchObject({ likesReceived: 0, comments: 1, views: 1 });
      const promptId = (ADMIRER_WORDS[0]!.on as { prompt_id: string }).prompt_id;
      expect(await likeRow(admirer.id, demo.id)).toEqual({
        comment: ADMIRER_WORDS[0]!.comment,
        target_photo_id: null,
        target_prompt_id: promptId,
      });
      expect(await likeNotes()).toBe(notesBefore);

      const again = await seedDemoLife(env as unknown as Env, demo.id, plan);
      expect(again).toMatchObject({ likesReceived: 0, comments: 0, views: 0 });
    },
  );

  it(
    "keeps a comment but drops a target the demo account does not have",
    { timeout: 30_000 },
    async () => {
      const demo = await verifiedMember();
      const members = await Promise.all([verifiedMember(), verifiedMember()]);
      const plan = planDemoLife(members.map((m) => m.id));
      const result = await seedDemoLife(env as unknown as Env, demo.id, plan);
      expect(result).toMatchObject({ likesReceived: 2, comments: 2 });
      for (const [i, m] of members.entries()) {
        expect(await likeRow(m.id, demo.id)).toEqual({
          comment: ADMIRER_WORDS[i]!.comment,
          target_photo_id: null,
          target_prompt_id: null,
        });
      }
    },
  );
});
