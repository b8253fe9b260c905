import { sql, type SQL } from "drizzle-orm";
import { SEARCH_TOTAL_CAP, type SearchRequest, type SearchResponse } from "~/schemas/search";
import { allRows, type DbTime } from "./db-time.server";
import type { Env } from "./env.server";
import { notFound, ValidationError } from "./errors.server";
import { cardPhotoUrls } from "./members.server";
import { SEARCH_MESSAGES } from "~/schemas/search";
import {
  cardsStatement,
  cardValues,
  readCard,
  toSearchCards,
  type CardRow,
} from "./search/cards.server";
import {
  decodeCursor,
  encodeCursor,
  expired,
  queryKey,
  SNAPSHOT_MAX_AGE_MS,
  type Cursor,
} from "./search/cursor.server";
import {
  buildContext,
  originOf,
  queryOf,
  resolve,
  valueTerms,
  type Resolved,
  type SearchContext,
  type SearchQuery,
  type SearchPlan,
  type Searcher,
} from "./search/filters.server";
import {
  membersStatement,
  nearPage,
  placesStatement,
  type NearPosition,
} from "./search/near.server";
import { newestStatement, type NewestPosition } from "./search/newest.server";
import { exactName, exactStatement } from "./search/relevance.server";
import {
  countStatement,
  firstPageCtes,
  KEY_CEILING,
  NO_MATCH,
  pageStatement,
  walks,
  walkStatement,
} from "./search/plans.server";
import { all, first, statement } from "./sql.server";

/**
 * Member search (docs/domain.md "Search", docs/api.md "Discovery, likes and matches").
 *
 * The rows come from `member_search` (app/server/db/search.ts), which the database keeps in
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
 * Query plans: plans.server.ts (search/). Filters, keywords and the searcher's values as SQL:
 * filters.server.ts. The paging cursor: cursor.server.ts. The cards of a page: cards.server.ts.
 *
 * The total is counted once, on the first page, up to SEARCH_TOTAL_CAP. Snapshot times come from
 * the Worker's clock and the rows are stamped by the database's: a skew between the two only
 * shows a change that much later, since a change closes a member's old row at the very time it
 * opens the new one, so at any time each member has exactly one row in a snapshot. (Reading the
 * clock inside the statement instead makes SQLite evaluate it again for every row examined.)
 */

/** What a first page tells besides its cards: the total and the plan. */
interface FirstPageHead {
  total: number;
  plan: SearchPlan | typeof NO_MATCH;
}

/**
 * A first page in one statement: `counts` and `choice` (counts and plan) and `page` (its rows),
 * each computed once, then the cards of the page's members, found by id (CROSS JOIN keeps that
 * order), each row carrying what the meta needs; a page without a card is one row without a card
 * (LEFT JOIN), so that it needs no second statement. Every value is bound once (see
 * sql.server.ts).
 */
async function firstPage(
  env: Env,
  c: SearchContext,
  limit: number,
  offset: number,
  time?: DbTime | null,
): Promise<{ head: FirstPageHead; rows: CardRow[] }> {
  const results = await allRows<Record<string, unknown>>(
    statement(env.DB, firstPageStatement(c, limit, offset)),
    time,
  );
  const top = results[0];
  return {
    head: {
      total: (top?.total as number | undefined) ?? 0,
      plan: (top?.plan as FirstPageHead["plan"] | undefined) ?? NO_MATCH,
    },
    rows: results.filter((row) => row.sortKey !== null).map(readCard),
  };
}

function firstPageStatement(c: SearchContext, limit: number, offset: number) {
  return sql`${firstPageCtes(c, offset + limit)}
    SELECT card.*, total.total AS total, choice.plan AS plan
    FROM choice, total LEFT JOIN (
      SELECT ${cardValues(c.me)},
        page.sortKey AS sortKey
      FROM page CROSS JOIN users JOIN profiles ON profiles.user_id = users.id
      WHERE page.rn > ${offset} AND users.id = page.userId
    ) card ON 1`;
}

