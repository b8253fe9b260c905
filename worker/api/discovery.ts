import { Hono } from "hono";
import { z } from "zod";
import { likeSchema } from "~/schemas/likes";
import { pageParam, perPageParam } from "~/schemas/query";
import {
  searchRequestFromQuery,
  searchRequestSchema,
  SEARCH_SCOPES,
  type SearchScope,
} from "~/schemas/search";
import { dashboardSummary } from "~/server/dashboard.server";
import { usesAdvancedFilters } from "~/schemas/subscription";
import { dbTimeFor, serverTiming } from "~/server/db-time.server";
import { searchMembers } from "~/server/search.server";
import { assertSearchFiltersAllowed } from "~/server/subscriptions.server";
import {
  LIKE_LISTS,
  likeMember,
  likesOverview,
  LIKES_PER_PAGE,
  listLikes,
  unlikeMember,
  unmatchMember,
} from "~/server/likes.server";
import { parseInput, readBody } from "~/server/validation.server";
import { wantsJson } from "../http";
import { currentUser, requireVerified, verifiedUser } from "../middleware/auth";
import type { AppBindings } from "../types";

/**
 * docs/api.md "Discovery, likes and matches". Everything here needs a verified email. /dashboard,
 * /my/matches, /my/likes and GET …/search are also pages: a browser falls through to Remix. A
 * plain form POST to …/search (no JavaScript) is sent on to the GET page of the same search.
 */
export const discoveryApi = new Hono<AppBindings>();

function searchRoutes(scope: SearchScope) {
  const { endpoint } = SEARCH_SCOPES[scope];

  discoveryApi.post(endpoint, requireVerified, async (c) => {
    if (!wantsJson(c)) {
      const form = await c.req.raw.formData().catch(() => new FormData());
      const params = new URLSearchParams();
      for (const [key, value] of form.entries()) {
        if (key !== "_csrf" && typeof value === "string") params.append(key, value);
      }
      return c.redirect(`${endpoint}?${params.toString()}`, 303);
    }
    const { user } = currentUser(c);
    const request = parseInput(searchRequestSchema, await readBody(c.req.raw));
    await assertSearchFiltersAllowed(c.env, user.id, usesAdvancedFilters(request.filters));
    const time = dbTimeFor(c.env);
    const found = await searchMembers(c.env, user.id, user.ages, request, undefined, time);
    return c.json(found, 200, serverTiming(time));
  });

  discoveryApi.get(endpoint, async (c, next) => {
    if (!wantsJson(c)) return next();
    const user = verifiedUser(c);
    const url = new URL(c.req.url);
    const request = parseInput(searchRequestSchema, searchRequestFromQuery(url.searchParams));
    await assertSearchFiltersAllowed(c.env, user.id, usesAdvancedFilters(request.filters));
    const time = dbTimeFor(c.env);
    const found = await searchMembers(c.env, user.id, user.ages, request, undefined, time);
    return c.json(found, 200, serverTiming(time));
  });
}

searchRoutes("matches");
searchRoutes("dashboard");

const listQuery = z.object({
  list: z.enum(LIKE_LISTS).optional().catch(undefined),
  page: pageParam,
  per_page: perPageParam(LIKES_PER_PAGE),
});

/** GET /my/matches as JSON: my matches, newest first (the page itself is the search). */
discoveryApi.get("/my/matches", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  const query = listQuery.parse(c.req.query());
  const { cards, meta } = await listLikes(c.env, user.id, "matches", {
    page: query.page,
    perPage: query.per_page,
  });
  return c.json({ matches: cards.map(({ at, ...card }) => ({ ...card, matched_at: at })), meta });
});

discoveryApi.get("/dashboard", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  return c.json((await dashboardSummary(c.env, user.id)).summary);
});

discoveryApi.post("/my/likes", requireVerified, async (c) => {
  const { user } = currentUser(c);
  const { user_id, ...words } = parseInput(likeSchema, await readBody(c.req.raw));
  return c.json(await likeMember(c.env, user.id, user_id, Date.now(), words), 201);
});

discoveryApi.delete("/my/likes/:userId", requireVerified, async (c) => {
  const { user } = currentUser(c);
  await unlikeMember(c.env, user.id, c.req.param("userId"));
  return c.body(null, 204);
});

/**
 * docs/api.md "Discovery, likes and matches" (unmatch): the match and the conversation end for
 * both.
 */
discoveryApi.delete("/my/matches/:userId", requireVerified, async (c) => {
  const { user } = currentUser(c);
  await unmatchMember(c.env, user.id, c.req.param("userId"));
  return c.body(null, 204);
});

discoveryApi.get("/my/likes", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  const query = listQuery.parse(c.req.query());
  return c.json(
    await likesOverview(c.env, user.id, {
      list: query.list,
      page: query.page,
      perPage: query.per_page,
    }),
  );
});
