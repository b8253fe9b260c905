import { and, eq, isNotNull, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { getDb, schema } from "./db.server";
import type { Env } from "./env.server";
import { first, statement } from "./sql.server";

/**
 * Who may see whom: the one place that decides whether a member can see another member (their
 * profile, photos, or a place in a list). A member can be seen when their account exists, is
 * active, has a verified email, and neither member has blocked the other. A member can always see
 * themself while active.
 *
 * Each part of the rule is written once: "neither blocked the other" as SQL (a fragment to put in
 * any query, or a statement of its own), "active and verified" as SQL and as a TypeScript
 * predicate over a row already read.
 */

/** A member id, or a column (or other SQL) holding one. */
type MemberRef = string | SQLWrapper;

/** SQL: a block exists either way between `a` and `b`. */
export function blockedEitherWay(a: MemberRef, b: MemberRef): SQL {
  return sql`EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = ${a} AND b.blocked_id = ${b}) OR (b.blocker_id = ${b} AND b.blocked_id = ${a}))`;
}

/**
 * SQL: the ids (`id`) of every member on either side of a block with `me`, a list for `NOT IN (…)`
 * that SQLite reads once per statement (search: rather than two lookups for every row examined).
 * A member both blocked and blocking is listed twice.
 */
export function blockedWith(me: MemberRef): SQL {
  return sql`SELECT b.blocked_id AS id FROM blocks b WHERE b.blocker_id = ${me} UNION ALL SELECT b.blocker_id FROM blocks b WHERE b.blocked_id = ${me}`;
}

/**
 * SQL: neither `a` nor `b` has blocked the other, for every query that lists or finds members. A
 * block hides both members from each other.
 */
export function neitherBlocked(a: MemberRef, b: MemberRef): SQL {
  return sql`NOT ${blockedEitherWay(a, b)}`;
}

/** SQL over `users` (or the same columns of another table): the member is active and verified. */
export function activeAndVerified(
  columns: { status: SQLWrapper; emailVerifiedAt: SQLWrapper } = schema.users,
): SQL {
  return and(eq(columns.status, "active"), isNotNull(columns.emailVerifiedAt))!;
}

/** TypeScript: the member is active and verified. */
export const isActiveAndVerified = (
  user: Pick<typeof schema.users.$inferSelect, "status" | "emailVerifiedAt">,
) => user.status === "active" && user.emailVerifiedAt !== null;

/**
 * SQL: the member whose id is `id` (a column of a row that names another member: an actor, the
 * other side of an activity or a gift) still has an active account.
 */
export function isActiveMember(id: MemberRef): SQL {
  return sql`EXISTS (SELECT 1 FROM users o WHERE o.id = ${id} AND o.status = 'active')`;
}

/** True when either member has blocked the other. */
export async function isBlockedEitherWay(env: Env, a: string, b: string): Promise<boolean> {
  if (a === b) return false;
  return (await first(env.DB, sql`SELECT 1 AS one WHERE ${blockedEitherWay(a, b)}`)) !== null;
}

/**
 * Every member on either side of a block with `me` (the presence room leaves them out): a
 * statement whose rows are `{id}` (`blockedWith`), batched with the presence socket's other reads.
 */
export function blockedEitherWayStatement(env: Env, me: string): D1PreparedStatement {
  return statement(env.DB, blockedWith(me));
}

export async function canSee(env: Env, viewerId: string, targetId: string): Promise<boolean> {
  const { users } = schema;
  const target = await getDb(env.DB)
    .select({
      status: users.status,
      emailVerifiedAt: users.emailVerifiedAt,
      blocked: sql<number>`${blockedEitherWay(viewerId, targetId)}`,
    })
    .from(users)
    .where(eq(users.id, targetId))
    .get();
  if (!target || target.status !== "active") return false;
  if (viewerId === targetId) return true;
  return isActiveAndVerified(target) && !target.blocked;
}

/**
 * The same rule as SQL over the `users` table, for queries that list members to `viewerId`
 * (viewers, search, likes): the listed member is active, verified, not `viewerId`, and neither has
 * blocked the other.
 */
export function visibleTo(viewerId: string): SQL {
  return and(
    activeAndVerified(),
    sql`${schema.users.id} <> ${viewerId}`,
    neitherBlocked(viewerId, schema.users.id),
  )!;
}

/** Whether the member exists (an account deleted since, or never ours, is not). */
export async function memberExists(env: Env, userId: string): Promise<boolean> {
  return !!(await first(env.DB, sql`SELECT 1 AS x FROM users WHERE id = ${userId}`));
}