/**
 * POST and GET /my/matches/search and /dashboard/search: one page of search cards and the paging
 * meta of docs/api.md, plus `cursor` (pass it back for the next page) and `as_of`.
 *
 * `searcher` is the searcher's date of birth and desired ages, as the session read them with the
 * member (SessionUser.ages); null when they have no profile yet, which finds nobody (404). A
 * first page is one statement (firstPage): the bounded counts that choose the plan, and the page's
 * cards, even when it has none. Loading more is one statement too.
 */
export async function searchMembers(
  env: Env,
  me: string,
  searcher: Searcher | null,
  request: SearchRequest,
  now = Date.now(),
  time?: DbTime | null,
): Promise<SearchResponse> {
  const perPage = request.per_page;
  if (!searcher) throw notFound("Profile not found.");
  const origin = originOf(searcher);
  const { filters } = request;
  if (!origin && (filters.distance_km !== undefined || filters.sort === "distance")) {
    throw new ValidationError({
      [filters.distance_km !== undefined ? "distance_km" : "sort"]: [
        SEARCH_MESSAGES.distanceNeedsPlace,
      ],
    });
  }
  const base = queryOf(me, filters, request.keywords, origin);
  if (base.sort !== "active") {
    return sortedSearch(env, me, searcher, base, request, now, time);
  }
  let resolved: Resolved;
  let plan: SearchPlan;
  let total: number;
  let capped: boolean;
  let after = KEY_CEILING;
  let offset = 0;
  let page = request.page;
  let rows: CardRow[];
  // Exact name matches first (relevance.server.ts): found again on every page, to leave them out.
  const name = base.textMatch ? exactName(request.keywords) : null;
  const readExact = async (context: SearchContext) =>
    name
      ? (
          await allRows<Record<string, unknown>>(
            statement(env.DB, cardsStatement(me, exactStatement(context, name))),
            time,
          )
        ).map(readCard)
      : [];
  let exact: CardRow[] = [];

  if (request.cursor) {
    const cursor = await decodeCursor(env, me, request.cursor);
    if (!cursor || cursor.q !== queryKey(base)) throw expired();
    if (cursor.t < now - SNAPSHOT_MAX_AGE_MS || cursor.t > now + 60_000) throw expired();
    resolved = { asOf: cursor.t, myAge: cursor.age, ageFrom: cursor.from, ageTo: cursor.to };
    ({ p: plan, n: total, c: capped, k: after } = cursor);
    page = cursor.pg + 1;
    const context = { ...base, terms: valueTerms(resolved) };
    // The exact matches first: the page reads as many more rows as it will leave out.
    exact = await readExact(context);
    rows = (
      await allRows<Record<string, unknown>>(
        statement(
          env.DB,
          cardsStatement(me, pageStatement(context, plan, after, perPage + 1 + exact.length)),
        ),
        time,
      )
    ).map(readCard);
  } else {
    offset = (page - 1) * perPage;
    resolved = resolve(base, searcher, now);
    const context = { ...base, terms: valueTerms(resolved) };
    // The exact matches first: the page reads as many more rows as it will leave out, and a
    // page by number after the first starts that many rows earlier (the first page held them;
    // the rows skipped are counted below).
    exact = await readExact(context);
    if (page > 1) offset = Math.max(0, offset - exact.length);
    const found = await firstPage(
      env,
      context,
      perPage + 1 + (page > 1 ? 2 : 1) * exact.length,
      offset,
      time,
    );
    const head = found.head;
    // Rows exist only when some plan read them, so `plan` is then one of the four.
    plan = found.rows.length && head.plan !== NO_MATCH ? head.plan : "cover";
    total = Math.min(head.total, SEARCH_TOTAL_CAP);
    capped = head.total > SEARCH_TOTAL_CAP;
    rows = found.rows;
  }

  const photos = await cardPhotoUrls(
    env,
    [...exact, ...rows].map((r) => r.card),
    now,
  );
  const pinned = toSearchCards(exact, photos, now, origin);
  const pinnedIds = new Set(pinned.map((c) => c.card.id));
  // The first page shows the exact matches first; every page leaves them out of the rest.
  const room = page === 1 ? perPage - pinned.length : perPage;
  let cards = toSearchCards(rows, photos, now, origin).filter((c) => !pinnedIds.has(c.card.id));
  if (offset > 0 && pinned.length && rows.length) {
    // Exact matches above the first row read were shown on the first page in place of as many
    // of these rows: those rows were on an earlier page.
    const top = Math.max(...rows.map((r) => r.sortKey));
    cards = cards.slice(pinned.filter((c) => c.sortKey > top).length);
  }
  const hasMore = cards.length > room;
  const last = cards[room - 1];
  const shown = [...(page === 1 ? pinned : []), ...cards.slice(0, room)];
  return {
    results: shown.map((c) => c.card),
    meta: {
      page,
      per_page: perPage,
      total,
      total_capped: capped,
      has_more: hasMore,
      cursor:
        hasMore && last
          ? await encodeCursor(
              env,
              me,
              cursorOf(base, resolved, plan, total, capped, page, { k: last.sortKey }),
            )
          : null,
      as_of: new Date(resolved.asOf).toISOString(),
    },
  };
}

