import { sql, type SQL } from "drizzle-orm";
import { SEARCH_TOTAL_CAP, type SearchRequest, type SearchResponse } from "~/schemas/search";
import { allRows, type DbTime } from "./db-time.server";
import type { Env } from "./env.server";
import { notFound } from "./errors.server";
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
} from "./search/cursor.server";
import {
  buildContext,
  queryOf,
  resolve,
  valueTerms,
  type Resolved,
  type SearchContext,
  type SearchPlan,
  type Searcher,
} from "./search/filters.server";
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
  const base = queryOf(me, request.filters, request.keywords);
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
        statement(env.DB, cardsStatement(me, pageStatement(context, plan, after, perPage + 1))),
        time,
      )
    ).map(readCard);
  } else {
    offset = (page - 1) * perPage;
    resolved = resolve(base, searcher, now);
    const found = await firstPage(
      env,
      { ...base, terms: valueTerms(resolved) },
      perPage + 1,
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
 * A member's date of birth and desired ages, read from their profile (null without one): for
 * callers that do not have the session's (SessionUser.ages).
 */
export async function searcherOf(env: Env, me: string): Promise<Searcher | null> {
  return first<Searcher>(
    env.DB,
    sql`SELECT date_of_birth AS dob, age_min AS ageMin, age_max AS ageMax FROM profiles WHERE user_id = ${me}`,
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
  statements.cards = cardsStatement(me, statements.pk!);
  const plans: Record<string, string[]> = {};
  for (const [name, query] of Object.entries(statements)) {
    const results = await all<{ detail: string }>(env.DB, sql`EXPLAIN QUERY PLAN ${query}`);
    plans[name] = results.map((r) => r.detail);
  }
  return plans;
}
