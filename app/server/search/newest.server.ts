import { sql, type SQL } from "drizzle-orm";
import { conditions, type SearchContext } from "./filters.server";
import { keywordCondition } from "./plans.server";

/**
 * Results sorted newest first (by sign-up, then result order): the rows read backwards along
 * member_search_newest (sign-up time, then the key), each checked against the conditions and the
 * keywords, stopping when the page is full. Paging goes on after the last (joined, key) shown.
 * The work is the page divided by the share of members who match, as for the "pk" plan
 * (docs/decisions/040): the newest members pass most searches.
 */

export interface NewestPosition {
  /** The last sign-up time shown (epoch seconds). */
  j: number;
  /** The last key shown. */
  k: number;
}

/** One page of (sortKey, userId, joined), newest first, after `after`. */
export function newestStatement(
  c: SearchContext,
  after: NewestPosition | null,
  limit: number,
): SQL {
  const keywords = keywordCondition(c);
  const from = after
    ? sql` AND (s.joined < ${after.j} OR (s.joined = ${after.j} AND s.sort_key < ${after.k}))`
    : sql.raw("");
  return sql`SELECT s.sort_key AS sortKey, s.user_id AS userId, s.joined AS joined
    FROM member_search s INDEXED BY member_search_newest
    WHERE ${conditions(c)}${from}${keywords}
    ORDER BY s.joined DESC, s.sort_key DESC LIMIT ${limit}`;
}
