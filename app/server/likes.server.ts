import { and, count, desc, eq, sql } from "drizzle-orm";
import {
  LIKE_MESSAGES,
  type LikeNote,
  type LikeTarget,
  type LikeTargetInput,
} from "~/schemas/like-comment";
import { promptText } from "~/schemas/prompt-catalog";
import { recordActivity } from "./activities.server";
import { conversationRoom } from "./chat-rooms.server";
import { memberHub } from "./member-hub.server";
import { likes } from "./db/likes";
import { getDb, nowIso, schema } from "./db.server";
import type { Env } from "./env.server";
import { HttpError, notFound, ValidationError } from "./errors.server";
import { logFailure } from "./log.server";
import {
  hasLink,
  LINK_MIN_ACCOUNT_AGE_MS,
  LINKS_NOT_YET,
  recipientSafety,
  SAFETY_NOTES,
  SafetyCheck,
  senderSafety,
  type SafetyKind,
  type SafetyNote,
} from "./message-safety.server";
import { isSafetyKind } from "~/schemas/message-safety";
import { memberCards, type MemberCard, type PhotoUrlsById } from "./members.server";
import { mintPhotoUrls } from "./photo-urls.server";
import { notify } from "./notifications.server";
import { memberPerks } from "./subscriptions.server";
import { canSee, visibleTo } from "./visibility.server";
import { all, first, run, statement } from "./sql.server";

/** Likes a free member may give per UTC day. */
export const FREE_DAILY_LIKES = 50;
export const DAILY_LIMIT_MESSAGE = "You have reached your daily like limit.";
export const CANNOT_LIKE_SELF = "You cannot like yourself.";

/** The daily like limit of one member: their plan's while they are subscribed, else the free one. */
export async function dailyLikeLimit(env: Env, userId: string, now = Date.now()): Promise<number> {
  const { dailyLikes } = await memberPerks(env, userId, now);
  return Math.max(FREE_DAILY_LIKES, dailyLikes ?? 0);
}

const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);

/** Seconds from `now` until the UTC day ends (when the daily count starts again). */
export function secondsUntilUtcMidnight(now: number): number {
  const d = new Date(now);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now) / 1000));
}

export const dailyLimitReached = (now: number) =>
  new HttpError(429, DAILY_LIMIT_MESSAGE, undefined, {
    "Retry-After": String(secondsUntilUtcMidnight(now)),
  });

async function likeExists(env: Env, likerId: string, likedId: string): Promise<boolean> {
  const row = await first(
    env.DB,
    sql`SELECT 1 AS x FROM likes WHERE liker_id = ${likerId} AND liked_id = ${likedId}`,
  );
  return row !== null;
}

/** What a like may carry: a comment and what it lands on (app/schemas/likes.ts). */
export interface LikeWords {
  comment?: string | null;
  target?: LikeTargetInput | null;
  /** The sender saw the "Are you sure?" of their comment and sends it anyway. */
  confirm?: boolean;
}

/**
 * A like's comment reaches a member who has not matched its writer, so it passes message safety
 * as a first message does (message-safety.server.ts): a link from an account in its first day is
 * refused (422 on `comment`), text that reads as harassment asks "Are you sure?" (409) unless
 * `confirm`, and what its reader should be warned of (off_platform, money, link) is returned, to be
 * kept with the like and shown to them.
 */
async function checkComment(
  env: Env,
  me: string,
  comment: string,
  confirm: boolean,
  now: number,
): Promise<SafetyKind | null> {
  if (hasLink(comment)) {
    const mine = await first<{ created_at: string }>(
      env.DB,
      sql`SELECT created_at FROM users WHERE id = ${me}`,
    );
    if (mine && now - Date.parse(mine.created_at) < LINK_MIN_ACCOUNT_AGE_MS) {
      throw new ValidationError({ comment: [LINKS_NOT_YET] });
    }
  }
  if (!confirm) {
    const asked = senderSafety(comment);
    if (asked) throw new SafetyCheck(asked);
  }
  return recipientSafety(comment)?.kind ?? null;
}

/** A stored comment's warning for its reader, as a message's `safety`. */
export const commentSafetyNote = (kind: string | null): SafetyNote | null =>
  isSafetyKind(kind) && kind !== "harassment" ? { kind, note: SAFETY_NOTES[kind] } : null;

/**
 * A like's target must be one of the liked member's photos, or a prompt they answered (and that
 * the catalog still holds): 422 on `target.photo_id` or `target.prompt_id` otherwise.
 */
