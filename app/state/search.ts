import { api } from "~/lib/http";
import type { Location } from "~/schemas/profile";
import {
  searchQueryString,
  SEARCH_SCOPES,
  type SearchCard,
  type SearchFiltersInput,
  type SearchMeta,
  type SearchResponse,
  type SearchScope,
  type SearchSort,
} from "~/schemas/search";
import type { Travel } from "~/schemas/travel";
import { atom } from "./jotai";
import { errorMessage } from "./profile";

/**
 * The member search of the dashboard and the matches page: docs/domain.md "Client state" and its
 * transitions as pure functions (starting sets searching and clears the error; success sets
 * hasSearched; failure stores the error; load more has its own loading and error state). The
 * atoms below only call these.
 */

/**
 * The filter form: the filters of docs/api.md, with the picked location kept whole for the pickers.
 */
export interface SearchFilterState {
  age_min: number | null;
  age_max: number | null;
  gender: string;
  location: Location | null;
  interests: string[];
  online_only: boolean;
  with_photo: boolean;
  /** Members whose photos a moderator verified. */
  verified_only: boolean;
  /** Within this many km of where the member searches from; null: any distance. */
  distance_km: number | null;
  sort: SearchSort;
}

/**
 * Where the member searches from (docs/api.md "Distance, travel and prompts"): their place's name
 * (null without coordinates: no distance filter then), their travel, and whether they may travel.
 */
export interface SearchOrigin {
  place: string | null;
  travel: Travel | null;
  canTravel: boolean;
}

/**
 * What the dashboard and the matches page load for their search (app/server/search-pages.server.ts):
 * suggested members on the page itself, or (on …/search, the form's target without JavaScript)
 * the results of the search in the query string, with the filters as the form shows them.
 */
export interface SearchPageData {
  searched: boolean;
  request: SearchRequestBody;
  filters: SearchFilterState;
  response: SearchResponse | null;
  error: string | null;
  ageRange: { min: number; max: number };
  /** Null where the page shows no search form (the dashboard's suggestions). */
  origin: SearchOrigin | null;
}

export interface SearchRequestBody {
  keywords: string;
  filters: SearchFiltersInput;
}

export interface SearchState {
  keywords: string;
  isSearching: boolean;
  searchError: string | null;
  hasSearched: boolean;
  showAdvancedFilters: boolean;
  filters: SearchFilterState;
  lastSearchKeywords: string;
  isLoadingMore: boolean;
  loadMoreError: string | null;
  /** The results shown, in order, and the meta of the last page loaded. */
  results: SearchCard[];
  meta: SearchMeta | null;
  /** What the results answer (load more asks the same), or null before a search. */
  lastRequest: SearchRequestBody | null;
  /** Numbers each search, so that an answer to an older one is ignored. */
  requestSeq: number;
}

/** docs/domain.md "Error messages": used when the server gives no message of its own. */
export const SEARCH_ERRORS = {
  search: "Search failed",
  loadMore: "Failed to load more results",
} as const;

export const emptyFilters: SearchFilterState = {
  age_min: null,
  age_max: null,
  gender: "",
  location: null,
  interests: [],
  online_only: false,
  with_photo: false,
  verified_only: false,
  distance_km: null,
  sort: "active",
};

export const initialSearchState: SearchState = {
  keywords: "",
  isSearching: false,
  searchError: null,
  hasSearched: false,
  showAdvancedFilters: false,
  filters: emptyFilters,
  lastSearchKeywords: "",
  isLoadingMore: false,
  loadMoreError: null,
  results: [],
  meta: null,
  lastRequest: null,
  requestSeq: 0,
};