/** Where a page ended, with the search, its snapshot and first-page total: the next cursor. */
function cursorOf(
  base: SearchQuery,
  resolved: Resolved,
  plan: SearchPlan,
  total: number,
  capped: boolean,
  page: number,
  position: { k: number; d?: number; pid?: number; j?: number },
): Cursor {
  return {
    v: 1,
    q: queryKey(base),
    t: resolved.asOf,
    k: position.k,
    p: plan,
    n: total,
    c: capped,
    pg: page,
    age: resolved.myAge,
    from: resolved.ageFrom,
    to: resolved.ageTo,
    ...(position.d !== undefined ? { d: position.d, pid: position.pid } : {}),
    ...(position.j !== undefined ? { j: position.j } : {}),
  };
}

/**
 * A search sorted by distance or newest first (near.server.ts, newest.server.ts): each page reads
 * its rows in that order from where the last ended (the cursor's position); the first page counts
 * the total as every search does, up to the cap, in the covering index of its narrowest filter.
 */
async function sortedSearch(
  env: Env,
  me: string,
  searcher: Searcher,
  base: SearchQuery,
  request: SearchRequest,
  now: number,
  time?: DbTime | null,
): Promise<SearchResponse> {
  const perPage = request.per_page;
  const origin = originOf(searcher);
  const plan: SearchPlan = base.sort === "distance" ? "near" : "newest";
  let resolved: Resolved;
  let total: number;
  let capped: boolean;
  let page: number;
  let near: NearPosition | null = null;
  let newest: NewestPosition | null = null;
  if (request.cursor) {
    const cursor = await decodeCursor(env, me, request.cursor);
    if (!cursor || cursor.q !== queryKey(base) || cursor.p !== plan) throw expired();
    if (cursor.t < now - SNAPSHOT_MAX_AGE_MS || cursor.t > now + 60_000) throw expired();
    resolved = { asOf: cursor.t, myAge: cursor.age, ageFrom: cursor.from, ageTo: cursor.to };
    ({ n: total, c: capped } = cursor);
    page = cursor.pg + 1;
    if (plan === "near") {
      if (cursor.d === undefined || cursor.pid === undefined) throw expired();
      near = { d: cursor.d, pid: cursor.pid, k: cursor.k };
    } else {
      if (cursor.j === undefined) throw expired();
      newest = { j: cursor.j, k: cursor.k };
    }
  } else {
    resolved = resolve(base, searcher, now);
    page = 1;
    const counted = await first<{ n: number }>(
      env.DB,
      countStatement({ ...base, terms: valueTerms(resolved) }, "cover"),
    );
    total = Math.min(counted?.n ?? 0, SEARCH_TOTAL_CAP);
    capped = (counted?.n ?? 0) > SEARCH_TOTAL_CAP;
  }
  const context: SearchContext = { ...base, terms: valueTerms(resolved) };

  let rows: CardRow[];
  let next: { d?: number; pid?: number; j?: number; k: number } | null = null;
  if (plan === "near") {
    const found = await nearPage(env, context, near, perPage + 1, time);
    rows = found.rows;
    const last = rows[perPage - 1];
    if (rows.length > perPage && last) next = { d: last.dot!, pid: last.placeId!, k: last.sortKey };
    else if (!found.exhausted && found.position) next = found.position;
  } else {
    rows = (
      await allRows<Record<string, unknown>>(
        statement(
          env.DB,
          cardsStatement(me, newestStatement(context, newest, perPage + 1), "joined"),
        ),
        time,
      )
    ).map(readCard);
    const last = rows[perPage - 1];
    if (rows.length > perPage && last) next = { j: last.joined!, k: last.sortKey };
  }
  const shown = rows.slice(0, perPage);
  const cards = toSearchCards(
    shown,
    await cardPhotoUrls(
      env,
      shown.map((r) => r.card),
      now,
    ),
    now,
    origin,
    true,
  );
  return {
    results: cards.map((c) => c.card),
    meta: {
      page,
      per_page: perPage,
      total,
      total_capped: capped,
      has_more: next !== null,
      cursor: next
        ? await encodeCursor(env, me, cursorOf(base, resolved, plan, total, capped, page, next))
        : null,
      as_of: new Date(resolved.asOf).toISOString(),
    },
  };
}

