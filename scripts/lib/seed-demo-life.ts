/**
 * A lived-in demo account: members who liked it and wait for an answer, matches (they liked
 * first, the demo liked back), likes it gave that are not answered yet, and members who viewed
 * its profile, spread over the last few days.
 *
 * Every like and view goes through the app's own rules (likes.server.ts, profile-views.server.ts),
 * so the likes, matches, activities and notifications are the ones a member would have made. The
 * rows they create are then dated to when the event happened (the app stamps them "now"), and the
 * events run oldest first so that each member's notifications and activities keep their order.
 *
 * Safe to run again: a like that exists changes nothing, and a member who viewed the demo
 * profile before is not counted again. (Conversations with messages are seeded with the chat.)
 */
import type { Env } from "~/server/env.server";
import { likeMember } from "~/server/likes.server";
import { recordProfileView } from "~/server/profile-views.server";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long ago each kind of event happened, one entry per member (the plan's sizes). */
const ADMIRERS_AGO = [25 * MINUTE, 3 * HOUR, 9 * HOUR, DAY + 2 * HOUR, 2 * DAY + 5 * HOUR, 4 * DAY];
const MATCHES_AGO = [50 * MINUTE, 6 * HOUR, DAY + 8 * HOUR, 3 * DAY];
const LIKED_AGO = [2 * HOUR, DAY, 5 * DAY];
const OTHER_VIEWERS_AGO = [8 * MINUTE, 2 * HOUR, 20 * HOUR, 2 * DAY + 3 * HOUR];
/** A match: they liked the demo this long before the demo liked them back. */
const LIKED_BACK_AFTER = 2 * HOUR;
/** An admirer who viewed the profile did so this long before liking it. */
const VIEWED_BEFORE_LIKE = 10 * MINUTE;

export interface DemoEvent {
  id: string;
  /** Milliseconds before the seed runs. */
  ago: number;
}

export interface DemoLifePlan {
  /** Liked the demo account; waiting for an answer. */
  admirers: DemoEvent[];
  /** Liked the demo account, which liked them back (`ago`: the match). */
  matches: DemoEvent[];
  /** The demo account liked them; no answer yet. */
  liked: DemoEvent[];
  /** Viewed the demo account's profile. */
  viewers: DemoEvent[];
}

/** The members needed for a full plan. */
export const DEMO_LIFE_MEMBERS =
  ADMIRERS_AGO.length + MATCHES_AGO.length + LIKED_AGO.length + OTHER_VIEWERS_AGO.length;

/**
 * Who does what, from member ids in a fixed order (the seed's): the first ones like the demo
 * account, the next match it, the next are liked by it, the last only view it. The first three
 * admirers and the newest match viewed the profile too. Fewer members give a smaller plan.
 */
export function planDemoLife(memberIds: readonly string[]): DemoLifePlan {
  let next = 0;
  const take = (agos: number[]) =>
    agos.flatMap((ago) => {
      const id = memberIds[next++];
      return id ? [{ id, ago }] : [];
    });
  const admirers = take(ADMIRERS_AGO);
  const matches = take(MATCHES_AGO);
  const liked = take(LIKED_AGO);
  const viewers = [
    ...admirers.slice(0, 3).map((a) => ({ id: a.id, ago: a.ago + VIEWED_BEFORE_LIKE })),
    ...matches.slice(0, 1).map((m) => ({ id: m.id, ago: m.ago + LIKED_BACK_AFTER + HOUR })),
    ...take(OTHER_VIEWERS_AGO),
  ];
  return { admirers, matches, liked, viewers };
}

export interface DemoLifeResult {
  likesReceived: number;
  likesGiven: number;
  matches: number;
  views: number;
}

type Step = { at: number; run: () => Promise<void> };

/** Runs the plan for `demoId`; says what it added (nothing, on a rerun). */
export async function seedDemoLife(
  env: Env,
  demoId: string,
  plan: DemoLifePlan,
  now = Date.now(),
): Promise<DemoLifeResult> {
  const result: DemoLifeResult = { likesReceived: 0, likesGiven: 0, matches: 0, views: 0 };
  const viewedBefore = new Set(
    (
      await env.DB.prepare(
        "SELECT DISTINCT viewer_id AS id FROM profile_views WHERE viewed_id = ?1",
      )
        .bind(demoId)
        .all<{ id: string }>()
    ).results.map((r) => r.id),
  );

  const like = (liker: string, liked: string, at: number, counted: () => void): Step => ({
    at,
    run: async () => {
      const exists = await env.DB.prepare(
        "SELECT 1 AS x FROM likes WHERE liker_id = ?1 AND liked_id = ?2",
      )
        .bind(liker, liked)
        .first();
      if (exists) return;
      const started = new Date().toISOString();
      await likeMember(env, liker, liked, at);
      await backdate(env, [liker, liked], started, at);
      counted();
    },
  });

  const steps: Step[] = [
    ...plan.admirers.map((a) => like(a.id, demoId, now - a.ago, () => result.likesReceived++)),
    ...plan.matches.flatMap((m) => [
      like(m.id, demoId, now - m.ago - LIKED_BACK_AFTER, () => result.likesReceived++),
      like(demoId, m.id, now - m.ago, () => result.matches++),
    ]),
    ...plan.liked.map((l) => like(demoId, l.id, now - l.ago, () => result.likesGiven++)),
    ...plan.viewers
      .filter((v) => !viewedBefore.has(v.id))
      .map((v) => ({
        at: now - v.ago,
        run: async () => {
          const started = new Date().toISOString();
          await recordProfileView(env, v.id, demoId, now - v.ago);
          await backdate(env, [v.id, demoId], started, now - v.ago);
          result.views++;
        },
      })),
  ];
  // Oldest first: notifications and activities are numbered in the order they are stored.
  steps.sort((a, b) => a.at - b.at);
  for (const step of steps) await step.run();
  return result;
}

/**
 * Dates the notifications and activities that one event between two members just created (stamped
 * at or after `since`) to when the event happened.
 */
async function backdate(env: Env, [a, b]: [string, string], since: string, at: number) {
  const when = new Date(at).toISOString();
  await env.DB.batch([
    env.DB.prepare(
      `UPDATE notifications SET created_at = ?1
       WHERE user_id IN (?2, ?3) AND actor_id IN (?2, ?3) AND created_at >= ?4`,
    ).bind(when, a, b, since),
    env.DB.prepare(
      `UPDATE activities SET created_at = ?1
       WHERE user_id IN (?2, ?3) AND other_user_id IN (?2, ?3) AND created_at >= ?4`,
    ).bind(when, a, b, since),
  ]);
}