/** The filters as docs/api.md sends them (only those set). */
export function filtersPayload(f: SearchFilterState): SearchFiltersInput {
  const out: SearchFiltersInput = {};
  if (f.age_min !== null) out.age_min = f.age_min;
  if (f.age_max !== null) out.age_max = f.age_max;
  if (f.gender.trim()) out.gender = f.gender.trim();
  if (f.location) {
    out.country = f.location.country.isoCode;
    if (f.location.state) out.state = f.location.state.isoCode;
    if (f.location.state && f.location.city) out.city = f.location.city.name;
  }
  if (f.interests.length) out.interests = f.interests;
  if (f.online_only) out.online_only = true;
  if (f.with_photo) out.with_photo = true;
  if (f.verified_only) out.verified_only = true;
  if (f.distance_km !== null) out.distance_km = f.distance_km;
  if (f.sort !== "active") out.sort = f.sort;
  return out;
}

/** How many filters are set (shown on the "Filters" button). */
export function activeFilterCount(f: SearchFilterState): number {
  return (
    Number(f.age_min !== null || f.age_max !== null) +
    Number(Boolean(f.gender.trim())) +
    Number(f.location !== null) +
    Number(f.interests.length > 0) +
    Number(f.online_only) +
    Number(f.with_photo) +
    Number(f.verified_only) +
    Number(f.distance_km !== null)
  );
}

export const setKeywords = (s: SearchState, keywords: string): SearchState => ({ ...s, keywords });

export const setFilters = (s: SearchState, patch: Partial<SearchFilterState>): SearchState => ({
  ...s,
  filters: { ...s.filters, ...patch },
});

export const setShowAdvancedFilters = (s: SearchState, show: boolean): SearchState => ({
  ...s,
  showAdvancedFilters: show,
});

/** Starting sets searching and clears the error (docs/domain.md "Client state"). */
export const searchStart = (s: SearchState): SearchState => ({
  ...s,
  isSearching: true,
  searchError: null,
  requestSeq: s.requestSeq + 1,
});

/** Success sets hasSearched, and the results replace the previous ones. */
export const searchSuccess = (
  s: SearchState,
  response: SearchResponse,
  request: SearchRequestBody,
  seq = s.requestSeq,
): SearchState =>
  seq !== s.requestSeq
    ? s
    : {
        ...s,
        isSearching: false,
        searchError: null,
        hasSearched: true,
        lastSearchKeywords: request.keywords,
        results: response.results,
        meta: response.meta,
        lastRequest: request,
        isLoadingMore: false,
        loadMoreError: null,
      };

/** Failure stores the error; the results of the previous search stay. */
export const searchFailure = (s: SearchState, error: string, seq = s.requestSeq): SearchState =>
  seq !== s.requestSeq ? s : { ...s, isSearching: false, searchError: error };

export const loadMoreStart = (s: SearchState): SearchState => ({
  ...s,
  isLoadingMore: true,
  loadMoreError: null,
});

/** The next page is added after the results (a member already shown is never added twice). */
export const loadMoreSuccess = (
  s: SearchState,
  response: SearchResponse,
  seq = s.requestSeq,
): SearchState => {
  if (seq !== s.requestSeq) return s;
  const shown = new Set(s.results.map((r) => r.id));
  return {
    ...s,
    isLoadingMore: false,
    loadMoreError: null,
    results: [...s.results, ...response.results.filter((r) => !shown.has(r.id))],
    meta: response.meta,
  };
};

export const loadMoreFailure = (s: SearchState, error: string, seq = s.requestSeq): SearchState =>
  seq !== s.requestSeq ? s : { ...s, isLoadingMore: false, loadMoreError: error };

/**
 * Clearing the search resets the whole search state to what the page shows before any search
 * (`page`: the state it loaded with). An answer to a search still on its way is then ignored.
 */
export const clearSearch = (
  s: SearchState,
  page: SearchState = initialSearchState,
): SearchState => ({
  ...page,
  requestSeq: s.requestSeq + 1,
});

/** A like or unlike from a result card. */
export const setMemberLiked = (s: SearchState, memberId: string, liked: boolean): SearchState => ({
  ...s,
  results: s.results.map((r) => (r.id === memberId ? { ...r, liked } : r)),
});

