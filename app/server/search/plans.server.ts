import { sql, type SQL } from "drizzle-orm";
import { SEARCH_AGE, SEARCH_TOTAL_CAP } from "~/schemas/search";
import { conditions, onlineNow, type SearchContext, type SearchPlan } from "./filters.server";

/**
 * Query plans. Each page runs one of four plans, chosen within the first page's statement from
 * bounded counts (choiceCtes) and kept by the cursor:
 *   - "cover": when at most SEARCH_TOTAL_CAP members pass the filters, they are read from the
 *     covering index of the most selective filter (city, state, country, gender, or age) and the
 *     top of them sorted: the work is bounded by the number of matches;
 *   - "pk": with more matches than that, the table is read in key order and stops as soon as the
 *     page is full: on average per_page / (share of members that match) rows;
 *   - "fts": with keywords or interests and many matches, the full-text index yields its matches
 *     already in key order (CROSS JOIN keeps it the outer loop) and stops when the page is full;
 *   - "online": "online now" with at most ONLINE_PLAN_LIMIT members online starts from them
 *     (users_online) and sorts the top: the work is bounded by that limit. With more online, the
 *     other plans check each row, and stop early because most recently active members are online.
 * With keywords, the cover, pk and online plans check each row against the full-text matches,
 * read once per statement.
 */

/** Above every sort key: the "after" of a first page. */
export const KEY_CEILING = Number.MAX_SAFE_INTEGER;

/** An age range the filters ask for that is narrower than this many years reads by_age_min. */
const NARROW_AGES = 10;

/**
 * Whether the filters ask for a narrow age range (and no place or radius, whose indexes are
 * narrower).
 */
const narrowAges = (c: SearchContext) =>
  Boolean(c.custom && c.custom.to - c.custom.from < NARROW_AGES && !c.country && !c.near);

/** The covering index that leads with the most selective filter given. */
function coverIndex(c: SearchContext): SQL {
  if (c.city) return sql.raw("member_search_by_city");
  if (c.state) return sql.raw("member_search_by_state");
  // A radius (at most 500 km) is narrower than most countries: its cells, one search each.
  if (c.near) return sql.raw("member_search_by_cell");
  if (c.country) return sql.raw("member_search_by_country");
  if (narrowAges(c)) return sql.raw("member_search_by_age_min");
  if (c.gender) return sql.raw("member_search_by_gender");
  return sql.raw("member_search_by_age");
}

/**
 * The rows of the cover plan: its covering index, and with a narrow age range one search of
 * `member_search_by_age_min` per lower bound that admits the searcher (from the youngest age to
 * theirs), each for the range's dates of birth: only members whose own range can hold the searcher's
 * age are read. Over a few years of birth, most members of an age far from the searcher's have a
 * range without it: read by date of birth, they were all read to find none (migrations/0017).
 */
function coverFrom(c: SearchContext): SQL {
  const from = sql`FROM member_search s INDEXED BY ${coverIndex(c)} WHERE`;
  if (!narrowAges(c)) return from;
  return sql`${from} s.age_min IN (WITH RECURSIVE lower_bound(v) AS (SELECT ${SEARCH_AGE.min} UNION ALL SELECT v + 1 FROM lower_bound WHERE v < ${c.terms.myAge}) SELECT v FROM lower_bound) AND`;
}

/**
 * The keywords as a condition on a row: its key among the full-text matches, a list SQLite reads
 * once per statement (a probe of the full-text index for every row would parse the query each time).
 */
export const keywordCondition = (c: SearchContext) =>
  c.textMatch
    ? sql` AND s.sort_key IN (SELECT rowid FROM member_search_fts WHERE member_search_fts MATCH ${c.textMatch})`
    : sql.raw("");

/**
 * Members online now: seen since `onlineSince` (the users_online index), each with their rows
 * found by member id (left to itself, SQLite may search a filter's index once per member online).
 */
const onlineFrom = (c: SearchContext) =>
  sql`FROM users u INDEXED BY users_online CROSS JOIN member_search s INDEXED BY member_search_user ON s.user_id = u.id WHERE ${onlineNow(c)}`;

/**
 * Up to this many members online, "online now" starts from them (the online plan); with more,
 * the other plans are cheaper: they stop at the cap or a full page, and most members active in
 * the last hour are online then.
 */
export const ONLINE_PLAN_LIMIT = 2000;

/** How many members are online now, counted in the index up to just past the limit. */
const onlineCount = (c: SearchContext) =>
  sql`(SELECT count(*) FROM (SELECT 1 FROM users u INDEXED BY users_online WHERE ${onlineNow(c)} LIMIT ${ONLINE_PLAN_LIMIT + 1}))`;

/**
 * Counts the members passing every filter but the keywords, up to the cap plus one (to tell
 * "exactly the cap" from "more"): in the covering index of the most selective filter, or among the
 * members online.
 */
