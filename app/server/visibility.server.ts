import { and, eq, isNotNull, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { schema } from "./db.server";
import type { Env } from "./env.server";

/**
 * Who may see whom: the one place that decides whether a member can see another member (their
 * profile, photos, or a place in a list). A member can be seen when their account exists, is
 * active, has a verified email, and neither member has blocked the other. A member can always see
 * themself while active.
 */

/**
 * The SQL condition "no block either way between `me` and the member in `column`", for every query
 * that lists or finds members. A block hides both members from each other.
 */
export function notBlockedWith(me: string, column: SQLWrapper): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = ${me} AND b.blocked_id = ${column}) OR (b.blocker_id = ${column} AND b.blocked_id = ${me}))`;
}

export async function canSee(env: Env, viewerId: string, targetId: string): Promise<boolean> {
  const target = await env.DB.prepare(
    `SELECT u.status, u.email_verified_at,
            EXISTS (SELECT 1 FROM blocks b
                    WHERE (b.blocker_id = ?1 AND b.blocked_id = ?2)
                       OR (b.blocker_id = ?2 AND b.blocked_id = ?1)) AS blocked
     FROM users u WHERE u.id = ?2`,
  )
    .bind(viewerId, targetId)
    .first<{ status: string; email_verified_at: string | null; blocked: number }>();
  if (!target || target.status !== "active") return false;
  if (viewerId === targetId) return true;
  return target.email_verified_at !== null && !target.blocked;
}

/**
 * The same rule as SQL over the `users` table, for queries that list members to `viewerId`
 * (viewers, search, likes): the listed member is active, verified, not `viewerId`, and neither has
 * blocked the other.
 */
export function visibleTo(viewerId: string): SQL {
  return and(
    eq(schema.users.status, "active"),
    isNotNull(schema.users.emailVerifiedAt),
    sql`${schema.users.id} <> ${viewerId}`,
    notBlockedWith(viewerId, schema.users.id),
  )!;
}