/** A state that shows a search the server already ran (the search pages without JavaScript). */
export function searchStateFor(
  request: SearchRequestBody,
  response: SearchResponse,
  filters: SearchFilterState,
): SearchState {
  return searchSuccess(
    {
      ...initialSearchState,
      keywords: request.keywords,
      filters,
      showAdvancedFilters: activeFilterCount(filters) > 0,
    },
    response,
    request,
  );
}

export const canLoadMore = (s: SearchState) =>
  Boolean(s.meta?.has_more && s.lastRequest && !s.isLoadingMore && !s.isSearching);

// Atoms. The search pages give each visit its own store (a keyed Provider), so leaving the page
// or clearing the search starts from `initialSearchState`.

export const searchStateAtom = atom<SearchState>(initialSearchState);
export const searchScopeAtom = atom<SearchScope>("matches");

/** POST …/search with the keywords and filters in the state. */
export const runSearchAtom = atom(null, async (get, set) => {
  const scope = get(searchScopeAtom);
  const state = searchStart(get(searchStateAtom));
  set(searchStateAtom, state);
  const seq = state.requestSeq;
  const request: SearchRequestBody = {
    keywords: state.keywords.trim(),
    filters: filtersPayload(state.filters),
  };
  try {
    const response = await api<SearchResponse>(SEARCH_SCOPES[scope].endpoint, {
      method: "POST",
      body: request,
    });
    set(searchStateAtom, searchSuccess(get(searchStateAtom), response, request, seq));
  } catch (error) {
    set(
      searchStateAtom,
      searchFailure(
        get(searchStateAtom),
        errorMessage(error, SEARCH_ERRORS.search, SEARCH_ERRORS.search),
        seq,
      ),
    );
  }
});

/** GET …/search for the next page of the same search. */
export const loadMoreAtom = atom(null, async (get, set) => {
  const scope = get(searchScopeAtom);
  const current = get(searchStateAtom);
  if (!current.lastRequest || !current.meta?.has_more) return;
  const { lastRequest, meta, requestSeq } = current;
  set(searchStateAtom, loadMoreStart(current));
  const query = searchQueryString(lastRequest.keywords, lastRequest.filters, {
    page: meta.page + 1,
    per_page: meta.per_page,
    cursor: meta.cursor,
  });
  try {
    const response = await api<SearchResponse>(`${SEARCH_SCOPES[scope].endpoint}?${query}`);
    set(searchStateAtom, loadMoreSuccess(get(searchStateAtom), response, requestSeq));
  } catch (error) {
    set(
      searchStateAtom,
      loadMoreFailure(
        get(searchStateAtom),
        errorMessage(error, SEARCH_ERRORS.loadMore, SEARCH_ERRORS.loadMore),
        requestSeq,
      ),
    );
  }
});

/** The page's first look: suggested members (a search with no keywords or filters), not a search. */
export function suggestionsState(
  request: SearchRequestBody,
  response: SearchResponse,
): SearchState {
  return {
    ...initialSearchState,
    results: response.results,
    meta: response.meta,
    lastRequest: request,
  };
}

/** A search the server could not run (its message is the search error). */
export function failedSearchState(
  keywords: string,
  filters: SearchFilterState,
  error: string,
): SearchState {
  return {
    ...initialSearchState,
    keywords,
    filters,
    showAdvancedFilters: activeFilterCount(filters) > 0,
    searchError: error,
  };
}

/** What a search page loaded, as the state its search starts from. */
export function pageSearchState(data: {
  searched: boolean;
  request: SearchRequestBody;
  filters: SearchFilterState;
  response: SearchResponse | null;
  error: string | null;
}): SearchState {
  if (!data.searched) {
    return data.response ? suggestionsState(data.request, data.response) : initialSearchState;
  }
  if (data.response) return searchStateFor(data.request, data.response, data.filters);
  return failedSearchState(data.request.keywords, data.filters, data.error ?? SEARCH_ERRORS.search);
}
