import { z } from "./zod";
import { dedupe } from "./text";
import { DISTANCE_KM } from "~/lib/distance";
import type { MemberCardView } from "~/lib/members";

/**
 * The member search of the dashboard and the matches page (docs/api.md "Discovery, likes and
 * matches"), written once: the search form builds its request with it and the server parses every
 * request with it (POST as JSON, GET as query parameters), answering 422 with these messages.
 */

export const SEARCH_MESSAGES = {
  keywords: "Keywords may not be longer than 100 characters.",
  ageMin: "The minimum age must be between 18 and 100.",
  ageMax: "The maximum age must be between 18 and 100.",
  ageOrder: "The minimum age cannot be more than the maximum age.",
  gender: "The gender may not be longer than 50 characters.",
  country: "Choose a country from the list.",
  state: "Choose a state from the list.",
  stateNeedsCountry: "Choose a country before a state.",
  city: "Choose a city from the list.",
  cityNeedsState: "Choose a state before a city.",
  interests: "Choose at most 10 interests.",
  interest: "Each interest must be 1 to 40 characters.",
  page: "The page must be a whole number from 1 to 500.",
  perPage: "Ask for 1 to 50 results a page.",
  cursor: "These results have expired. Please search again.",
  distance: "Choose a distance from 1 to 500 km.",
  distanceNeedsPlace: "Add your location to your profile to search by distance.",
  sort: "Sort by distance, activity or newest.",
} as const;

/** How results are ordered (docs/api.md "Distance, travel and prompts"). */
export const SEARCH_SORTS = ["active", "distance", "newest"] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

export const SEARCH_AGE = { min: 18, max: 100 } as const;
export const SEARCH_MAX_INTERESTS = 10;
export const SEARCH_PER_PAGE = 20;
export const SEARCH_MAX_PER_PAGE = 50;
export const SEARCH_MAX_PAGE = 500;

/** Empty strings and nulls (an untouched form field) count as "not given". */
const blankToUndefined = (value: unknown) =>
  value === "" || value === null || (typeof value === "string" && value.trim() === "")
    ? undefined
    : value;

const optionalAge = (message: string) =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: message })
      .int(message)
      .min(SEARCH_AGE.min, message)
      .max(SEARCH_AGE.max, message)
      .optional(),
  );

const optionalText = (max: number, message: string) =>
  z.preprocess(
    blankToUndefined,
    z.string({ error: message }).trim().min(1, message).max(max, message).optional(),
  );

/** A checkbox or a flag: true, "true", "1" or "on" are on; anything else (or nothing) is off. */
const flag = z.preprocess(
  (v) => v === true || v === "true" || v === "1" || v === "on" || v === 1,
  z.boolean(),
);

export const searchFiltersSchema = z
  .object({
    age_min: optionalAge(SEARCH_MESSAGES.ageMin),
    age_max: optionalAge(SEARCH_MESSAGES.ageMax),
    gender: optionalText(50, SEARCH_MESSAGES.gender).transform((v) => v?.toLowerCase()),
    country: z.preprocess(
      blankToUndefined,
      z
        .string({ error: SEARCH_MESSAGES.country })
        .trim()
        .regex(/^[A-Za-z]{2}$/, SEARCH_MESSAGES.country)
        .transform((v) => v.toUpperCase())
        .optional(),
    ),
    state: optionalText(10, SEARCH_MESSAGES.state),
    city: optionalText(100, SEARCH_MESSAGES.city),
    interests: z.preprocess(
      (v) => (v === undefined || v === null || v === "" ? [] : typeof v === "string" ? [v] : v),
      z
        .array(
          z
            .string({ error: SEARCH_MESSAGES.interest })
            .trim()
            .min(1, SEARCH_MESSAGES.interest)
            .max(40, SEARCH_MESSAGES.interest),
          {
            error: SEARCH_MESSAGES.interests,
          },
        )
        .transform(dedupe)
        .pipe(z.array(z.string()).max(SEARCH_MAX_INTERESTS, SEARCH_MESSAGES.interests)),
    ),
    online_only: flag,
    with_photo: flag,
    /** Members whose photos a moderator verified (docs/decisions/042); free for everyone. */
    verified_only: flag,
    distance_km: z.preprocess(
      blankToUndefined,
      z.coerce
        .number({ error: SEARCH_MESSAGES.distance })
        .int(SEARCH_MESSAGES.distance)
        .min(DISTANCE_KM.min, SEARCH_MESSAGES.distance)
        .max(DISTANCE_KM.max, SEARCH_MESSAGES.distance)
        .optional(),
    ),
    sort: z.preprocess(
      (v) => blankToUndefined(v) ?? "active",
      z.enum(SEARCH_SORTS, { error: SEARCH_MESSAGES.sort }),
    ),
  })
  .superRefine((f, ctx) => {
    if (f.age_min !== undefined && f.age_max !== undefined && f.age_min > f.age_max) {
      ctx.addIssue({ code: "custom", path: ["age_min"], message: SEARCH_MESSAGES.ageOrder });
    }
    if (f.state && !f.country) {
      ctx.addIssue({ code: "custom", path: ["state"], message: SEARCH_MESSAGES.stateNeedsCountry });
    }
    if (f.city && !f.state) {
      ctx.addIssue({ code: "custom", path: ["city"], message: SEARCH_MESSAGES.cityNeedsState });
    }
  });