async function checkTarget(env: Env, likedId: string, target: LikeTargetInput | null) {
  if (!target) return { photoId: null, promptId: null };
  if ("photo_id" in target) {
    const photo = await first(
      env.DB,
      sql`SELECT 1 AS x FROM photos WHERE id = ${target.photo_id} AND user_id = ${likedId}`,
    );
    if (!photo) throw new ValidationError({ "target.photo_id": [LIKE_MESSAGES.photo] });
    return { photoId: target.photo_id, promptId: null };
  }
  const answered = await first(
    env.DB,
    sql`SELECT 1 AS x FROM profiles p, json_each(p.prompts) j
     WHERE p.user_id = ${likedId} AND j.value ->> 'prompt_id' = ${target.prompt_id}`,
  );
  if (!answered || !promptText(target.prompt_id)) {
    throw new ValidationError({ "target.prompt_id": [LIKE_MESSAGES.prompt] });
  }
  return { photoId: null, promptId: target.prompt_id };
}

/** The comment of `likerId`'s like of `likedId` and its warning for `likedId`, when there is one. */
async function likeComment(
  env: Env,
  likerId: string,
  likedId: string,
): Promise<{ comment: string; safety: SafetyNote | null } | null> {
  const row = await first<{ comment: string | null; comment_safety: string | null }>(
    env.DB,
    sql`SELECT comment, comment_safety FROM likes WHERE liker_id = ${likerId} AND liked_id = ${likedId}`,
  );
  return row?.comment
    ? { comment: row.comment, safety: commentSafetyNote(row.comment_safety) }
    : null;
}

export interface LikeResult {
  liked: true;
  is_match: boolean;
  /** A match: the comment the other member's like carried, when it carried one. */
  match_comment?: string;
  /** That comment's warning (message safety), when it has one. */
  match_comment_safety?: SafetyNote;
}

async function likeResult(env: Env, me: string, targetId: string, isMatch: boolean) {
  const result: LikeResult = { liked: true, is_match: isMatch };
  if (isMatch) {
    const theirs = await likeComment(env, targetId, me);
    if (theirs) result.match_comment = theirs.comment;
    if (theirs?.safety) result.match_comment_safety = theirs.safety;
  }
  return result;
}

/**
 * POST /my/likes: `me` likes `targetId`, optionally with a comment and on one of their photos or
 * answered prompts (`words`; a target that is not theirs is 422). A member who is hidden from `me`
 * (unknown, unverified, suspended, blocked either way) is 404. A new like uses one of the day's
 * likes (429 with Retry-After once they are used up); when it makes a match both members hear of
 * the match, otherwise the liked member hears of the like, with its comment.
 *
 * Liking again costs nothing and tells nobody again; the like keeps its first time. A like again
 * with a comment or a target replaces the stored comment and target; one with neither changes
 * nothing.
 */
