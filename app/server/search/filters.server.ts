import { sql, type SQL } from "drizzle-orm";
import { ageOn } from "~/lib/age";
import {
  cellTokens,
  cellsWithin,
  DISTANCE_KM,
  minDotWithin,
  unitPoint,
  type LatLng,
  type UnitPoint,
} from "~/lib/distance";
import { ONLINE_WINDOW_MS, onlineSince } from "~/lib/online";
import { SEARCH_AGE, type SearchFilters, type SearchSort } from "~/schemas/search";
import { blockedWith } from "../visibility.server";

/**
 * What a search asks for, as SQL: the filters, keywords and interests of a request and the
 * searcher's values at the snapshot (the context of a search), and the conditions on the rows of
 * `member_search` that every plan (plans.server.ts) applies.
 */

/** Width of one (bucket, completeness) range of sort keys (see member_search). */
const KEY_RANGE = 2 ** 30;

/**
 * The query plans a page can run (plans.server.ts; "near": sorted by distance, near.server.ts;
 * "newest": sorted by sign-up, newest.server.ts).
 */
export type SearchPlan = "cover" | "pk" | "fts" | "online" | "near" | "newest";

/**
 * The searcher's date of birth and desired age range (their profile), and the coordinates of the
 * place they search from (their travel place while they travel, else their own; null without one).
 */
export interface Searcher {
  dob: string;
  ageMin: number;
  ageMax: number;
  latitude?: number | null;
  longitude?: number | null;
}

/** The searcher's place, when it has coordinates. */
export const originOf = (searcher: Searcher | null): LatLng | null =>
  searcher && searcher.latitude != null && searcher.longitude != null
    ? { latitude: searcher.latitude, longitude: searcher.longitude }
    : null;

/**
 * A radius around the searcher's place: its point, the smallest dot product of a place inside
 * (minDotWithin), its one-degree cells (the by_cell index) and their full-text tokens.
 */
export interface Near {
  km: number;
  origin: LatLng;
  point: UnitPoint;
  minDot: number;
  cells: number[];
  tokens: string[];
}

