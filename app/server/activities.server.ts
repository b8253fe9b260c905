import { desc, eq, sql } from "drizzle-orm";
import type { ActivityType } from "~/schemas/activities";
import { activities } from "./db/activity";
import { newId } from "./crypto.server";
import { getDb, nowIso } from "./db.server";
import type { Env } from "./env.server";
import { memberCards, type MemberCard } from "./members.server";
import { isActiveMember, neitherBlocked } from "./visibility.server";
import { statement } from "./sql.server";

/**
 * A member's own history (the activities page): likes given and received, matches, gifts sent and
 * received, credit purchases and subscription changes. The module that makes a change records it
 * for each member concerned, after storing the change itself:
 *
 *   await recordActivity(env, { userId: liker, type: "like_sent", otherUserId: liked });
 *   await recordActivity(env, { userId: liked, type: "like_received", otherUserId: liker });
 *
 * or, inside a D1 batch that must stay atomic, adds `activityStatement(...)` to it.
 */
export interface ActivityInput {
  userId: string;
  type: ActivityType;
  /** The other member of the event (the liked member, the gift's recipient…), when there is one. */
  otherUserId?: string | null;
  /** What the page shows besides the other member: `{gift: {name, icon}}`, `{credits, pack}`… */
  data?: Record<string, unknown>;
}

export interface ActivityView {
  id: string;
  type: ActivityType;
  /** The other member's card; null when there is none, or either side has since blocked the other. */
  user: MemberCard | null;
  data: Record<string, unknown>;
  created_at: string;
}

export const ACTIVITIES_PER_PAGE = 20;

/**
 * The statement that records one activity (for callers that batch it with their own change).
 * With `whenLedgerEntry`, only when that credit ledger row exists (was stored earlier in the same
 * batch): a payment applied twice records one activity. `id`: the caller's, when an undoing of
 * the change must find the activity (a gift's refund).
 */
export function activityStatement(
  env: Env,
  input: ActivityInput,
  now = Date.now(),
  { whenLedgerEntry, id = newId() }: { whenLedgerEntry?: string; id?: string } = {},
) {
  const ledgerEntry = whenLedgerEntry ?? null;
  return statement(
    env.DB,
    sql`INSERT INTO activities (id, user_id, type, other_user_id, data, created_at, seq)
     SELECT ${id}, ${input.userId}, ${input.type}, ${input.otherUserId ?? null}, ${JSON.stringify(input.data ?? {})}, ${nowIso(now)},
       (SELECT coalesce(max(seq), 0) + 1 FROM activities WHERE user_id = ${input.userId})
     WHERE ${ledgerEntry} IS NULL OR EXISTS (SELECT 1 FROM credit_transactions WHERE id = ${ledgerEntry})`,
  );
}

/** Records one or more activities (one round trip). */
export async function recordActivity(env: Env, ...inputs: ActivityInput[]): Promise<void> {
  if (inputs.length === 0) return;
  const now = Date.now();
  await env.DB.batch(inputs.map((input) => activityStatement(env, input, now)));
}

/** GET /my/activities: the member's history, newest first, a page at a time. */
export async function listActivities(
  env: Env,
  userId: string,
  { page = 1, perPage = ACTIVITIES_PER_PAGE }: { page?: number; perPage?: number } = {},
) {
  const rows = await getDb(env.DB)
    .select({
      id: activities.id,
      type: activities.type,
      otherUserId: activities.otherUserId,
      data: activities.data,
      createdAt: activities.createdAt,
      // The other member shows only while active and while neither side blocks the other.
      visible: sql<number>`${activities.otherUserId} IS NOT NULL
        AND ${neitherBlocked(userId, activities.otherUserId)}
        AND ${isActiveMember(activities.otherUserId)}`,
    })
    .from(activities)
    .where(eq(activities.userId, userId))
    .orderBy(desc(activities.seq), desc(activities.id))
    .limit(perPage + 1)
    .offset((page - 1) * perPage)
    .all();
  const pageRows = rows.slice(0, perPage);
  const ids = [
    ...new Set(pageRows.flatMap((r) => (r.visible && r.otherUserId ? [r.otherUserId] : []))),
  ];
  const cards = new Map((await memberCards(env, ids)).map((c) => [c.id, c]));
  const list: ActivityView[] = pageRows.map((r) => ({
    id: r.id,
    type: r.type,
    user: r.visible && r.otherUserId ? (cards.get(r.otherUserId) ?? null) : null,
    data: r.data,
    created_at: r.createdAt,
  }));
  return { activities: list, meta: { page, per_page: perPage, has_more: rows.length > perPage } };
}