export async function likeMember(
  env: Env,
  me: string,
  targetId: string,
  now = Date.now(),
  words: LikeWords = {},
): Promise<LikeResult> {
  if (targetId === me) throw new ValidationError({ user_id: [CANNOT_LIKE_SELF] });
  // canSee: the member exists, is active and verified, and neither has blocked the other.
  if (!(await canSee(env, me, targetId))) throw notFound("Member not found.");
  const comment = words.comment?.trim() || null;
  const { photoId, promptId } = await checkTarget(env, targetId, words.target ?? null);
  const safety = comment ? await checkComment(env, me, comment, words.confirm === true, now) : null;
  if (await likeExists(env, me, targetId)) {
    if (comment !== null || photoId !== null || promptId !== null) {
      await run(
        env.DB,
        sql`UPDATE likes SET comment = ${comment}, comment_safety = ${safety},
           target_photo_id = ${photoId}, target_prompt_id = ${promptId}
         WHERE liker_id = ${me} AND liked_id = ${targetId}`,
      );
    }
    return likeResult(env, me, targetId, await likeExists(env, targetId, me));
  }

  const day = utcDay(now);
  const limit = await dailyLikeLimit(env, me, now);
  // Counts the like before storing it; the conditional upsert never lets the count pass the limit.
  const quota = await first<{ count: number }>(
    env.DB,
    sql`INSERT INTO like_quota (user_id, day, count) VALUES (${me}, ${day}, 1)
     ON CONFLICT (user_id, day) DO UPDATE SET count = count + 1 WHERE like_quota.count < ${limit}
     RETURNING count`,
  );
  if (!quota) throw dailyLimitReached(now);

  const [inserted, reverse] = await env.DB.batch<{ x: number }>([
    statement(
      env.DB,
      sql`INSERT INTO likes (liker_id, liked_id, created_at, comment, comment_safety, target_photo_id, target_prompt_id)
       VALUES (${me}, ${targetId}, ${nowIso(now)}, ${comment}, ${safety}, ${photoId}, ${promptId})
       ON CONFLICT DO NOTHING RETURNING 1 AS x`,
    ),
    statement(
      env.DB,
      sql`SELECT 1 AS x FROM likes WHERE liker_id = ${targetId} AND liked_id = ${me}`,
    ),
    statement(env.DB, sql`DELETE FROM like_quota WHERE user_id = ${me} AND day < ${day}`),
    // A new match lifts an unmatch: the two may write to each other again (a new conversation).
    statement(
      env.DB,
      sql`DELETE FROM unmatches WHERE ${pairIs(me, targetId)} AND ${matchedSql(me, targetId)}`,
    ),
  ]);
  const isMatch = (reverse?.results.length ?? 0) > 0;
  if ((inserted?.results.length ?? 0) > 0) {
    await recordActivity(
      env,
      { userId: me, type: "like_sent", otherUserId: targetId },
      { userId: targetId, type: "like_received", otherUserId: me },
      ...(isMatch
        ? [
            { userId: me, type: "match" as const, otherUserId: targetId },
            { userId: targetId, type: "match" as const, otherUserId: me },
          ]
        : []),
    );
    await announceLike(
      env,
      me,
      targetId,
      isMatch,
      comment ? { comment, safety: commentSafetyNote(safety) } : null,
      now,
    );
  }
  return likeResult(env, me, targetId, isMatch);
}

/**
 * Notifications never decide whether a like is stored: a failure to send one is only logged. The
 * liked member's notification carries my comment; mine of a match carries theirs.
 */
async function announceLike(
  env: Env,
  me: string,
  other: string,
  isMatch: boolean,
  comment: { comment: string; safety: SafetyNote | null } | null,
  now: number,
) {
  // A comment, and what its reader is warned of, as a notification's data carries them.
  const words = (c: typeof comment) =>
    c ? { comment: c.comment, ...(c.safety ? { comment_safety: c.safety } : {}) } : {};
  try {
    const [myCard, theirCard] = await memberCards(env, [me, other], now);
    if (!myCard || !theirCard) return;
    const mine = words(comment);
    if (isMatch) {
      const theirs = await likeComment(env, other, me);
      await notify(env, { to: other, type: "match", actorId: me, data: { user: myCard, ...mine } });
      await notify(env, {
        to: me,
        type: "match",
        actorId: other,
        data: { user: theirCard, ...words(theirs) },
      });
    } else {
      await notify(env, { to: other, type: "like", actorId: me, data: { user: myCard, ...mine } });
    }
  } catch (error) {
    logFailure("like_notification", error, { user_id: me });
  }
}

const ordered = (a: string, b: string): [string, string] => (a < b ? [a, b] : [b, a]);

/** The `unmatches` row of the pair of `a` and `b`. */
function pairIs(a: string, b: string) {
  const [low, high] = ordered(a, b);
  return sql`user_low = ${low} AND user_high = ${high}`;
}

/** Both members like each other. */
const matchedSql = (a: string, b: string) =>
  sql`EXISTS (SELECT 1 FROM likes WHERE liker_id = ${a} AND liked_id = ${b})
   AND EXISTS (SELECT 1 FROM likes WHERE liker_id = ${b} AND liked_id = ${a})`;

/** Whether one of the two unmatched the other and they have not matched again since. */
export async function unmatched(env: Env, a: string, b: string): Promise<boolean> {
  return (await first(env.DB, sql`SELECT 1 AS x FROM unmatches WHERE ${pairIs(a, b)}`)) !== null;
}

export const MATCH_NOT_FOUND = "Match not found.";

/**
 * DELETE /my/matches/{userId}: `me` unmatches another member. Both likes go (the match ends for
 * both), their conversation ends (it leaves both lists, its sockets close, and every later call
 * on it is 403; its room keeps what was written for the moderators), and neither may start a new
 * one until both like each other again. A member `me` has neither a match nor a conversation with,
 * or cannot see, is 404; unmatching again is harmless.
 */
