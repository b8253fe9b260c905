import { describe, expect, it } from "vitest";
import { ApiError, httpErrorMessage } from "~/lib/http";
import type { SearchCard, SearchResponse } from "~/schemas/search";
import { searchQueryString, searchRequestFromQuery, searchRequestSchema } from "~/schemas/search";
import {
  interestToken,
  matchExpression,
  placeGenderToken,
  placeTokens,
} from "~/server/search/filters.server";
import {
  initialLikesState,
  likesLoaded,
  memberLiked,
  memberUnliked,
  type LikedMember,
} from "~/state/likes";
import { errorMessage } from "~/state/profile";
import {
  activeFilterCount,
  clearSearch,
  emptyFilters,
  filtersPayload,
  initialSearchState,
  loadMoreFailure,
  loadMoreStart,
  loadMoreSuccess,
  pageSearchState,
  SEARCH_ERRORS,
  searchFailure,
  searchStart,
  searchSuccess,
  setFilters,
  setKeywords,
  setMemberLiked,
  setShowAdvancedFilters,
} from "~/state/search";
import { memberCard } from "../helpers/cards";

const card = (id: string): SearchCard => ({
  ...memberCard(id),
  bio: "",
  interests: [],
  liked: false,
  distance_km: null,
  travelling: false,
  prompts: [],
});

const response = (ids: string[], page = 1, hasMore = false): SearchResponse => ({
  results: ids.map(card),
  meta: {
    page,
    per_page: 2,
    total: 5,
    total_capped: false,
    has_more: hasMore,
    cursor: hasMore ? `c${page}` : null,
    as_of: "2026-11-21T10:00:00.000Z",
  },
});