export type SearchFilters = z.output<typeof searchFiltersSchema>;
/** The filters a client sends (docs/api.md); every one may be left out. */
export interface SearchFiltersInput {
  age_min?: number | string | null;
  age_max?: number | string | null;
  gender?: string;
  country?: string;
  state?: string;
  city?: string;
  interests?: string[];
  online_only?: boolean | string;
  with_photo?: boolean | string;
  verified_only?: boolean | string;
  distance_km?: number | string | null;
  sort?: SearchSort;
}

const keywordsField = z.preprocess(
  (v) => (v === undefined || v === null ? "" : v),
  z.string({ error: SEARCH_MESSAGES.keywords }).trim().max(100, SEARCH_MESSAGES.keywords),
);

/** POST /…/search: `{keywords, filters}` (both optional: no keywords and no filters is allowed). */
export const searchRequestSchema = z.object({
  keywords: keywordsField,
  filters: z.preprocess((v) => (v === undefined || v === null ? {} : v), searchFiltersSchema),
  page: z.preprocess(
    (v) => blankToUndefined(v) ?? 1,
    z.coerce
      .number({ error: SEARCH_MESSAGES.page })
      .int(SEARCH_MESSAGES.page)
      .min(1, SEARCH_MESSAGES.page)
      .max(SEARCH_MAX_PAGE, SEARCH_MESSAGES.page),
  ),
  per_page: z.preprocess(
    (v) => blankToUndefined(v) ?? SEARCH_PER_PAGE,
    z.coerce
      .number({ error: SEARCH_MESSAGES.perPage })
      .int(SEARCH_MESSAGES.perPage)
      .min(1, SEARCH_MESSAGES.perPage)
      .max(SEARCH_MAX_PER_PAGE, SEARCH_MESSAGES.perPage),
  ),
  cursor: z.preprocess(blankToUndefined, z.string().max(1000, SEARCH_MESSAGES.cursor).optional()),
});

export type SearchRequest = z.output<typeof searchRequestSchema>;

const FILTER_KEYS = [
  "age_min",
  "age_max",
  "gender",
  "country",
  "state",
  "city",
  "online_only",
  "with_photo",
  "verified_only",
  "distance_km",
  "sort",
] as const;

/** GET /…/search: the same request from query parameters (`interests` repeated, one per value). */
export function searchRequestFromQuery(params: URLSearchParams): Record<string, unknown> {
  const filters: Record<string, unknown> = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value !== null) filters[key] = value;
  }
  const interests = [...params.getAll("interests"), ...params.getAll("interests[]")];
  if (interests.length) filters.interests = interests;
  return {
    keywords: params.get("keywords") ?? undefined,
    page: params.get("page") ?? undefined,
    per_page: params.get("per_page") ?? undefined,
    cursor: params.get("cursor") ?? undefined,
    filters,
  };
}

/** The query string of a search request (for GET, "load more" and links). */
export function searchQueryString(
  keywords: string,
  filters: SearchFiltersInput,
  extra: { page?: number; cursor?: string | null; per_page?: number } = {},
): string {
  const params = new URLSearchParams();
  if (keywords.trim()) params.set("keywords", keywords.trim());
  for (const key of FILTER_KEYS) {
    const value = filters[key];
    if (value === undefined || value === null || value === "" || value === false) continue;
    if (key === "sort" && value === "active") continue;
    params.set(key, value === true ? "1" : String(value));
  }
  const interests = filters.interests;
  if (Array.isArray(interests)) for (const i of interests) params.append("interests", i);
  if (extra.page && extra.page > 1) params.set("page", String(extra.page));
  if (extra.per_page) params.set("per_page", String(extra.per_page));
  if (extra.cursor) params.set("cursor", extra.cursor);
  return params.toString();
}

/**
 * A search result: the member card plus bio, interests and whether I liked them (docs/api.md
 * "Member card").
 */
export interface SearchCard extends MemberCardView {
  bio: string;
  interests: string[];
  liked: boolean;
  /** Between the two places, whole km, at least 1; null when either place is unknown. */
  distance_km: number | null;
  /** The member is found here because they travel here (a subscriber perk). */
  travelling: boolean;
  /** Their answers to Heartline's prompts, in their order. */
  prompts: { prompt_id: string; text: string; answer: string }[];
}

export interface SearchMeta {
  page: number;
  per_page: number;
  /** How many members match, counted up to `SEARCH_TOTAL_CAP`; `total_capped` when there are more. */
  total: number;
  total_capped: boolean;
  has_more: boolean;
  /** Pass back with the next page: it keeps paging on the results as they were at `as_of`. */
  cursor: string | null;
  as_of: string;
}

export interface SearchResponse {
  results: SearchCard[];
  meta: SearchMeta;
}

/** Counting stops here: beyond it the total reads "100+" (`total_capped`); see docs/decisions/010. */
export const SEARCH_TOTAL_CAP = 100;

/** Where each search lives: the matches page and the dashboard (docs/domain.md "Search"). */
export const SEARCH_SCOPES = {
  matches: { page: "/my/matches", endpoint: "/my/matches/search" },
  dashboard: { page: "/dashboard", endpoint: "/dashboard/search" },
} as const;
export type SearchScope = keyof typeof SEARCH_SCOPES;

/** Interests offered with one click in the interests filter (any interest can be typed). */
export const INTEREST_SUGGESTIONS = [
  "Hiking",
  "Travel",
  "Cooking",
  "Live music",
  "Coffee",
  "Yoga",
  "Photography",
  "Board games",
  "Running",
  "Reading",
  "Dogs",
  "Cinema",
] as const;