export async function unmatchMember(
  env: Env,
  me: string,
  otherId: string,
  now = Date.now(),
): Promise<void> {
  if (otherId === me || !(await canSee(env, me, otherId))) throw notFound(MATCH_NOT_FOUND);
  const [low, high] = ordered(me, otherId);
  const live = await first<{ matched: number; talking: number; unmatched: number }>(
    env.DB,
    sql`SELECT ${matchedSql(me, otherId)} AS matched,
       EXISTS (SELECT 1 FROM conversations WHERE user_low = ${low} AND user_high = ${high}
         AND ended_at IS NULL) AS talking,
       EXISTS (SELECT 1 FROM unmatches WHERE ${pairIs(me, otherId)}) AS unmatched`,
  );
  if (!live || (!live.matched && !live.talking && !live.unmatched)) {
    throw notFound(MATCH_NOT_FOUND);
  }
  const at = nowIso(now);
  await env.DB.batch([
    statement(
      env.DB,
      sql`DELETE FROM likes WHERE (liker_id = ${me} AND liked_id = ${otherId})
       OR (liker_id = ${otherId} AND liked_id = ${me})`,
    ),
    statement(
      env.DB,
      sql`INSERT INTO unmatches (user_low, user_high, unmatched_by, unmatched_at)
       VALUES (${low}, ${high}, ${me}, ${at}) ON CONFLICT DO NOTHING`,
    ),
    statement(
      env.DB,
      sql`UPDATE conversations SET ended_at = ${at}
       WHERE user_low = ${low} AND user_high = ${high} AND ended_at IS NULL`,
    ),
  ]);
  // Every ended conversation of the pair hears it (again: telling a room twice changes nothing,
  // and a push that failed the first time is made by the next call).
  const ended = await all<{ id: string }>(
    env.DB,
    sql`SELECT id FROM conversations WHERE user_low = ${low} AND user_high = ${high}
     AND ended_at IS NOT NULL`,
  );
  await Promise.all(
    ended.map(async ({ id }) => {
      await conversationRoom(env, id).end(id);
      // Out of both lists (an entry the room's outbox writes later is hidden and not listed).
      await Promise.all([
        memberHub(env, me).dropConversation(id),
        memberHub(env, otherId).dropConversation(id),
      ]);
    }),
  );
}

/** DELETE /my/likes/{userId}: takes my like back (and so the match). Harmless when there is none. */
export async function unlikeMember(env: Env, me: string, targetId: string): Promise<void> {
  await getDb(env.DB)
    .delete(likes)
    .where(and(eq(likes.likerId, me), eq(likes.likedId, targetId)));
}

/** Between me and another member: whether I liked them, they liked me, and so whether we match. */
export async function likeStatus(env: Env, me: string, other: string) {
  const [liked, likedMe] = await Promise.all([
    likeExists(env, me, other),
    likeExists(env, other, me),
  ]);
  return { liked, liked_me: likedMe, is_match: liked && likedMe };
}

export const LIKES_PER_PAGE = 24;
export const LIKE_LISTS = ["received", "sent", "matches"] as const;
export type LikeList = (typeof LIKE_LISTS)[number];

export type LikedCard = MemberCard & { liked_at: string };
export type MatchCard = MemberCard & { matched_at: string };

export interface ListMeta {
  page: number;
  per_page: number;
  total: number;
  has_more: boolean;
}

/** A like's target as it is now: null when it landed on neither, or on what has since gone. */
function likeTarget(
  row: {
    photoId: string | null;
    promptId: string | null;
    answer: string | null;
  },
  photos: PhotoUrlsById,
): LikeTarget | null {
  const urls = row.photoId ? photos.get(row.photoId) : undefined;
  if (row.photoId && urls) return { photo_id: row.photoId, photo_url: urls[720], photo_urls: urls };
  const text = row.promptId ? promptText(row.promptId) : null;
  if (row.promptId && text && row.answer !== null) {
    return { prompt_id: row.promptId, text, answer: row.answer };
  }
  return null;
}

/**
 * The three lists of GET /my/likes, each newest first and a page at a time: `received` are members
 * who liked me whom I have not liked back, `sent` members I liked who have not liked me back, and
 * `matches` members who liked me and whom I liked (a member is in one list only). Members hidden
 * from me (unverified, suspended, blocked either way) are left out. `notes` holds, by member, the
 * comment and target of the like each card stands for (received: theirs to me; sent: mine).
 */