describe("search state (docs/domain.md: Client state)", () => {
  it("starting sets searching and clears the error; success sets hasSearched", () => {
    let s = setKeywords(initialSearchState, "hiking");
    s = searchFailure(searchStart(s), "Search failed");
    expect(s).toMatchObject({
      isSearching: false,
      searchError: "Search failed",
      hasSearched: false,
    });
    s = searchStart(s);
    expect(s).toMatchObject({ isSearching: true, searchError: null });
    s = searchSuccess(s, response(["a", "b"], 1, true), { keywords: "hiking", filters: {} });
    expect(s).toMatchObject({
      isSearching: false,
      hasSearched: true,
      lastSearchKeywords: "hiking",
      searchError: null,
    });
    expect(s.results.map((r) => r.id)).toEqual(["a", "b"]);
  });

  it("load more has its own loading and error state and never adds a member twice", () => {
    let s = searchSuccess(searchStart(initialSearchState), response(["a", "b"], 1, true), {
      keywords: "",
      filters: {},
    });
    s = loadMoreStart(s);
    expect(s).toMatchObject({ isLoadingMore: true, loadMoreError: null, isSearching: false });
    s = loadMoreFailure(s, SEARCH_ERRORS.loadMore);
    expect(s).toMatchObject({ isLoadingMore: false, loadMoreError: "Failed to load more results" });
    expect(s.searchError).toBeNull();
    s = loadMoreSuccess(loadMoreStart(s), response(["b", "c"], 2, false));
    expect(s.results.map((r) => r.id)).toEqual(["a", "b", "c"]);
    expect(s).toMatchObject({ isLoadingMore: false, loadMoreError: null });
    expect(s.meta?.page).toBe(2);
  });

  it("ignores the answer to a search that a newer one replaced", () => {
    const first = searchStart(initialSearchState);
    const second = searchStart(first);
    const late = searchSuccess(
      second,
      response(["old"]),
      { keywords: "old", filters: {} },
      first.requestSeq,
    );
    expect(late).toBe(second);
    expect(searchFailure(second, "x", first.requestSeq)).toBe(second);
    expect(loadMoreSuccess(second, response(["old"]), first.requestSeq)).toBe(second);
  });

  it("clearing resets everything; filters, toggles and likes are plain updates", () => {
    let s = setShowAdvancedFilters(initialSearchState, true);
    s = setFilters(s, { gender: "Woman", online_only: true, age_min: 30 });
    expect(activeFilterCount(s.filters)).toBe(3);
    expect(filtersPayload(s.filters)).toEqual({ gender: "Woman", online_only: true, age_min: 30 });
    s = searchSuccess(searchStart(s), response(["a"]), { keywords: "", filters: {} });
    s = setMemberLiked(s, "a", true);
    expect(s.results[0]!.liked).toBe(true);
    const cleared = clearSearch(s);
    expect(cleared).toEqual({ ...initialSearchState, requestSeq: s.requestSeq + 1 });
    // An answer to the search cleared is not shown.
    expect(
      searchSuccess(cleared, response(["late"]), { keywords: "", filters: {} }, s.requestSeq),
    ).toBe(cleared);
    const page = { ...initialSearchState, results: [card("suggested")] };
    expect(clearSearch(s, page).results.map((r) => r.id)).toEqual(["suggested"]);
    expect(
      filtersPayload({
        ...emptyFilters,
        location: {
          country: { isoCode: "US", name: "United States" },
          state: { isoCode: "TX", name: "Texas", countryCode: "US" },
          city: { name: "Austin", countryCode: "US", stateCode: "TX" },
        },
        interests: ["Chess"],
      }),
    ).toEqual({ country: "US", state: "TX", city: "Austin", interests: ["Chess"] });
  });

  it("uses the server's message, else 'Search failed' / 'Failed to load more results'", () => {
    expect(
      errorMessage(new ApiError(422, "Too young"), SEARCH_ERRORS.search, SEARCH_ERRORS.search),
    ).toBe("Too young");
    expect(
      errorMessage(
        new ApiError(500, httpErrorMessage(500)),
        SEARCH_ERRORS.search,
        SEARCH_ERRORS.search,
      ),
    ).toBe("Search failed");
    expect(
      errorMessage(new TypeError("offline"), SEARCH_ERRORS.loadMore, SEARCH_ERRORS.loadMore),
    ).toBe("Failed to load more results");
  });

  it("starts a page from what it loaded: suggestions, a search, or a failed search", () => {
    const suggestions = pageSearchState({
      searched: false,
      request: { keywords: "", filters: {} },
      filters: emptyFilters,
      response: response(["a"]),
      error: null,
    });
    expect(suggestions).toMatchObject({ hasSearched: false, isSearching: false });
    expect(suggestions.results).toHaveLength(1);
    const searched = pageSearchState({
      searched: true,
      request: { keywords: "x", filters: { gender: "man" } },
      filters: { ...emptyFilters, gender: "man" },
      response: response(["a"]),
      error: null,
    });
    expect(searched).toMatchObject({ hasSearched: true, keywords: "x", showAdvancedFilters: true });
    const failed = pageSearchState({
      searched: true,
      request: { keywords: "x", filters: {} },
      filters: emptyFilters,
      response: null,
      error: "Bad",
    });
    expect(failed).toMatchObject({ searchError: "Bad", hasSearched: false });
  });
});

