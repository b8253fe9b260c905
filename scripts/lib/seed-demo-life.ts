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
 * Some likes say something (ADMIRER_WORDS, MATCH_WORDS): a comment written for the demo profile
 * (scripts/lib/roster.ts DEMO_PROFILE), landing on one of its prompt answers or its first photo when
 * the demo account has them in the database.
 *
 * Safe to run again: a like that exists changes nothing, unless it lacks the comment or target
 * planned for it (a like seeded before likes had comments): it then gets them, as a member who
 * likes again with a comment would, with no new notification. A member who viewed the demo profile
 * before is not counted again. (Conversations with messages are seeded with the chat.)
 */
import type { LikeTargetInput } from "~/schemas/like-comment";
import type { Env } from "~/server/env.server";
import { likeMember, type LikeWords } from "~/server/likes.server";
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

/**
 * What a like of the demo account carries: a comment, and what it lands on: one of the demo's
 * prompt answers or its photo at a position (0: the main one). A target the demo account does not
 * have is left out; the comment stays.
 */
export interface DemoLikeWords {
  comment: string;
  on?: { prompt_id: string } | { photo_position: number };
}

/** The words of the first admirers' likes, in order; the others like without a word. */
export const ADMIRER_WORDS: readonly DemoLikeWords[] = [
  {
    comment:
      "Broadway Market and then the pottery studio is pretty much my dream Saturday. Is the leaning mug a signature style at this point?",
    on: { prompt_id: "weekend-plan" },
  },
  {
    comment:
      "Great photo! You look like someone who knows exactly where the best flat white in London is.",
    on: { photo_position: 0 },
  },
  {
    comment:
      "A potter with a wonky-mug collection? I need to see it. Mine would be a collection of one very sad bowl.",
  },
];

/** The words of the first matches' likes (theirs, which came first), in order. */
export const MATCH_WORDS: readonly DemoLikeWords[] = [
  {
    comment:
      "The ashtray question made me laugh out loud, which feels fitting. I'd love to see the bowl in question.",
    on: { prompt_id: "last-laugh" },
  },
  {
    comment: "Market mornings and long walks that end with a view: you had me at flat white.",
  },
];

export interface DemoEvent {
  id: string;
  /** Milliseconds before the seed runs. */
  ago: number;
  /** What their like of the demo account says, if anything. */
  words?: DemoLikeWords;
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
 * admirers and the newest match viewed the profile too; the first admirers and matches say
 * something with their like (ADMIRER_WORDS, MATCH_WORDS). Fewer members give a smaller plan.
 */
export function planDemoLife(memberIds: readonly string[]): DemoLifePlan {
  let next = 0;
  const take = (agos: number[], words: readonly DemoLikeWords[] = []): DemoEvent[] =>
    agos.flatMap((ago, i) => {
      const id = memberIds[next++];
      return id ? [words[i] ? { id, ago, words: words[i] } : { id, ago }] : [];
    });
  const admirers = take(ADMIRERS_AGO, ADMIRER_WORDS);
  const matches = take(MATCHES_AGO, MATCH_WORDS);
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
  /** Likes of the demo account given their comment: new ones, or ones an earlier seed left without. */
  comments: number;
}

type Step = { at: number; run: () => Promise<void> };

/** Runs the plan for `demoId`; says what it added (nothing, on a rerun). */
export async function seedDemoLife(
  env: Env,
  demoId: string,
  plan: DemoLifePlan,
  now = Date.now(),
): Promise<DemoLifeResult> {
  const result: DemoLifeResult = {
    likesReceived: 0,
    likesGiven: 0,
    matches: 0,
    views: 0,
    comments: 0,
  };
  const wordsOf = await demoTargets(env, demoId);
  const viewedBefore = new Set(
    (
      await env.DB.prepare(
        "SELECT DISTINCT viewer_id AS id FROM profile_views WHERE viewed_id = ?1",
      )
        .bind(demoId)
        .all<{ id: string }>()
    ).results.map((r) => r.id),
  );

  const like = (
    liker: string,
    liked: string,
    at: number,
    counted: () => void,
    planned?: DemoLikeWords,
  ): Step => ({
    at,
    run: async () => {
      const words = planned ? wordsOf(planned) : undefined;
      const stored = await env.DB.prepare(
        `SELECT comment, target_photo_id AS photo, target_prompt_id AS prompt FROM likes
         WHERE liker_id = ?1 AND liked_id = ?2`,
      )
        .bind(liker, liked)
        .first<{ comment: string | null; photo: string | null; prompt: string | null }>();
      if (stored) {
        // A like an earlier seed left without its planned words gets them (a rerun: no change).
        if (words && !sameWords(stored, words)) {
          await likeMember(env, liker, liked, at, words);
          result.comments++;
        }
        return;
      }
      const started = new Date().toISOString();
      await likeMember(env, liker, liked, at, words);
      await backdate(env, [liker, liked], started, at);
      counted();
      if (words) result.comments++;
    },
  });

  const steps: Step[] = [
    ...plan.admirers.map((a) =>
      like(a.id, demoId, now - a.ago, () => result.likesReceived++, a.words),
    ),
    ...plan.matches.flatMap((m) => [
      like(m.id, demoId, now - m.ago - LIKED_BACK_AFTER, () => result.likesReceived++, m.words),
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
 * What the demo account has for likes to land on (its photos in order, the prompts it answered),
 * and so the words a planned like sends: its comment, and its target when the demo has it.
 */
async function demoTargets(env: Env, demoId: string) {
  const [photos, answered] = await env.DB.batch<{ id: string }>([
    env.DB.prepare("SELECT id FROM photos WHERE user_id = ?1 ORDER BY position, id").bind(demoId),
    env.DB.prepare(
      "SELECT j.value ->> 'prompt_id' AS id FROM profiles p, json_each(p.prompts) j WHERE p.user_id = ?1",
    ).bind(demoId),
  ]);
  const photoIds = photos!.results.map((r) => r.id);
  const promptIds = new Set(answered!.results.map((r) => r.id));
  return ({ comment, on }: DemoLikeWords): LikeWords & { target: LikeTargetInput | null } => {
    let target: LikeTargetInput | null = null;
    if (on && "prompt_id" in on && promptIds.has(on.prompt_id)) {
      target = { prompt_id: on.prompt_id };
    } else if (on && "photo_position" in on && photoIds[on.photo_position]) {
      target = { photo_id: photoIds[on.photo_position]! };
    }
    return { comment, target };
  };
}

/** Whether a stored like already says these words, on this target. */
function sameWords(
  stored: { comment: string | null; photo: string | null; prompt: string | null },
  { comment, target }: { comment?: string | null; target: LikeTargetInput | null },
) {
  return (
    stored.comment === (comment ?? null) &&
    stored.photo === (target && "photo_id" in target ? target.photo_id : null) &&
    stored.prompt === (target && "prompt_id" in target ? target.prompt_id : null)
  );
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