export function countStatement(c: SearchContext, plan: "cover" | "online"): SQL {
  const limit = SEARCH_TOTAL_CAP + 1;
  if (plan === "online") {
    return sql`SELECT count(*) AS n FROM (SELECT 1 ${onlineFrom(c)} AND ${conditions(c, plan)} LIMIT ${limit})`;
  }
  return sql`SELECT count(*) AS n FROM (SELECT 1 ${coverFrom(c)} ${conditions(c)} LIMIT ${limit})`;
}

/**
 * Where "online now" is counted: in the covering index of a place (few entries), or else among
 * the members online, which stops at the cap as soon as enough of them match.
 */
const onlineCountPlan = (c: SearchContext) =>
  c.city || c.state || c.country ? ("cover" as const) : ("online" as const);

/** The plan of a first page with no match at all: it reads nothing. */
export const NO_MATCH = "none";

/**
 * How many rows (or, with keywords, full-text matches) a first page reads in result order, from
 * the top, before it falls back on counting in a covering index (see `walk` in choiceCtes).
 */
export const WALK_BUDGET = 2000;

/**
 * Where a first page walks from the top: with keywords, the full-text matches (in key order);
 * else the rows of the narrowest partition the filters name, in key order (city, state, country
 * or gender, whose indexes end with the row id: migrations/0013), or the whole table.
 */
function walkSource(c: SearchContext): { rows: SQL; candidates: SQL } {
  const budget = WALK_BUDGET;
  if (c.match) {
    const matches = sql`FROM member_search_fts WHERE member_search_fts MATCH ${c.match} AND rowid < ${KEY_CEILING}`;
    return {
      rows: sql`SELECT rowid AS k ${matches} ORDER BY rowid DESC LIMIT ${budget}`,
      candidates: sql`SELECT count(*) FROM (SELECT 1 ${matches} LIMIT ${budget})`,
    };
  }
  let from = sql.raw("member_search s NOT INDEXED WHERE");
  if (c.city) {
    from = sql`member_search s INDEXED BY member_search_in_city WHERE s.country = ${c.country} AND s.state = ${c.state} AND s.city = ${c.city} AND`;
  } else if (c.state) {
    from = sql`member_search s INDEXED BY member_search_in_state WHERE s.country = ${c.country} AND s.state = ${c.state} AND`;
  } else if (c.country) {
    from = sql`member_search s INDEXED BY member_search_in_country WHERE s.country = ${c.country} AND`;
  } else if (c.gender) {
    from = sql`member_search s INDEXED BY member_search_of_gender WHERE s.gender = ${c.gender} AND`;
  }
  const rows = sql`FROM ${from} s.sort_key < ${KEY_CEILING}`;
  return {
    rows: sql`SELECT s.sort_key AS k ${rows} ORDER BY s.sort_key DESC LIMIT ${budget}`,
    candidates: sql`SELECT count(*) FROM (SELECT 1 ${rows} LIMIT ${budget})`,
  };
}

/**
 * The walk of a first page: the matches among the first WALK_BUDGET rows of its source
 * (walkSource) in key order, up to the cap plus one. The keys come from a subquery SQLite runs as
 * a co-routine, in key order, and each row is then found by key, so the walk stops at the cap plus
 * one or at the budget, whichever comes first.
 */
export function walkStatement(c: SearchContext): SQL {
  return sql`SELECT s.sort_key AS sortKey, s.user_id AS userId FROM (${walkSource(c).rows}) w CROSS JOIN member_search s ON s.sort_key = w.k WHERE ${conditions(c)} LIMIT ${SEARCH_TOTAL_CAP + 1}`;
}

/**
 * Whether a first page starts with the walk: when the page ends within the cap (page numbers deep
 * into a result do not), and when matches are likely to be dense among the top rows. Keywords
 * with a place, and age ranges under ten years, match too few of them (bench/search/compare.ts:
 * the walk then reads its 2,000 rows for nothing), so those go straight to the counted plans; so
 * does "online now", which starts from the members online (with few online, the top rows of the
 * last hours hold none of them).
 */
export const walks = (c: SearchContext, end: number) =>
  end <= SEARCH_TOTAL_CAP + 1 &&
  !c.onlineSince &&
  !(c.custom && c.custom.to - c.custom.from < NARROW_AGES);

/**
 * `walk`, `counts` and `choice`: what the first page's statement decides before it reads the
 * page.
 *   - walk: the matches (keywords included) among the first WALK_BUDGET rows in result order, up
 *     to the cap plus one: when it finds that many, they are the top of the results, the total
 *     is "more than the cap" and nothing is counted;
 *   - n: otherwise, the members that pass every filter but the keywords, counted up to just past
 *     the cap in the covering index of the most selective filter (or among the members online);
 *   - plan: the online plan with few members online, else "pk" (or "fts" with keywords) when more
 *     than the cap match, else "cover"; NO_MATCH when nothing passes the filters.
 * Without keywords, n is the total. With keywords, the total comes from the page's own read
 * (firstPageCtes), which then reads up to the cap plus one. SQLite evaluates a CASE branch only
 * when it is taken, so a full walk counts nothing.
 */
