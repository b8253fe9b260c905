import { z } from "zod";
import { ageOn } from "~/lib/age";
import {
  SEARCH_AGE,
  SEARCH_MESSAGES,
  SEARCH_TOTAL_CAP,
  type SearchCard,
  type SearchFilters,
  type SearchRequest,
  type SearchResponse,
} from "~/schemas/search";
import { schema } from "./db.server";
import { allRows, type DbTime } from "./db-time.server";
import type { Env } from "./env.server";
import { hmacSign, hmacVerify } from "./crypto.server";
import { notFound, ValidationError } from "./errors.server";
import {
  cardColumns,
  ONLINE_WINDOW_MS,
  toMemberCard,
  type CardRow as MemberRow,
} from "./members.server";
import { join, prepare, q, raw, selection, type Fragment } from "./search-sql.server";

/**
 * Member search (SPEC.md §2 and §4 "Search", API.md "Discovery, likes and matches").
 *
 * The rows come from `member_search` (app/server/db/discovery.ts), which the database keeps in
 * step with members through triggers, and its full-text table `member_search_fts`.
 *
 * Who is never found: the searcher, members either side has blocked, members who are not
 * searchable (unverified, suspended, hidden by reports: they have no rows). Who is found: members
 * whose age is in the searcher's desired range (or the range the filters ask for) and whose
 * desired range holds the searcher's age, filtered further by the filters and keywords.
 *
 * Order: highest `sort_key` first, i.e. last active hour, then profile completeness, then the
 * newest change (see the table's comment). Paging: every page reads the rows as they were at
 * `as_of` (the first page's time) and continues after the last key shown, so loading more never
 * repeats or skips anyone while members join, leave or change.
 *
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
 * The total is counted once, on the first page, up to SEARCH_TOTAL_CAP. Snapshot times come from
 * the Worker's clock and the rows are stamped by the database's: a skew between the two only
 * shows a change that much later, since a change closes a member's old row at the very time it
 * opens the new one, so at any time each member has exactly one row in a snapshot. (Reading the
 * clock inside the statement instead makes SQLite evaluate it again for every row examined.)
 */

/** Width of one (bucket, completeness) range of sort keys (see member_search). */
const KEY_RANGE = 2 ** 30;
/** Above every sort key: the "after" of a first page. */
const KEY_CEILING = Number.MAX_SAFE_INTEGER;
/** How old a paging cursor may be; closed rows are kept for a day, so it stays below that. */
export const SNAPSHOT_MAX_AGE_MS = 12 * 60 * 60_000;

export type SearchPlan = "cover" | "pk" | "fts" | "online";

/** The searcher's date of birth and desired age range (their profile). */
export interface Searcher {
  dob: string;
  ageMin: number;
  ageMax: number;
}

/** YYYY-MM-DD such that someone born on or before it is at least `years` old on `today` (UTC). */
export function bornBy(today: Date, years: number): string {
  const y = String(today.getUTCFullYear() - years).padStart(4, "0");
  const m = String(today.getUTCMonth() + 1).padStart(2, "0");
  const d = String(today.getUTCDate()).padStart(2, "0");
  return `${y}-${m}-${d}`;
}

/** Words of the keywords, as the full-text tokenizer splits them (letters and digits). */
export function keywordTokens(keywords: string): string[] {
  const tokens = keywords.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  return [...new Set(tokens)].slice(0, 8);
}

const hexOf = (text: string) =>
  Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * An interest as the one token the index stores for it: the hex of its UTF-8 text after the same
 * trimming and lower-casing (ASCII letters only) as SQLite's trim() and lower().
 */
export function interestToken(interest: string): string {
  return hexOf(interest.replace(/^ +| +$/g, "").replace(/[A-Z]/g, (c) => c.toLowerCase()));
}

/** The place filters, as the index also stores them in `tags` (see placeTokens). */
export interface Place {
  country?: string;
  state?: string;
  city?: string;
}

/**
 * The tokens of the place filters given, as `member_search_source` writes them into `tags`
 * (migrations/0017): a letter that is not a hex digit (n country, p state, y city), then the hex of
 * the value exactly as `member_search` stores it, so that a token matches exactly when the column
 * equals the filter. Interest tokens are hex alone, so the two never collide. (Gender has no token:
 * it passes about half of the members, so checking it on each row costs less than intersecting
 * its list of half the site in the full-text index.)
 */