export async function listLikes(
  env: Env,
  me: string,
  list: LikeList,
  { page = 1, perPage = LIKES_PER_PAGE }: { page?: number; perPage?: number } = {},
  now = Date.now(),
): Promise<{
  cards: (MemberCard & { at: string })[];
  notes: Map<string, LikeNote>;
  meta: ListMeta;
}> {
  const db = getDb(env.DB);
  const other = list === "received" ? likes.likerId : likes.likedId;
  const reverse = sql`EXISTS (SELECT 1 FROM likes r WHERE r.liker_id = ${likes.likedId} AND r.liked_id = ${likes.likerId})`;
  const where = and(
    list === "received" ? eq(likes.likedId, me) : eq(likes.likerId, me),
    list === "matches" ? reverse : sql`NOT ${reverse}`,
    // Active, verified, and no block either way (visibility.server.ts's neitherBlocked).
    visibleTo(me),
  );
  // A match dates from the second of the two likes.
  const at =
    list === "matches"
      ? sql<string>`max(${likes.createdAt}, (SELECT r.created_at FROM likes r WHERE r.liker_id = ${likes.likedId} AND r.liked_id = ${likes.likerId}))`
      : sql<string>`${likes.createdAt}`;
  const [rows, totals] = await Promise.all([
    db
      .select({
        id: schema.users.id,
        at,
        comment: likes.comment,
        commentSafety: likes.commentSafety,
        // The photo while it is still the liked member's; the answer while they still give it.
        photoId: sql<
          string | null
        >`(SELECT p.id FROM photos p WHERE p.id = ${likes.targetPhotoId} AND p.user_id = ${likes.likedId})`,
        // Whose photo it is: where it is stored, for its address.
        photoOwner: likes.likedId,
        promptId: likes.targetPromptId,
        answer: sql<
          string | null
        >`(SELECT j.value ->> 'answer' FROM profiles pr, json_each(pr.prompts) j
          WHERE pr.user_id = ${likes.likedId} AND j.value ->> 'prompt_id' = ${likes.targetPromptId})`,
      })
      .from(likes)
      .innerJoin(schema.users, eq(schema.users.id, other))
      .where(where)
      .orderBy(desc(at), schema.users.id)
      .limit(perPage + 1)
      .offset((page - 1) * perPage)
      .all(),
    db
      .select({ total: count() })
      .from(likes)
      .innerJoin(schema.users, eq(schema.users.id, other))
      .where(where)
      .get(),
  ]);
  const pageRows = rows.slice(0, perPage);
  const [cards, photos] = await Promise.all([
    memberCards(
      env,
      pageRows.map((r) => r.id),
      now,
    ),
    mintPhotoUrls(
      env,
      pageRows.flatMap((r) => (r.photoId ? [{ id: r.photoId, owner: r.photoOwner }] : [])),
      now,
    ),
  ]);
  const atById = new Map(pageRows.map((r) => [r.id, r.at]));
  const notes = new Map(
    pageRows.map((r) => [
      r.id,
      {
        comment: r.comment,
        target: likeTarget(r, photos),
        // Its reader is warned; its writer is not shown a warning about their own words.
        ...(list === "received" ? { comment_safety: commentSafetyNote(r.commentSafety) } : {}),
      } satisfies LikeNote,
    ]),
  );
  return {
    cards: cards.map((card) => ({ ...card, at: atById.get(card.id) ?? "" })),
    notes,
    meta: { page, per_page: perPage, total: totals?.total ?? 0, has_more: rows.length > perPage },
  };
}

/** GET /my/likes, or one of its lists (`list`) at another page. */
export async function likesOverview(
  env: Env,
  me: string,
  options: { list?: LikeList; page?: number; perPage?: number } = {},
) {
  const lists = options.list ? [options.list] : [...LIKE_LISTS];
  const out: Partial<
    Record<
      LikeList,
      (MemberCard & { liked_at?: string; matched_at?: string } & Partial<LikeNote>)[]
    >
  > = {};
  const meta: Partial<Record<LikeList, ListMeta>> = {};
  await Promise.all(
    lists.map(async (list) => {
      const {
        cards,
        notes,
        meta: listMeta,
      } = await listLikes(env, me, list, {
        page: options.list ? options.page : 1,
        perPage: options.perPage,
      });
      // A card of who liked me, or whom I liked, carries that like's comment and target.
      out[list] = cards.map(({ at, ...card }) =>
        list === "matches"
          ? { ...card, matched_at: at }
          : {
              ...card,
              liked_at: at,
              ...(notes.get(card.id) ?? { comment: null, target: null }),
            },
      );
      meta[list] = listMeta;
    }),
  );
  return { ...out, meta };
}
