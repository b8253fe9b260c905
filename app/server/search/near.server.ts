import { sql, type SQL } from "drizzle-orm";
import type { Env } from "../env.server";
import { allRows, type DbTime } from "../db-time.server";
import { all, statement } from "../sql.server";
import { cardsStatement, readCard, type CardRow } from "./cards.server";
import { cellList, conditions, nearDot, type Near, type SearchContext } from "./filters.server";
import { KEY_CEILING, keywordCondition } from "./plans.server";

/**
 * Results sorted by distance (docs/decisions/040): nearest place first, and the members of one
 * place in result order (sort_key, highest first), so that the order is total and paging stable.
 *
 * Members share places (a distance is between places only), so a page reads the places in the
 * radius nearest first (`member_places`, by cell), a few at a time, then the members of those
 * places in order: one arm per place, each reading its members by the member_search_at_point
 * index in key order and stopping when the page is full. The work is the page plus the places
 * looked at, however many members the radius holds.
 *
 * Where a page ended: the place (its dot product with the origin and its id, the places' order)
 * and the last key shown there.
 */

/** Places read per statement: each is one arm (and one bound value) of the members' statement. */
export const PLACES_PER_READ = 6;
/** Statements of places a page may read before it ends short (and says there is more). */
const MAX_PLACE_READS = 12;

export interface NearPosition {
  /** The dot product of the last place shown with the origin (larger is nearer). */
  d: number;
  /** That place's id. */
  pid: number;
  /** The last key shown in that place. */
  k: number;
}

export interface PlaceRow {
  id: number;
  d: number;
}

/** The places of the radius from `after` on, nearest first (ties by id). */
export function placesStatement(near: Near, after: NearPosition | null): SQL {
  const d = nearDot(near, "p");
  const from = after
    ? sql` AND (${d} < ${after.d} OR (${d} = ${after.d} AND p.id >= ${after.pid}))`
    : sql.raw("");
  return sql`SELECT p.id AS id, ${d} AS d FROM member_places p INDEXED BY member_places_by_cell
    WHERE p.cell IN ${cellList(near)} AND ${d} >= ${near.minDot}${from}
    ORDER BY d DESC, p.id LIMIT ${PLACES_PER_READ}`;
}

/**
 * The members of `places`, in order, up to `limit`: one arm per place (its members by the
 * at_point index, in key order, passing every condition and the keywords), the arms in the
 * places' order; SQLite stops at the limit before it runs the arms after it.
 */
export function membersStatement(
  c: SearchContext,
  places: PlaceRow[],
  after: NearPosition | null,
  limit: number,
): SQL {
  const keywords = keywordCondition(c);
  const arms = places.map((place) => {
    const from = after && place.id === after.pid ? after.k : KEY_CEILING;
    return sql`SELECT * FROM (SELECT s.sort_key AS sortKey, s.user_id AS userId, p.id AS placeId, ${place.d} AS dot
      FROM member_places p CROSS JOIN member_search s INDEXED BY member_search_at_point
        ON s.x = p.x AND s.y = p.y AND s.z = p.z
      WHERE p.id = ${place.id} AND s.sort_key < ${from} AND ${conditions(c)}${keywords}
      ORDER BY s.sort_key DESC LIMIT ${limit})`;
  });
  return sql`SELECT * FROM (${sql.join(arms, sql` UNION ALL `)}) LIMIT ${limit}`;
}

/**
 * One page sorted by distance: up to `limit` cards after `after` (null: from the nearest), in
 * order. Reads places PLACES_PER_READ at a time until the page is full or the radius has no more;
 * `exhausted` tells that it has none. A page that ends short of `limit` without being exhausted
 * (MAX_PLACE_READS places read, few members in them) goes on from `position`.
 */
export async function nearPage(
  env: Env,
  c: SearchContext,
  after: NearPosition | null,
  limit: number,
  time?: DbTime | null,
): Promise<{ rows: CardRow[]; exhausted: boolean; position: NearPosition | null }> {
  const near = c.near!;
  const rows: CardRow[] = [];
  let position = after;
  for (let read = 0; read < MAX_PLACE_READS; read++) {
    const places = await all<PlaceRow>(env.DB, placesStatement(near, position));
    if (!places.length) return { rows, exhausted: true, position };
    const found = (
      await allRows<Record<string, unknown>>(
        statement(
          env.DB,
          cardsStatement(
            c.me,
            membersStatement(c, places, position, limit - rows.length),
            "placed",
          ),
        ),
        time,
      )
    ).map(readCard);
    rows.push(...found);
    if (rows.length >= limit) return { rows: rows.slice(0, limit), exhausted: false, position };
    // Every member of these places is on the page: go on after the last of them.
    const lastPlace = places.at(-1)!;
    if (places.length < PLACES_PER_READ) return { rows, exhausted: true, position };
    position = { d: lastPlace.d, pid: lastPlace.id + 1, k: KEY_CEILING };
  }
  return { rows, exhausted: false, position };
}