export function placeTokens(p: Place): string[] {
  const pairs: [string, string | undefined][] = [
    ["n", p.country],
    ["p", p.state],
    ["y", p.city],
  ];
  return pairs.filter((e): e is [string, string] => Boolean(e[1])).map(([l, v]) => l + hexOf(v));
}

/**
 * The full-text query for keywords and interests, or null when there are neither. Every word must
 * match the start of a word of the username, first name, bio or interests; any one of the
 * interests must be among the member's. With either, the place filters given are tokens of the
 * same query (placeTokens), so that the full-text index yields only the members of that place,
 * already in result order. Built from tokens only, so no input is read as FTS syntax.
 */
export function matchExpression(
  keywords: string,
  interests: string[],
  place: Place = {},
): string | null {
  const parts: string[] = [];
  const words = keywordTokens(keywords);
  if (words.length) {
    parts.push(
      `{username first_name bio interests} : (${words.map((w) => `"${w}"*`).join(" AND ")})`,
    );
  }
  if (interests.length) {
    parts.push(`tags : (${interests.map((i) => `"${interestToken(i)}"`).join(" OR ")})`);
  }
  if (!parts.length) return null;
  const places = placeTokens(place).map((t) => `"${t}"`);
  if (places.length) parts.push(`tags : (${places.join(" AND ")})`);
  return parts.join(" AND ");
}

/** The searcher-dependent values of a search, as SQL: bound values, or reads of the `me` CTE. */
interface Terms {
  asOf: Fragment;
  myAge: Fragment;
  bornAfter: Fragment;
  bornUpTo: Fragment;
  onlineFloor: Fragment;
}

/**
 * What a search asks for (the request, the searcher, the clock of `online_only`) and the searcher's
 * values at the snapshot, as `terms`. Built from known values (`buildContext`), or, for the first
 * page, from the `me` CTE that reads the profile in the same statement.
 */
export interface SearchContext {
  me: string;
  gender?: string;
  country?: string;
  state?: string;
  city?: string;
  withPhoto: boolean;
  /** Members online are those seen since then (null: no online filter). */
  onlineSince: string | null;
  match: string | null;
  /** The age range the filters ask for, or null for the searcher's own desired range. */
  custom: { from: number; to: number } | null;
  terms: Terms;
}

/** The searcher's values at a snapshot: what the first page resolves and the cursor carries. */
export interface Resolved {
  asOf: number;
  myAge: number;
  ageFrom: number;
  ageTo: number;
}

const onlineFloorKey = (asOf: number) =>
  Math.floor((asOf - ONLINE_WINDOW_MS) / 3_600_000) * 4 * KEY_RANGE;

function valueTerms(r: Resolved): Terms {
  const today = new Date(r.asOf);
  return {
    asOf: q`${r.asOf}`,
    myAge: q`${r.myAge}`,
    bornAfter: q`${bornBy(today, r.ageTo + 1)}`,
    bornUpTo: q`${bornBy(today, r.ageFrom)}`,
    // A member online at `asOf` was active in this hour or the one before, so their row at
    // `asOf` has a key from that hour's range or above.
    onlineFloor: q`${onlineFloorKey(r.asOf)}`,
  };
}

/**
 * The terms of a first page at `asOf`: the clock's values bound, the searcher's read from `me` (see
 * meQuery) in the same statement.
 */
function snapshotTerms(asOf: number): Terms {
  return {
    asOf: q`${asOf}`,
    myAge: raw("(SELECT my_age FROM me)"),
    bornAfter: raw("(SELECT born_after FROM me)"),
    bornUpTo: raw("(SELECT born_up_to FROM me)"),
    onlineFloor: q`${onlineFloorKey(asOf)}`,
  };
}

function queryOf(
  me: string,
  filters: SearchFilters,
  keywords: string,
  terms: Terms,
): SearchContext {
  const custom = filters.age_min !== undefined || filters.age_max !== undefined;
  const place: Place = {
    country: filters.country,
    state: filters.state,
    city: filters.city?.toLowerCase(),
  };
  return {
    me,
    gender: filters.gender,
    ...place,
    withPhoto: filters.with_photo,
    onlineSince: filters.online_only ? new Date(Date.now() - ONLINE_WINDOW_MS).toISOString() : null,
    match: matchExpression(keywords, filters.interests, place),
    custom: custom
      ? { from: filters.age_min ?? SEARCH_AGE.min, to: filters.age_max ?? SEARCH_AGE.max }
      : null,
    terms,
  };
}

