import {
  searchRequestFromQuery,
  searchRequestSchema,
  SEARCH_PER_PAGE,
  type SearchFilters,
} from "~/schemas/search";
import { usesAdvancedFilters } from "~/schemas/subscription";
import { fieldErrors } from "~/schemas/validation";
import { emptyFilters, type SearchFilterState, type SearchPageData } from "~/state/search";
import { searchMembers } from "./search.server";
import type { SessionUser } from "./session.server";
import type { Env } from "./env.server";
import { HttpError } from "./errors.server";
import { canonicalLocation } from "./geo.server";
import { assertSearchFiltersAllowed } from "./subscriptions.server";

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
  };
}

export async function searchPageData(
  env: Env,
  member: Pick<SessionUser, "id" | "ages">,
  url: URL,
  { searched, perPage = SEARCH_PER_PAGE }: { searched: boolean; perPage?: number },
): Promise<SearchPageData> {
  const me = member.id;
  const ageRange = member.ages
    ? { min: member.ages.ageMin, max: member.ages.ageMax }
    : { min: 18, max: 100 };
  if (!searched) {
    const request = searchRequestSchema.parse({ per_page: perPage });
    return {
      searched,
      request: { keywords: "", filters: {} },
      filters: emptyFilters,
      response: await searchMembers(env, me, member.ages, request),
      error: null,
      ageRange,
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
    };
  }
  const filters = parsed.data.filters;
  const request = { keywords: parsed.data.keywords, filters: { ...filters } };
  try {
    await assertSearchFiltersAllowed(env, me, usesAdvancedFilters(filters));
    return {
      searched,
      request,
      filters: await filterState(env, filters),
      response: await searchMembers(env, me, member.ages, parsed.data),
      error: null,
      ageRange,
    };
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
    };
  }
}
