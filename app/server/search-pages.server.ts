import {
  searchRequestFromQuery,
  searchRequestSchema,
  SEARCH_PER_PAGE,
  type SearchFilters,
} from "~/schemas/search";
import { usesAdvancedFilters } from "~/schemas/subscription";
import { fieldErrors } from "~/schemas/validation";
import {
  emptyFilters,
  type SearchFilterState,
  type SearchOrigin,
  type SearchPageData,
} from "~/state/search";
import type { ProfileLocation } from "./db/schema";
import { toTravel } from "./travel.server";
import { searchMembers } from "./search.server";
import type { SessionUser } from "./session.server";
import type { Env } from "./env.server";
import { HttpError } from "./errors.server";
import { canonicalLocation } from "./geo.server";
import { assertSearchFiltersAllowed, memberPerks } from "./subscriptions.server";

/** The filter form's state for parsed filters (the location's names from the location data). */
async function filterState(env: Env, f: SearchFilters): Promise<SearchFilterState> {
  let location: SearchFilterState["location"] = null;
  if (f.country) {
    const asked = {
      country: { isoCode: f.country, name: f.country },
      state: f.state ? { isoCode: f.state, name: f.state, countryCode: f.country } : null,
      city: f.state && f.city ? { name: f.city, countryCode: f.country, stateCode: f.state } : null,
    };
    location = (await canonicalLocation(env, asked).catch(() => null)) ?? asked;
  }
  return {
    age_min: f.age_min ?? null,
    age_max: f.age_max ?? null,
    gender: f.gender ?? "",
    location,
    interests: f.interests,
    online_only: f.online_only,
    with_photo: f.with_photo,
    verified_only: f.verified_only,
    distance_km: f.distance_km ?? null,
    sort: f.sort,
  };
}

/**
 * Where the member searches from, for the form: their own place's name when it has coordinates,
 * their travel, and whether travel is theirs to use (a subscription's perk).
 */
async function searchOrigin(env: Env, me: string): Promise<SearchOrigin> {
  // The member's place and travel in one read of their profile.
  const [row, perks] = await Promise.all([
    env.DB.prepare(
      `SELECT location, latitude IS NOT NULL AS located,
         travel_location AS travelLocation, travel_started_at AS travelStartedAt
       FROM profiles WHERE user_id = ?1`,
    )
      .bind(me)
      .first<{
        location: string | null;
        located: number;
        travelLocation: string | null;
        travelStartedAt: string | null;
      }>(),
    memberPerks(env, me),
  ]);
  const travel = toTravel(
    row ? { location: row.travelLocation, started_at: row.travelStartedAt } : null,
  );
  const location = row?.location ? (JSON.parse(row.location) as ProfileLocation) : null;
  const place =
    row?.located && location
      ? [location.city?.name, location.state?.name, location.country.name]
          .filter(Boolean)
          .slice(0, 2)
          .join(", ")
      : null;
  return { place, travel, canTravel: perks.subscribed };
}

export async function searchPageData(
  env: Env,
  member: Pick<SessionUser, "id" | "ages">,
  url: URL,
  {
    searched,
    perPage = SEARCH_PER_PAGE,
    withOrigin = true,
  }: { searched: boolean; perPage?: number; withOrigin?: boolean },
): Promise<SearchPageData> {
  const me = member.id;
  const ageRange = member.ages
    ? { min: member.ages.ageMin, max: member.ages.ageMax }
    : { min: 18, max: 100 };
  // Read beside the search, not before it.
  const originRead = withOrigin ? searchOrigin(env, me) : Promise.resolve(null);
  if (!searched) {
    const request = searchRequestSchema.parse({ per_page: perPage });
    const [response, origin] = await Promise.all([
      searchMembers(env, me, member.ages, request),
      originRead,
    ]);
    return {
      searched,
      request: { keywords: "", filters: {} },
      filters: emptyFilters,
      response,
      error: null,
      ageRange,
      origin,
    };
  }
  const raw = searchRequestFromQuery(url.searchParams);
  const parsed = searchRequestSchema.safeParse(raw);
  const keywords = typeof raw.keywords === "string" ? raw.keywords : "";
  if (!parsed.success) {
    const messages = Object.values(fieldErrors(parsed.error)).flat();
    return {
      searched,
      request: { keywords, filters: {} },
      filters: emptyFilters,
      response: null,
      error: messages.join(", "),
      ageRange,
      origin: await originRead,
    };
  }
  const filters = parsed.data.filters;
  const request = { keywords: parsed.data.keywords, filters: { ...filters } };
  try {
    await assertSearchFiltersAllowed(env, me, usesAdvancedFilters(filters));
    const [response, origin, state] = await Promise.all([
      searchMembers(env, me, member.ages, parsed.data),
      originRead,
      filterState(env, filters),
    ]);
    return { searched, request, filters: state, response, error: null, ageRange, origin };
  } catch (error) {
    if (!(error instanceof HttpError) || (error.status !== 422 && error.status !== 403))
      throw error;
    return {
      searched,
      request,
      filters: await filterState(env, filters),
      response: null,
      error: error.message,
      ageRange,
      origin: await originRead,
    };
  }
}