/** Resolves a request against the searcher's profile at snapshot time `asOf` (pure). */
export function buildContext(
  me: string,
  searcher: Searcher,
  filters: SearchFilters,
  keywords: string,
  asOf: number,
): SearchContext {
  const base = queryOf(me, filters, keywords, snapshotTerms(asOf));
  return { ...base, terms: valueTerms(resolve(base, searcher, asOf)) };
}

function resolve(c: SearchContext, searcher: Searcher, asOf: number): Resolved {
  return {
    asOf,
    myAge: ageOn(searcher.dob, new Date(asOf)),
    ageFrom: c.custom ? c.custom.from : searcher.ageMin,
    ageTo: c.custom ? c.custom.to : searcher.ageMax,
  };
}

/**
 * `me`: the searcher's values read from their profile, with the same arithmetic as `resolve`,
 * `bornBy` and `ageOn` (UTC dates as text) on the date of `asOf`.
 */
function meQuery(c: SearchContext, asOf: number): Fragment {
  const today = new Date(asOf);
  const y = today.getUTCFullYear();
  const md = bornBy(today, 0).slice(4);
  return q`SELECT my_age, age_from, age_to,
      printf('%04d', ${y} - age_to - 1) || ${md} AS born_after,
      printf('%04d', ${y} - age_from) || ${md} AS born_up_to
    FROM (
      SELECT ${y} - CAST(substr(p.date_of_birth, 1, 4) AS INTEGER)
          - (${md.slice(1)} < substr(p.date_of_birth, 6)) AS my_age,
        coalesce(${c.custom?.from ?? null}, p.age_min) AS age_from,
        coalesce(${c.custom?.to ?? null}, p.age_max) AS age_to
      FROM profiles p
      WHERE p.user_id = ${c.me}
    )`;
}

/**
 * Whether the member of `users u` is online now: seen since `onlineSince` and not hiding it. The
 * one reading of "online now" in search (with the partial index users_online on last_seen_at),
 * whoever writes last_seen_at.
 */
const onlineNow = (c: SearchContext) => q`u.last_seen_at >= ${c.onlineSince} AND u.hide_online = 0`;

/**
 * Every condition but the keywords and the paging position, on `member_search s` (or the rows of
 * member_search under another alias).
 */
function conditions(c: SearchContext, plan?: SearchPlan, alias = "s"): Fragment {
  const t = c.terms;
  const s = raw(alias);
  const parts = [
    q`${s}.valid_from <= ${t.asOf} AND (${s}.valid_to IS NULL OR ${s}.valid_to > ${t.asOf})`,
    q`${s}.user_id <> ${c.me}`,
    q`${s}.birth > ${t.bornAfter} AND ${s}.birth <= ${t.bornUpTo}`,
    q`${s}.age_min <= ${t.myAge} AND ${s}.age_max >= ${t.myAge}`,
  ];
  if (c.gender) parts.push(q`${s}.gender = ${c.gender}`);
  if (c.country) parts.push(q`${s}.country = ${c.country}`);
  if (c.state) parts.push(q`${s}.state = ${c.state}`);
  if (c.city) parts.push(q`${s}.city = ${c.city}`);
  if (c.withPhoto) parts.push(q`${s}.has_photo = 1`);
  // The online plan starts from the members online; the others check each row (its key first:
  // a member online at the snapshot has a key from the last hour or two, in every index entry).
  if (c.onlineSince && plan !== "online") {
    parts.push(
      q`${s}.sort_key >= ${t.onlineFloor} AND EXISTS (SELECT 1 FROM users u WHERE u.id = ${s}.user_id AND ${onlineNow(c)})`,
    );
  }
  // Either side's block hides the member (the rule of visibility.server.ts's notBlockedWith),
  // written as one list read once per statement rather than two lookups for every row examined.
  parts.push(
    q`${s}.user_id NOT IN (SELECT b.blocked_id FROM blocks b WHERE b.blocker_id = ${c.me} UNION ALL SELECT b.blocker_id FROM blocks b WHERE b.blocked_id = ${c.me})`,
  );
  return join(parts, " AND ");
}

/** An age range the filters ask for that is narrower than this many years reads by_age_min. */
const NARROW_AGES = 10;

/** Whether the filters ask for a narrow age range (and no place, whose indexes are narrower). */
const narrowAges = (c: SearchContext) =>
  Boolean(c.custom && c.custom.to - c.custom.from < NARROW_AGES && !c.country);