describe("search requests", () => {
  it("round-trips through the query string", () => {
    const qs = searchQueryString(
      "  hiking  ",
      {
        age_min: 25,
        gender: "woman",
        interests: ["Chess", "Live music"],
        online_only: true,
        with_photo: false,
      },
      { page: 2, cursor: "abc" },
    );
    const parsed = searchRequestSchema.parse(searchRequestFromQuery(new URLSearchParams(qs)));
    expect(parsed).toMatchObject({
      keywords: "hiking",
      page: 2,
      cursor: "abc",
      filters: {
        age_min: 25,
        gender: "woman",
        interests: ["Chess", "Live music"],
        online_only: true,
        with_photo: false,
      },
    });
  });

  it("builds full-text queries from words only", () => {
    expect(matchExpression("", [])).toBeNull();
    expect(matchExpression('Ada "OR" NEAR(x*', [])).toBe(
      '{username first_name bio interests} : ("ada"* AND "or"* AND "near"* AND "x"*)',
    );
    expect(matchExpression("", ["Live Music"])).toBe(`tags : ("${interestToken("live music")}")`);
    expect(interestToken("  Café ")).toBe("636166c3a9");
    // A keyword is looked up by its first eight characters (the longest prefix index).
    expect(matchExpression("Photography crêpes", [])).toBe(
      '{username first_name bio interests} : ("photogra"* AND "crêpes"*)',
    );
    expect(matchExpression("日本語日本語日本語", [])).toBe(
      '{username first_name bio interests} : ("日本語日本語日本"*)',
    );
  });

  it("adds the narrowest place filter to keywords and interests as a token of its own", () => {
    const place = { country: "US", state: "TX", city: "san josé" };
    expect(placeTokens(place)).toEqual(["n5553", "p5458", "y73616e206a6f73c3a9"]);
    // A letter that is not a hex digit first: never an interest's token (hex alone).
    for (const token of placeTokens(place)) expect(token).toMatch(/^[npy][0-9a-f]+$/);
    expect(matchExpression("sail", ["Sailing"], place)).toBe(
      `{username first_name bio interests} : ("sail"*) AND tags : ("${interestToken("sailing")}") AND tags : ("y73616e206a6f73c3a9")`,
    );
    // With a gender, the place's token for the members of that gender (migrations/0020).
    expect(placeGenderToken("n5553", " Woman ")).toBe("n5553x776f6d616e");
    expect(matchExpression("sail", [], { country: "US" }, "woman")).toBe(
      `{username first_name bio interests} : ("sail"*) AND tags : ("n5553x776f6d616e")`,
    );
    // Without keywords or interests, a place is read from its own index, not the full-text one.
    expect(matchExpression("", [], place)).toBeNull();
  });
});

describe("likes state", () => {
  const m = (id: string): LikedMember => ({ ...card(id), liked_at: "2026-11-20T10:00:00.000Z" });
  const meta = (total: number) => ({ page: 1, per_page: 10, total, has_more: false });

  it("a like back moves a member from 'liked you' to matches; unliking moves them back", () => {
    let s = likesLoaded(initialLikesState, {
      received: [m("a"), m("b")],
      sent: [],
      matches: [],
      meta: { received: meta(2), sent: meta(0), matches: meta(0) },
    });
    s = memberLiked(s, m("a"), true, "2026-11-21T10:00:00.000Z");
    expect(s.received.map((x) => x.id)).toEqual(["b"]);
    expect(s.matches.map((x) => x.id)).toEqual(["a"]);
    expect(s.matches[0]!.matched_at).toBe("2026-11-21T10:00:00.000Z");
    expect([s.meta.received.total, s.meta.matches.total]).toEqual([1, 1]);
    s = memberUnliked(s, s.matches[0]!);
    expect(s.matches).toEqual([]);
    expect(s.received.map((x) => x.id)).toEqual(["a", "b"]);
    s = memberLiked(s, m("c"), false);
    expect(s.sent.map((x) => x.id)).toEqual(["c"]);
    s = memberUnliked(s, m("c"));
    expect(s.sent).toEqual([]);
    expect(s.meta.sent.total).toBe(0);
  });

  it("later pages are added after the list", () => {
    let s = likesLoaded(initialLikesState, {
      received: [m("a")],
      meta: { received: { page: 1, per_page: 1, total: 2, has_more: true } },
    });
    s = likesLoaded(s, {
      received: [m("a"), m("b")],
      meta: { received: { page: 2, per_page: 1, total: 2, has_more: false } },
    });
    expect(s.received.map((x) => x.id)).toEqual(["a", "b"]);
  });
});