export function nearOf(origin: LatLng, km: number): Near {
  return {
    km,
    origin,
    point: unitPoint(origin),
    minDot: minDotWithin(km),
    cells: cellsWithin(origin, km),
    tokens: cellTokens(origin, km),
  };
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
 * The hex of a text's UTF-8 after the same trimming and lower-casing (ASCII letters only) as
 * SQLite's trim() and lower(): how the index's tokens spell what member_search_source lower-cases.
 */
const loweredHex = (text: string) =>
  hexOf(text.replace(/^ +| +$/g, "").replace(/[A-Z]/g, (c) => c.toLowerCase()));

/** An interest as the one token the index stores for it (migrations/0009). */
export const interestToken = (interest: string) => loweredHex(interest);

/** The place filters, as the index also stores them in `tags` (see placeTokens). */
export interface Place {
  country?: string;
  state?: string;
  city?: string;
}

/**
 * A place filter's token (placeTokens) narrowed to the members of that place with `gender`
 * (migrations/0020): the place's token, "x" (not a hex digit), the hex of the gender as
 * member_search stores it.
 */
export const placeGenderToken = (placeToken: string, gender: string) =>
  `${placeToken}x${loweredHex(gender)}`;

/**
 * The tokens of the place filters given, as `member_search_source` writes them into `tags`
 * (migrations/0017): a letter that is not a hex digit (n country, p state, y city), then the hex of
 * the value exactly as `member_search` stores it, so that a token matches exactly when the column
 * equals the filter. Interest tokens are hex alone, so the two never collide. (Gender has no token
 * of its own: it passes about half of the members, so checking it on each row costs less than
 * intersecting its list of half the site in the full-text index. With a place, it narrows the
 * place's token: placeGenderToken.)
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
 * The longest prefix the full-text index keeps a list of its own for (migrations/0019: prefix
 * indexes of 1 to 8 characters). A keyword of up to this many characters reads that one list,
 * in result order, and stops with the page; a longer one would merge the lists of every word it
 * begins, whole, before the first match. So a keyword is matched by its first PREFIX_CHARS
 * characters: "photography" finds "photographer" too (docs/decisions/016).
 */
export const PREFIX_CHARS = 8;

/** The token a verified member's full-text row carries in `tags` (migrations/0040). */
export const VERIFIED_TOKEN = "verified";

/** A keyword as the full-text query looks it up: its first PREFIX_CHARS characters. */
const keywordPrefix = (word: string) => Array.from(word).slice(0, PREFIX_CHARS).join("");

/**
 * The full-text query for keywords and interests, or null when there are neither. Every word must
 * match the start of a word of the username, first name, bio or interests (by its first
 * PREFIX_CHARS characters); any one of the
 * interests must be among the member's. With either, the narrowest place filter given is a token
 * of the same query (placeTokens; with a gender, placeGenderToken), so that the full-text index
 * yields the members of that place (and gender), already in result order. Built from tokens only, so no input is read as FTS syntax.
 */
export function matchExpression(
  keywords: string,
  interests: string[],
  place: Place = {},
  gender?: string,
  near?: Near | null,
  verified = false,
): string | null {
  const parts: string[] = [];
  const words = keywordTokens(keywords);
  if (words.length) {
    parts.push(
      `{username first_name bio interests} : (${words.map((w) => `"${keywordPrefix(w)}"*`).join(" AND ")})`,
    );
  }
  if (interests.length) {
    parts.push(`tags : (${interests.map((i) => `"${interestToken(i)}"`).join(" OR ")})`);
  }
  // A radius: the members of its cells (migrations/0033), in result order like a place's.
  if (near) parts.push(`tags : (${near.tokens.map((t) => `"${t}"`).join(" OR ")})`);
  // Verified members only: their token (migrations/0040), a list in result order like an interest's.
  if (verified) parts.push(`tags : ("${VERIFIED_TOKEN}")`);
  if (!parts.length) return null;
  // Only the narrowest place given: every list more in an AND costs the full-text query a merge
  // (two lists read half the time of four for interests in a city), and the few members of a
  // namesake place (a "Springfield" of another state) are left out by the row's own place
  // columns, which every plan checks (conditions).
  // With a gender, that place's list of the members of that gender (half as many rows to check).
  const narrowest = placeTokens(place).at(-1);
  if (narrowest) {
    parts.push(`tags : ("${gender ? placeGenderToken(narrowest, gender) : narrowest}")`);
  }
  return parts.join(" AND ");
}

/** The values of a search that depend on its snapshot and its searcher, as bound SQL values. */
export interface Terms {
  asOf: SQL;
  myAge: SQL;
  bornAfter: SQL;
  bornUpTo: SQL;
  onlineFloor: SQL;
}

/** What a search asks for: the request, the searcher, the clock of `online_only`. */
export interface SearchQuery {
  me: string;
  gender?: string;
  country?: string;
  state?: string;
  city?: string;
  withPhoto: boolean;
  /** Members online are those seen since then (null: no online filter). */
  onlineSince: string | null;
  /** The full-text query of the keywords, interests, place and radius (its cells), or null. */
  match: string | null;
  /**
   * The same without the radius: what a row must match besides its conditions (which check the
   * radius exactly); null without keywords or interests.
   */
  textMatch: string | null;
  /**
   * The full-text query of the interests and "verified only" alone (null without): what only the
   * index can check.
   */
  interestsMatch: string | null;
  /** The age range the filters ask for, or null for the searcher's own desired range. */
  custom: { from: number; to: number } | null;
  /** The radius asked for (or, sorted by distance, the largest); null for neither. */
  near: Near | null;
  sort: SearchSort;
}

/** A search with the searcher's values at its snapshot (`terms`): what the statements read. */
export interface SearchContext extends SearchQuery {
  terms: Terms;
}

/** The searcher's values at a snapshot: what the first page resolves and the cursor carries. */
export interface Resolved {
  asOf: number;
  myAge: number;
  ageFrom: number;
  ageTo: number;
}

/** Valid while ONLINE_WINDOW_MS is under an hour (tests/unit/online.test.ts). */
const onlineFloorKey = (asOf: number) =>
  Math.floor((asOf - ONLINE_WINDOW_MS) / 3_600_000) * 4 * KEY_RANGE;

export function valueTerms(r: Resolved): Terms {
  const today = new Date(r.asOf);
  return {
    asOf: sql`${r.asOf}`,
    myAge: sql`${r.myAge}`,
    bornAfter: sql`${bornBy(today, r.ageTo + 1)}`,
    bornUpTo: sql`${bornBy(today, r.ageFrom)}`,
    // A member online at `asOf` was active in this hour or the one before, so their row at
    // `asOf` has a key from that hour's range or above.
    onlineFloor: sql`${onlineFloorKey(r.asOf)}`,
  };
}

/**
 * What a request asks for. `origin` is the searcher's place (originOf): a radius or the distance
 * sort needs one (the caller answers 422 without), and sorted by distance with no radius the
 * search looks as far as the largest radius.
 */
export function queryOf(
  me: string,
  filters: SearchFilters,
  keywords: string,
  origin: LatLng | null = null,
): SearchQuery {
  const custom = filters.age_min !== undefined || filters.age_max !== undefined;
  const verified = filters.verified_only;
  const km = filters.distance_km ?? (filters.sort === "distance" ? DISTANCE_KM.max : null);
  const near = origin && km ? nearOf(origin, km) : null;
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
    onlineSince: filters.online_only ? onlineSince() : null,
    match: matchExpression(keywords, filters.interests, place, filters.gender, near, verified),
    textMatch: matchExpression(keywords, filters.interests, place, filters.gender, null, verified),
    interestsMatch: matchExpression("", filters.interests, {}, undefined, null, verified),
    custom: custom
      ? { from: filters.age_min ?? SEARCH_AGE.min, to: filters.age_max ?? SEARCH_AGE.max }
      : null,
    near,
    sort: near || filters.sort !== "distance" ? filters.sort : "active",
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
  const query = queryOf(me, filters, keywords, originOf(searcher));
  return { ...query, terms: valueTerms(resolve(query, searcher, asOf)) };
}

/** The searcher's values for `query` at snapshot time `asOf` (pure). */
export function resolve(query: SearchQuery, searcher: Searcher, asOf: number): Resolved {
  return {
    asOf,
    myAge: ageOn(searcher.dob, new Date(asOf)),
    ageFrom: query.custom ? query.custom.from : searcher.ageMin,
    ageTo: query.custom ? query.custom.to : searcher.ageMax,
  };
}

/**
 * Whether the member of `users u` is online now: seen since `onlineSince` and not hiding it, as
 * `isOnline` of app/lib/online.ts says of a card. The one reading of "online now" in search (with
 * the partial index users_online on last_seen_at), whoever writes last_seen_at.
 */
export const onlineNow = (c: SearchContext) =>
  sql`u.last_seen_at >= ${c.onlineSince} AND u.hide_online = 0`;

/**
 * A radius's cells as one bound value that SQLite reads as a list (a 500 km radius overlaps more
 * cells than D1 binds values to a statement): each is a search of the by_cell index.
 */
export const cellList = (near: Near) =>
  sql`(SELECT value FROM json_each(${JSON.stringify(near.cells)}))`;

/** The dot product of a row's place with the radius's centre: the larger, the nearer. */
export const nearDot = (near: Near, alias = "s") => {
  const s = sql.raw(alias);
  return sql`(${s}.x * ${near.point.x} + ${s}.y * ${near.point.y} + ${s}.z * ${near.point.z})`;
};

/**
 * Every condition but the keywords and the paging position, on `member_search s` (or the rows of
 * member_search under another alias).
 */
export function conditions(c: SearchContext, plan?: SearchPlan, alias = "s"): SQL {
  const t = c.terms;
  const s = sql.raw(alias);
  const parts = [
    sql`${s}.valid_from <= ${t.asOf} AND (${s}.valid_to IS NULL OR ${s}.valid_to > ${t.asOf})`,
    sql`${s}.user_id <> ${c.me}`,
    sql`${s}.birth > ${t.bornAfter} AND ${s}.birth <= ${t.bornUpTo}`,
    sql`${s}.age_min <= ${t.myAge} AND ${s}.age_max >= ${t.myAge}`,
  ];
  if (c.gender) parts.push(sql`${s}.gender = ${c.gender}`);
  if (c.country) parts.push(sql`${s}.country = ${c.country}`);
  if (c.state) parts.push(sql`${s}.state = ${c.state}`);
  if (c.city) parts.push(sql`${s}.city = ${c.city}`);
  if (c.withPhoto) parts.push(sql`${s}.has_photo = 1`);
  if (c.near) {
    parts.push(
      sql`${s}.cell IN ${cellList(c.near)} AND ${nearDot(c.near, alias)} >= ${c.near.minDot}`,
    );
  }
  // The online plan starts from the members online; the others check each row (its key first:
  // a member online at the snapshot has a key from the last hour or two, in every index entry).
  if (c.onlineSince && plan !== "online") {
    parts.push(
      sql`${s}.sort_key >= ${t.onlineFloor} AND EXISTS (SELECT 1 FROM users u WHERE u.id = ${s}.user_id AND ${onlineNow(c)})`,
    );
  }
  // Either side's block hides the member (visibility.server.ts), as one list read once per
  // statement rather than two lookups for every row examined.
  parts.push(sql`${s}.user_id NOT IN (${blockedWith(c.me)})`);
  return sql.join(parts, sql` AND `);
}