function choiceCtes(c: SearchContext, end: number): SQL {
  const many = c.match ? "fts" : "pk";
  const probe = countStatement(c, c.onlineSince ? onlineCountPlan(c) : "cover");
  const online = c.onlineSince ? onlineCount(c) : sql.raw("NULL");
  const full = SEARCH_TOTAL_CAP + 1;
  // The walk decides alone when it found the cap plus one, or when its source held fewer rows
  // than the budget (it then saw every match: the total is exact).
  const walk = walks(c, end)
    ? sql`walk AS MATERIALIZED (${walkStatement(c)}),
      walked AS MATERIALIZED (SELECT n, CASE WHEN n >= ${full} THEN 1 ELSE (${walkSource(c).candidates}) < ${WALK_BUDGET} END AS whole
        FROM (SELECT count(*) AS n FROM walk)),`
    : sql`walked AS MATERIALIZED (SELECT 0 AS n, 0 AS whole),`;
  // Each count is a CTE of its own, so that it runs once however often its value is read.
  return sql`${walk}
    counts AS MATERIALIZED (SELECT whole AS walked,
        CASE WHEN whole THEN n ELSE (${probe}) END AS n, ${online} AS online
      FROM walked),
    choice AS MATERIALIZED (SELECT n, walked, CASE
        WHEN n = 0 THEN ${NO_MATCH}
        WHEN online IS NOT NULL AND online <= ${ONLINE_PLAN_LIMIT} THEN 'online'
        WHEN n > ${SEARCH_TOTAL_CAP} THEN ${many}
        ELSE 'cover' END AS plan
      FROM counts)`;
}

/**
 * The first page's members, read with the plan `choice` picked: every plan's page is in the
 * statement, and all but the chosen one have LIMIT 0, which SQLite checks before reading a row.
 * The chosen one reads the rows up to the end of the page, in result order, numbered (`rn`);
 * with keywords, up to the cap plus one at least, which gives the total from the same read.
 */
function firstPageArms(c: SearchContext, end: number): SQL {
  const read = c.textMatch ? Math.max(end, SEARCH_TOTAL_CAP + 1) : end;
  const plans: SearchPlan[] = [
    c.onlineSince ? "online" : null,
    c.match ? "fts" : "pk",
    "cover",
  ].filter((p): p is SearchPlan => p !== null);
  const arms = plans.map(
    (plan) =>
      sql`SELECT * FROM (${pageStatement(c, plan, KEY_CEILING, sql`CASE WHEN (SELECT plan FROM choice WHERE NOT walked) = ${plan} THEN ${read} ELSE 0 END`)})`,
  );
  if (walks(c, end)) {
    arms.unshift(
      sql`SELECT * FROM (SELECT sortKey, userId FROM walk LIMIT CASE WHEN (SELECT walked FROM choice) THEN ${end} ELSE 0 END)`,
    );
  }
  return sql`SELECT sortKey, userId, row_number() OVER (ORDER BY sortKey DESC) AS rn FROM (${sql.join(arms, sql` UNION ALL `)})`;
}

/**
 * The CTEs of a first page: `counts` and `choice` (counts and plan), `page` (the rows read,
 * numbered) and `total`, each computed once. The searcher's values are bound (`c.terms`): read
 * from a CTE of the profile in the statement, each of its sixteen reads of them was a subquery
 * that SQLite prepared and ran, 43 % of a first page's database time (docs/decisions/010).
 */
export function firstPageCtes(c: SearchContext, end: number): SQL {
  const total = c.textMatch
    ? sql.raw("(SELECT CASE WHEN walked THEN n ELSE (SELECT count(*) FROM page) END FROM choice)")
    : sql.raw("(SELECT n FROM choice)");
  return sql`WITH ${choiceCtes(c, end)},
      page AS MATERIALIZED (${firstPageArms(c, end)}),
      total AS MATERIALIZED (SELECT ${total} AS total)`;
}

/** One page of (sort_key, user_id), best first, after `after` (a sort key). */
export function pageStatement(
  c: SearchContext,
  plan: SearchPlan,
  after: number,
  limit: number | SQL,
): SQL {
  const select = sql.raw("SELECT s.sort_key AS sortKey, s.user_id AS userId");
  const order = sql`ORDER BY s.sort_key DESC LIMIT ${limit}`;
  if (plan === "fts") {
    return sql`${select} FROM member_search_fts f CROSS JOIN member_search s ON s.sort_key = f.rowid WHERE f.member_search_fts MATCH ${c.match} AND f.rowid < ${after} AND ${conditions(c)} ORDER BY f.rowid DESC LIMIT ${limit}`;
  }
  const keywords = keywordCondition(c);
  if (plan === "online") {
    return sql`${select} ${onlineFrom(c)} AND s.sort_key < ${after} AND ${conditions(c, plan)}${keywords} ${order}`;
  }
  if (plan === "pk") {
    return sql`${select} FROM member_search s NOT INDEXED WHERE s.sort_key < ${after} AND ${conditions(c)}${keywords} ${order}`;
  }
  return sql`${select} ${coverFrom(c)} s.sort_key < ${after} AND ${conditions(c)}${keywords} ${order}`;
}