/** The covering index that leads with the most selective filter given. */
function coverIndex(c: SearchContext): Fragment {
  if (c.city) return raw("member_search_by_city");
  if (c.state) return raw("member_search_by_state");
  if (c.country) return raw("member_search_by_country");
  if (narrowAges(c)) return raw("member_search_by_age_min");
  if (c.gender) return raw("member_search_by_gender");
  return raw("member_search_by_age");
}

/**
 * The rows of the cover plan: its covering index, and with a narrow age range one search of
 * `member_search_by_age_min` per lower bound that admits the searcher (from the youngest age to
 * theirs), each for the range's dates of birth: only members whose own range can hold the searcher's
 * age are read. Over a few years of birth, most members of an age far from the searcher's have a
 * range without it: read by date of birth, they were all read to find none (migrations/0017).
 */
function coverFrom(c: SearchContext): Fragment {
  const from = q`FROM member_search s INDEXED BY ${coverIndex(c)} WHERE`;
  if (!narrowAges(c)) return from;
  return q`${from} s.age_min IN (WITH RECURSIVE lower_bound(v) AS (SELECT ${SEARCH_AGE.min} UNION ALL SELECT v + 1 FROM lower_bound WHERE v < ${c.terms.myAge}) SELECT v FROM lower_bound) AND`;
}

/**
 * The keywords as a condition on a row: its key among the full-text matches, a list SQLite reads
 * once per statement (a probe of the full-text index for every row would parse the query each time).
 */
const keywordCondition = (c: SearchContext) =>
  c.match
    ? q` AND s.sort_key IN (SELECT rowid FROM member_search_fts WHERE member_search_fts MATCH ${c.match})`
    : raw("");

/**
 * Members online now: seen since `onlineSince` (the users_online index), each with their rows
 * found by member id (left to itself, SQLite may search a filter's index once per member online).
 */
const onlineFrom = (c: SearchContext) =>
  q`FROM users u INDEXED BY users_online CROSS JOIN member_search s INDEXED BY member_search_user ON s.user_id = u.id WHERE ${onlineNow(c)}`;

/**
 * Up to this many members online, "online now" starts from them (the online plan); with more,
 * the other plans are cheaper: they stop at the cap or a full page, and most members active in
 * the last hour are online then.
 */
export const ONLINE_PLAN_LIMIT = 2000;

/** How many members are online now, counted in the index up to just past the limit. */
const onlineCount = (c: SearchContext) =>
  q`(SELECT count(*) FROM (SELECT 1 FROM users u INDEXED BY users_online WHERE ${onlineNow(c)} LIMIT ${ONLINE_PLAN_LIMIT + 1}))`;

/**
 * Counts the members passing every filter but the keywords, up to the cap plus one (to tell
 * "exactly the cap" from "more"): in the covering index of the most selective filter, or among the
 * members online.
 */
export function countStatement(c: SearchContext, plan: "cover" | "online"): Fragment {
  const limit = SEARCH_TOTAL_CAP + 1;
  if (plan === "online") {
    return q`SELECT count(*) AS n FROM (SELECT 1 ${onlineFrom(c)} AND ${conditions(c, plan)} LIMIT ${limit})`;
  }
  return q`SELECT count(*) AS n FROM (SELECT 1 ${coverFrom(c)} ${conditions(c)} LIMIT ${limit})`;
}

/**
 * Where "online now" is counted: in the covering index of a place (few entries), or else among
 * the members online, which stops at the cap as soon as enough of them match.
 */
const onlineCountPlan = (c: SearchContext) =>
  c.city || c.state || c.country ? ("cover" as const) : ("online" as const);