/**
 * A member's date of birth and desired ages, read from their profile (null without one): for
 * callers that do not have the session's (SessionUser.ages).
 */
export async function searcherOf(env: Env, me: string): Promise<Searcher | null> {
  return first<Searcher>(
    env.DB,
    sql`SELECT date_of_birth AS dob, age_min AS ageMin, age_max AS ageMax,
        CASE WHEN travel_country_code IS NULL THEN latitude ELSE travel_latitude END AS latitude,
        CASE WHEN travel_country_code IS NULL THEN longitude ELSE travel_longitude END AS longitude
      FROM profiles WHERE user_id = ${me}`,
  );
}

/**
 * The query plans SQLite chooses for a search, statement by statement (EXPLAIN QUERY PLAN): what
 * tests and the benchmark use to show that every filter combination reads an index.
 */
export async function explainSearch(env: Env, me: string, request: SearchRequest) {
  const searcher = await searcherOf(env, me);
  if (!searcher) throw notFound("Profile not found.");
  const context = buildContext(me, searcher, request.filters, request.keywords, Date.now());
  const statements: Record<string, SQL> = {
    first: firstPageStatement(context, request.per_page + 1, 0),
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
  if (context.near) {
    statements.nearPlaces = placesStatement(context.near, null);
    statements.nearMembers = membersStatement(
      context,
      [
        { id: 1, d: 1 },
        { id: 2, d: 0.5 },
      ],
      null,
      request.per_page + 1,
    );
  }
  const name = context.textMatch ? exactName(request.keywords) : null;
  if (name && context.sort === "active") statements.exact = exactStatement(context, name);
  if (context.sort === "newest") {
    statements.newest = newestStatement(context, { j: 1, k: 1 }, request.per_page + 1);
  }
  statements.cards = cardsStatement(me, statements.pk!);
  const plans: Record<string, string[]> = {};
  for (const [name, query] of Object.entries(statements)) {
    const results = await all<{ detail: string }>(env.DB, sql`EXPLAIN QUERY PLAN ${query}`);
    plans[name] = results.map((r) => r.detail);
  }
  return plans;
}