/** The plan of a first page with no match at all: it reads nothing. */
const NO_MATCH = "none";

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
function walkSource(c: SearchContext): { rows: Fragment; candidates: Fragment } {
  const budget = WALK_BUDGET;
  if (c.match) {
    const matches = q`FROM member_search_fts WHERE member_search_fts MATCH ${c.match} AND rowid < ${KEY_CEILING}`;
    return {
      rows: q`SELECT rowid AS k ${matches} ORDER BY rowid DESC LIMIT ${budget}`,
      candidates: q`SELECT count(*) FROM (SELECT 1 ${matches} LIMIT ${budget})`,
    };
  }
  let from = raw("member_search s NOT INDEXED WHERE");
  if (c.city) {
    from = q`member_search s INDEXED BY member_search_in_city WHERE s.country = ${c.country} AND s.state = ${c.state} AND s.city = ${c.city} AND`;
  } else if (c.state) {
    from = q`member_search s INDEXED BY member_search_in_state WHERE s.country = ${c.country} AND s.state = ${c.state} AND`;
  } else if (c.country) {
    from = q`member_search s INDEXED BY member_search_in_country WHERE s.country = ${c.country} AND`;
  } else if (c.gender) {
    from = q`member_search s INDEXED BY member_search_of_gender WHERE s.gender = ${c.gender} AND`;
  }
  const rows = q`FROM ${from} s.sort_key < ${KEY_CEILING}`;
  return {
    rows: q`SELECT s.sort_key AS k ${rows} ORDER BY s.sort_key DESC LIMIT ${budget}`,
    candidates: q`SELECT count(*) FROM (SELECT 1 ${rows} LIMIT ${budget})`,
  };
}

/**
 * The walk of a first page: the matches among the first WALK_BUDGET rows of its source
 * (walkSource) in key order, up to the cap plus one. The keys come from a subquery SQLite runs as
 * a co-routine, in key order, and each row is then found by key, so the walk stops at the cap plus
 * one or at the budget, whichever comes first.
 */
export function walkStatement(c: SearchContext): Fragment {
  return q`SELECT s.sort_key AS sortKey, s.user_id AS userId FROM (${walkSource(c).rows}) w CROSS JOIN member_search s ON s.sort_key = w.k WHERE ${conditions(c)} LIMIT ${SEARCH_TOTAL_CAP + 1}`;
}

/**
 * Whether a first page starts with the walk: when the page ends within the cap (page numbers deep
 * into a result do not), and when matches are likely to be dense among the top rows. Keywords
 * with a place, and age ranges under ten years, match too few of them (bench/search/compare.ts:
 * the walk then reads its 2,000 rows for nothing), so those go straight to the counted plans; so
 * does "online now", which starts from the members online (with few online, the top rows of the
 * last hours hold none of them).
 */
const walks = (c: SearchContext, end: number) =>
  end <= SEARCH_TOTAL_CAP + 1 &&
  !c.onlineSince &&
  !(c.custom && c.custom.to - c.custom.from < NARROW_AGES);

/**
 * `walk`, `counts` and `choice`: what the first page's statement decides before it reads the page
 * (on the terms of `me`).
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
function choiceCtes(c: SearchContext, end: number): Fragment {
  const many = c.match ? "fts" : "pk";
  const probe = countStatement(c, c.onlineSince ? onlineCountPlan(c) : "cover");
  const online = c.onlineSince ? onlineCount(c) : raw("NULL");
  const full = SEARCH_TOTAL_CAP + 1;
  // The walk decides alone when it found the cap plus one, or when its source held fewer rows
  // than the budget (it then saw every match: the total is exact).
  const walk = walks(c, end)
    ? q`walk AS MATERIALIZED (${walkStatement(c)}),
      walked AS MATERIALIZED (SELECT n, CASE WHEN n >= ${full} THEN 1 ELSE (${walkSource(c).candidates}) < ${WALK_BUDGET} END AS whole
        FROM (SELECT count(*) AS n FROM walk)),`
    : q`walked AS MATERIALIZED (SELECT 0 AS n, 0 AS whole),`;
  // Each count is a CTE of its own, so that it runs once however often its value is read.
  return q`${walk}
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
function firstPageArms(c: SearchContext, end: number): Fragment {
  const read = c.match ? Math.max(end, SEARCH_TOTAL_CAP + 1) : end;
  const plans: SearchPlan[] = [
    c.onlineSince ? "online" : null,
    c.match ? "fts" : "pk",
    "cover",
  ].filter((p): p is SearchPlan => p !== null);
  const arms = plans.map(
    (plan) =>
      q`SELECT * FROM (${pageStatement(c, plan, KEY_CEILING, q`CASE WHEN (SELECT plan FROM choice WHERE NOT walked) = ${plan} THEN ${read} ELSE 0 END`)})`,
  );
  if (walks(c, end)) {
    arms.unshift(
      q`SELECT * FROM (SELECT sortKey, userId FROM walk LIMIT CASE WHEN (SELECT walked FROM choice) THEN ${end} ELSE 0 END)`,
    );
  }
  return q`SELECT sortKey, userId, row_number() OVER (ORDER BY sortKey DESC) AS rn FROM (${join(arms, " UNION ALL ")})`;
}

/**
 * The CTEs of a first page: `me` (the searcher's values), `counts` and `choice` (counts and
 * plan), `page` (the rows read, numbered) and `total`, each computed once.
 */
function firstPageCtes(c: SearchContext, asOf: number, end: number): Fragment {
  const total = c.match
    ? raw("(SELECT CASE WHEN walked THEN n ELSE (SELECT count(*) FROM page) END FROM choice)")
    : raw("(SELECT n FROM choice)");
  return q`WITH me AS MATERIALIZED (${meQuery(c, asOf)}), ${choiceCtes(c, end)},
      page AS MATERIALIZED (${firstPageArms(c, end)}),
      total AS MATERIALIZED (SELECT ${total} AS total)`;
}

/** One page of (sort_key, user_id), best first, after `after` (a sort key). */
export function pageStatement(
  c: SearchContext,
  plan: SearchPlan,
  after: number,
  limit: number | Fragment,
): Fragment {
  const select = raw("SELECT s.sort_key AS sortKey, s.user_id AS userId");
  const order = q`ORDER BY s.sort_key DESC LIMIT ${limit}`;
  if (plan === "fts") {
    return q`${select} FROM member_search_fts f CROSS JOIN member_search s ON s.sort_key = f.rowid WHERE f.member_search_fts MATCH ${c.match} AND f.rowid < ${after} AND ${conditions(c)} ORDER BY f.rowid DESC LIMIT ${limit}`;
  }
  const keywords = keywordCondition(c);
  if (plan === "online") {
    return q`${select} ${onlineFrom(c)} AND s.sort_key < ${after} AND ${conditions(c, plan)}${keywords} ${order}`;
  }
  if (plan === "pk") {
    return q`${select} FROM member_search s NOT INDEXED WHERE s.sort_key < ${after} AND ${conditions(c)}${keywords} ${order}`;
  }
  return q`${select} ${coverFrom(c)} s.sort_key < ${after} AND ${conditions(c)}${keywords} ${order}`;
}

// Paging cursor: where the last page ended, the snapshot and the searcher's values then, the
// plan and the first page's total. Signed, so that the server can take its values as its own.

const cursorSchema = z.object({
  v: z.literal(1),
  /** The search it belongs to (queryKey). */
  q: z.string(),
  /** Snapshot time, ms. */
  t: z.number().int(),
  /** Last sort key shown. */
  k: z.number().int(),
  p: z.enum(["cover", "pk", "fts", "online"]),
  n: z.number().int().min(0),
  c: z.boolean(),
  pg: z.number().int().min(1),
  age: z.number().int(),
  from: z.number().int(),
  to: z.number().int(),
});
type Cursor = z.infer<typeof cursorSchema>;

const b64url = (text: string) =>
  btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

async function encodeCursor(env: Env, me: string, cursor: Cursor): Promise<string> {
  const body = b64url(JSON.stringify(cursor));
  return `${body}.${await hmacSign(env.APP_KEY, `search-cursor:${me}:${body}`)}`;
}

async function decodeCursor(env: Env, me: string, text: string): Promise<Cursor | null> {
  const [body, mac, extra] = text.split(".");
  if (!body || !mac || extra !== undefined) return null;
  if (!(await hmacVerify(env.APP_KEY, `search-cursor:${me}:${body}`, mac))) return null;
  try {
    const parsed = cursorSchema.safeParse(
      JSON.parse(atob(body.replace(/-/g, "+").replace(/_/g, "/"))),
    );
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** What identifies the question asked, so that a cursor is only used for the search it came from. */
function queryKey(c: SearchContext): string {
  const text = JSON.stringify([
    c.match,
    c.custom,
    c.gender ?? null,
    c.country ?? null,
    c.state ?? null,
    c.city ?? null,
    c.withPhoto,
    c.onlineSince !== null,
  ]);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

const expired = () => new ValidationError({ cursor: [SEARCH_MESSAGES.cursor] });

/** Whether the searcher likes the member of the row (`users`). */
const likedBy = (me: string) =>
  q`EXISTS (SELECT 1 FROM likes l WHERE l.liker_id = ${me} AND l.liked_id = users.id)`;

/** What a search card shows besides the member card, on `profiles`. */
const searchCardText = { bio: schema.profiles.bio, interests: schema.profiles.interests };

/** A search card's columns on `users` and `profiles`, for raw statements. */
const cardSelection = selection(cardColumns);
const textSelection = selection(searchCardText);

/** A page's member as a statement reads it: the card, bio and interests, liked, the sort key. */
interface CardRow {
  card: MemberRow;
  bio: string;
  interests: string[];
  liked: number;
  sortKey: number;
}

const readCard = (row: Record<string, unknown>): CardRow => ({
  card: cardSelection.read(row) as MemberRow,
  ...(textSelection.read(row) as Pick<CardRow, "bio" | "interests">),
  liked: row.liked as number,
  sortKey: row.sortKey as number,
});

/**
 * The cards of a page of a known plan (load more): the page's rows (sortKey, userId), then each
 * member found by id (CROSS JOIN keeps that order).
 */
function cardsStatement(c: SearchContext, page: Fragment): Fragment {
  return q`SELECT ${raw(cardSelection.text)}, ${raw(textSelection.text)}, ${likedBy(c.me)} AS liked,
      pg.sortKey AS sortKey
    FROM (${page}) pg CROSS JOIN users JOIN profiles ON profiles.user_id = users.id
    WHERE users.id = pg.userId`;
}

/** What a first page tells besides its cards: the searcher's values, the total and the plan. */
interface FirstPageHead {
  total: number;
  plan: SearchPlan | typeof NO_MATCH;
  myAge: number;
  ageFrom: number;
  ageTo: number;
}

/**
 * A first page in one statement: `me` (the searcher's values), `counts` and `choice` (counts and
 * plan) and `page` (its rows), each computed once, then the cards of the page's members, found
 * by id (CROSS JOIN keeps that order), each row carrying what the cursor and the meta need; a page
 * without a card is one row without a card (LEFT JOIN), so that it needs no second statement.
 * Written without drizzle so that every value is bound once (see `prepare`). No head: the
 * searcher has no profile.
 */
async function firstPage(
  env: Env,
  c: SearchContext,
  asOf: number,
  limit: number,
  offset: number,
  time?: DbTime | null,
): Promise<{ head: FirstPageHead | null; rows: CardRow[] }> {
  const results = await allRows<Record<string, unknown>>(
    prepare(env.DB, firstPageStatement(c, asOf, limit, offset)),
    time,
  );
  const first = results[0];
  return {
    head: first
      ? {
          total: first.total as number,
          plan: first.plan as FirstPageHead["plan"],
          myAge: first.myAge as number,
          ageFrom: first.ageFrom as number,
          ageTo: first.ageTo as number,
        }
      : null,
    rows: results.filter((row) => row.sortKey !== null).map(readCard),
  };
}

function firstPageStatement(c: SearchContext, asOf: number, limit: number, offset: number) {
  return q`${firstPageCtes(c, asOf, offset + limit)}
    SELECT card.*, total.total AS total, choice.plan AS plan, me.my_age AS myAge,
      me.age_from AS ageFrom, me.age_to AS ageTo
    FROM me, choice, total LEFT JOIN (
      SELECT ${raw(cardSelection.text)}, ${raw(textSelection.text)}, ${likedBy(c.me)} AS liked,
        page.sortKey AS sortKey
      FROM page CROSS JOIN users JOIN profiles ON profiles.user_id = users.id
      WHERE page.rn > ${offset} AND users.id = page.userId
    ) card ON 1`;
}

/**
 * The searcher's values and the total of a first page without its cards (what explainSearch needs
 * to build the statements of later pages); none when the searcher has no profile.
 */
const headStatement = (c: SearchContext, asOf: number, end: number) =>
  q`${firstPageCtes(c, asOf, end)} SELECT me.my_age AS myAge, me.age_from AS ageFrom, me.age_to AS ageTo, total.total AS total FROM me, total`;

function toSearchCards(rows: CardRow[], now: number) {
  return rows
    .sort((a, b) => b.sortKey - a.sortKey)
    .map((row) => ({
      card: {
        ...toMemberCard(row.card, now),
        bio: row.bio,
        interests: row.interests,
        liked: Boolean(row.liked),
      } satisfies SearchCard,
      sortKey: row.sortKey,
    }));
}

/**
 * POST and GET /my/matches/search and /dashboard/search: one page of search cards and the paging
 * meta of API.md, plus `cursor` (pass it back for the next page) and `as_of`.
 *
 * A first page is one statement (firstPage): the searcher's values, the bounded counts that
 * choose the plan, and the page's cards, even when it has none. Loading more is one statement
 * too.
 */
export async function searchMembers(
  env: Env,
  me: string,
  request: SearchRequest,
  now = Date.now(),
  time?: DbTime | null,
): Promise<SearchResponse> {
  const perPage = request.per_page;
  const base = queryOf(me, request.filters, request.keywords, snapshotTerms(now));
  let resolved: Resolved;
  let plan: SearchPlan;
  let total: number;
  let capped: boolean;
  let after = KEY_CEILING;
  let offset = 0;
  let page = request.page;
  let rows: CardRow[];

  if (request.cursor) {
    const cursor = await decodeCursor(env, me, request.cursor);
    if (!cursor || cursor.q !== queryKey(base)) throw expired();
    if (cursor.t < now - SNAPSHOT_MAX_AGE_MS || cursor.t > now + 60_000) throw expired();
    resolved = { asOf: cursor.t, myAge: cursor.age, ageFrom: cursor.from, ageTo: cursor.to };
    ({ p: plan, n: total, c: capped, k: after } = cursor);
    page = cursor.pg + 1;
    const context = { ...base, terms: valueTerms(resolved) };
    rows = (
      await allRows<Record<string, unknown>>(
        prepare(env.DB, cardsStatement(context, pageStatement(context, plan, after, perPage + 1))),
        time,
      )
    ).map(readCard);
  } else {
    offset = (page - 1) * perPage;
    const found = await firstPage(env, base, now, perPage + 1, offset, time);
    const head = found.head;
    if (!head) throw notFound("Profile not found.");
    resolved = { asOf: now, myAge: head.myAge, ageFrom: head.ageFrom, ageTo: head.ageTo };
    // Rows exist only when some plan read them, so `plan` is then one of the four.
    plan = found.rows.length && head.plan !== NO_MATCH ? head.plan : "cover";
    total = Math.min(head.total, SEARCH_TOTAL_CAP);
    capped = head.total > SEARCH_TOTAL_CAP;
    rows = found.rows;
  }

  const cards = toSearchCards(rows, now);
  const hasMore = cards.length > perPage;
  const last = cards[perPage - 1];
  return {
    results: cards.slice(0, perPage).map((c) => c.card),
    meta: {
      page,
      per_page: perPage,
      total,
      total_capped: capped,
      has_more: hasMore,
      cursor:
        hasMore && last
          ? await encodeCursor(env, me, {
              v: 1,
              q: queryKey(base),
              t: resolved.asOf,
              k: last.sortKey,
              p: plan,
              n: total,
              c: capped,
              pg: page,
              age: resolved.myAge,
              from: resolved.ageFrom,
              to: resolved.ageTo,
            })
          : null,
      as_of: new Date(resolved.asOf).toISOString(),
    },
  };
}

/**
 * The query plans SQLite chooses for a search, statement by statement (EXPLAIN QUERY PLAN): what
 * tests and the benchmark use to show that every filter combination reads an index.
 */
export async function explainSearch(env: Env, me: string, request: SearchRequest) {
  const asOf = Date.now();
  const base = queryOf(me, request.filters, request.keywords, snapshotTerms(asOf));
  const probe = await prepare(env.DB, headStatement(base, asOf, 1)).first<Omit<Resolved, "asOf">>();
  if (!probe) throw notFound("Profile not found.");
  const context = { ...base, terms: valueTerms({ ...probe, asOf }) };
  const statements: Record<string, Fragment> = {
    first: firstPageStatement(base, asOf, request.per_page + 1, 0),
    cover: pageStatement(context, "cover", KEY_CEILING, request.per_page + 1),
    pk: pageStatement(context, "pk", KEY_CEILING, request.per_page + 1),
  };
  if (context.onlineSince) {
    statements.onlineCount = countStatement(context, "online");
    statements.online = pageStatement(context, "online", KEY_CEILING, request.per_page + 1);
  }
  if (context.match) {
    statements.fts = pageStatement(context, "fts", KEY_CEILING, request.per_page + 1);
  }
  if (walks(context, request.per_page + 1)) {
    statements.walk = walkStatement(context);
  }
  statements.cards = cardsStatement(context, statements.pk!);
  const plans: Record<string, string[]> = {};
  for (const [name, statement] of Object.entries(statements)) {
    const { results } = await prepare(env.DB, {
      text: `EXPLAIN QUERY PLAN ${statement.text}`,
      params: statement.params,
    }).all<{ detail: string }>();
    plans[name] = results.map((r) => r.detail);
  }
  return plans;
}
