import { Link, useLocation } from "@remix-run/react";
import { useEffect, useState, type FormEvent, type MouseEvent, type ReactNode } from "react";
import { Icon } from "~/components/icons";
import { TagInput } from "~/components/profile/tag-input";
import { usePresenceWatch } from "~/realtime/use-presence-watch";
import { GENDER_OPTIONS } from "~/lib/members";
import {
  INTEREST_SUGGESTIONS,
  SEARCH_AGE,
  searchQueryString,
  SEARCH_SCOPES,
  type SearchScope,
} from "~/schemas/search";
import { Provider, useAtom, useAtomValue, useHydrateAtoms, useSetAtom } from "~/state/jotai";
import {
  activeFilterCount,
  canLoadMore,
  clearSearch,
  loadMoreAtom,
  runSearchAtom,
  searchScopeAtom,
  searchStateAtom,
  setFilters,
  setKeywords,
  setMemberLiked,
  setShowAdvancedFilters,
  type SearchOrigin,
  type SearchState,
} from "~/state/search";
import { KeepPresenceStore } from "~/state/presence";
import { LocationFilter } from "~/components/location-picker";
import { FIRST_ROW, MemberCard } from "./member-card";
import { DistanceAndSort, TravelPanel } from "./near-filters";

interface MemberSearchProps {
  scope: SearchScope;
  /** What the page loaded: suggestions (no search yet) or the results of a search. */
  initial: SearchState;
  /** The member's own desired age range, shown as the default of the age filter. */
  ageRange: { min: number; max: number };
  heading: string;
  /** Where the member searches from (distance, travel). */
  origin: SearchOrigin | null;
}

/**
 * The search of the dashboard and the matches page: keywords, filters, results, load more and
 * clear. Each visit of the page has its own store, so arriving on the page (or clearing the
 * search, which goes back to it) starts from what the page loaded.
 */
export function MemberSearch(props: MemberSearchProps) {
  const location = useLocation();
  return (
    <KeepPresenceStore>
      <Provider key={location.key}>
        <SearchHydrated {...props} />
      </Provider>
    </KeepPresenceStore>
  );
}

function SearchHydrated({ scope, initial, ageRange, heading, origin }: MemberSearchProps) {
  useHydrateAtoms([
    [searchScopeAtom, scope],
    [searchStateAtom, initial],
  ]);
  return (
    <section className="discover" aria-labelledby={`${scope}-search-heading`}>
      <SearchDrawer>
        {(fold) => <SearchForm scope={scope} ageRange={ageRange} origin={origin} onSearch={fold} />}
      </SearchDrawer>
      <SearchResults scope={scope} heading={heading} pageState={initial} />
    </section>
  );
}

/** Where the search stands beside the results, or above them, always open (search.css). */
const OPEN_SCREEN = "(min-width: 761px)";

/**
 * On a phone the page opens on faces: the search and its filters wait behind one control above
 * the results, and fold away again once a search runs. Wider screens show them open (search.css
 * shows a closed drawer's content there before the page's scripts run, and this keeps it open).
 */
function SearchDrawer({ children }: { children(fold: () => void): ReactNode }) {
  const { filters, searchError } = useAtomValue(searchStateAtom);
  const filterCount = activeFilterCount(filters);
  const [open, setOpen] = useState(false);
  // A search that failed says why inside the form: it opens again to show it.
  useEffect(() => {
    if (searchError) setOpen(true);
  }, [searchError]);
  useEffect(() => {
    const wide = window.matchMedia(OPEN_SCREEN);
    const follow = () => setOpen((was) => was || wide.matches);
    follow();
    wide.addEventListener("change", follow);
    return () => wide.removeEventListener("change", follow);
  }, []);
  const fold = () => {
    if (!window.matchMedia(OPEN_SCREEN).matches) setOpen(false);
  };
  return (
    <details
      className="search-drawer"
      open={open}
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary
        className="btn btn-secondary search-drawer-toggle"
        onClick={(event) => {
          if (window.matchMedia(OPEN_SCREEN).matches) event.preventDefault();
        }}
      >
        <Icon name="search" size={20} />
        Search and filters
        {filterCount > 0 ? (
          <span className="pill" aria-label={`${filterCount} active`}>
            {filterCount}
          </span>
        ) : null}
      </summary>
      {children(fold)}
    </details>
  );
}

function SearchForm({
  scope,
  ageRange,
  origin,
  onSearch,
}: {
  scope: SearchScope;
  ageRange: { min: number; max: number };
  origin: SearchOrigin | null;
  /** A search was asked for (the phone's drawer folds to show the results). */
  onSearch(): void;
}) {
  const [state, setState] = useAtom(searchStateAtom);
  const runSearch = useSetAtom(runSearchAtom);
  const { filters } = state;
  const filterCount = activeFilterCount(filters);

  // Wide screens show the filters in a column beside the results, always open (search.css): the
  // panel's state says so too, and its title does not fold it.
  useEffect(() => {
    const wide = window.matchMedia(WIDE_SCREEN);
    const follow = () => {
      if (wide.matches)
        setState((s) => (s.showAdvancedFilters ? s : setShowAdvancedFilters(s, true)));
    };
    follow();
    wide.addEventListener("change", follow);
    return () => wide.removeEventListener("change", follow);
  }, [setState]);
  const onSummaryClick = (event: MouseEvent) => {
    if (window.matchMedia(WIDE_SCREEN).matches) event.preventDefault();
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSearch();
    void runSearch();
  };

  const age = (value: string) => {
    if (value.trim() === "") return null;
    const n = Number(value);
    return Number.isFinite(n) ? Math.trunc(n) : null;
  };

  return (
    <form
      className="card search-card"
      role="search"
      method="get"
      action={SEARCH_SCOPES[scope].endpoint}
      onSubmit={onSubmit}
      aria-label="Search members"
    >
      <div className="search-bar">
        <label htmlFor={`${scope}-keywords`} className="sr-only">
          Keywords
        </label>
        <input
          id={`${scope}-keywords`}
          className="input search-input"
          type="search"
          name="keywords"
          placeholder="Search by name, interest or words in a bio"
          maxLength={100}
          value={state.keywords}
          onChange={(e) => setState((s) => setKeywords(s, e.target.value))}
        />
        <button type="submit" className="btn btn-primary" disabled={state.isSearching}>
          {state.isSearching ? "Searching…" : "Search"}
        </button>
      </div>
      <details
        className="search-filters"
        open={state.showAdvancedFilters}
        onToggle={(e) => {
          const open = (e.currentTarget as HTMLDetailsElement).open;
          if (open !== state.showAdvancedFilters) setState((s) => setShowAdvancedFilters(s, open));
        }}
      >
        <summary onClick={onSummaryClick}>
          Filters{filterCount > 0 ? <span className="pill">{filterCount}</span> : null}
        </summary>
        <div className="search-filter-grid">
          <DistanceAndSort
            scope={scope}
            origin={origin}
            distance={filters.distance_km}
            sort={filters.sort}
            onChange={(patch) => setState((s) => setFilters(s, patch))}
          />
          <fieldset className="search-ages">
            <legend className="label">Age</legend>
            <div className="search-age-inputs">
              <label>
                <span className="sr-only">Minimum age</span>
                <input
                  className="input"
                  type="number"
                  name="age_min"
                  min={SEARCH_AGE.min}
                  max={SEARCH_AGE.max}
                  inputMode="numeric"
                  placeholder={String(ageRange.min)}
                  aria-label="Minimum age"
                  value={filters.age_min ?? ""}
                  onChange={(e) => setState((s) => setFilters(s, { age_min: age(e.target.value) }))}
                />
              </label>
              <span aria-hidden="true">to</span>
              <label>
                <span className="sr-only">Maximum age</span>
                <input
                  className="input"
                  type="number"
                  name="age_max"
                  min={SEARCH_AGE.min}
                  max={SEARCH_AGE.max}
                  inputMode="numeric"
                  placeholder={String(ageRange.max)}
                  aria-label="Maximum age"
                  value={filters.age_max ?? ""}
                  onChange={(e) => setState((s) => setFilters(s, { age_max: age(e.target.value) }))}
                />
              </label>
            </div>
            <p className="field-hint">
              Empty: your range, {ageRange.min}–{ageRange.max}.
            </p>
          </fieldset>
          <div className="field">
            <label htmlFor={`${scope}-gender`}>Gender</label>
            <select
              id={`${scope}-gender`}
              className="input"
              name="gender"
              value={filters.gender}
              onChange={(e) => setState((s) => setFilters(s, { gender: e.target.value }))}
            >
              <option value="">Anyone</option>
              {GENDER_OPTIONS.map((g) => (
                <option key={g} value={g}>
                  {g}
                </option>
              ))}
            </select>
          </div>
          <LocationFilter
            value={filters.location}
            onChange={(location) => setState((s) => setFilters(s, { location }))}
          />
          <div className="search-interests">
            <TagInput
              id={`${scope}-interests`}
              label="Interests"
              values={filters.interests}
              onChange={(interests) => setState((s) => setFilters(s, { interests }))}
              placeholder="Any of these interests"
              suggestions={INTEREST_SUGGESTIONS}
              hint="Members with any of them. Press Enter to add."
            />
            {filters.interests.map((i) => (
              <input key={i} type="hidden" name="interests" value={i} />
            ))}
          </div>
          <div className="search-flags">
            <label className="checkbox">
              <input
                type="checkbox"
                name="online_only"
                value="1"
                checked={filters.online_only}
                onChange={(e) => setState((s) => setFilters(s, { online_only: e.target.checked }))}
              />
              Online now
            </label>
            <label className="checkbox">
              <input
                type="checkbox"
                name="with_photo"
                value="1"
                checked={filters.with_photo}
                onChange={(e) => setState((s) => setFilters(s, { with_photo: e.target.checked }))}
              />
              With a photo
            </label>
            <label className="checkbox">
              <input
                type="checkbox"
                name="verified_only"
                value="1"
                checked={filters.verified_only}
                onChange={(e) =>
                  setState((s) => setFilters(s, { verified_only: e.target.checked }))
                }
              />
              Verified photos only
            </label>
          </div>
          <p className="field-hint search-perk-hint">
            Interests, online now and with a photo are filters for subscribers.{" "}
            <Link to="/my/subscription">See the plans</Link>
          </p>
          <TravelPanel origin={origin} />
        </div>
      </details>
      {state.searchError ? (
        <div className="alert alert-error" role="alert">
          {state.searchError}
        </div>
      ) : null}
    </form>
  );
}

/** Where the filters are a column beside the results (search.css). */
const WIDE_SCREEN = "(min-width: 1024px)";

function SearchResults({
  scope,
  heading,
  pageState,
}: {
  scope: SearchScope;
  heading: string;
  /** What the page showed when it loaded: clearing on the page itself goes back to it. */
  pageState: SearchState;
}) {
  const [state, setState] = useAtom(searchStateAtom);
  const { pathname } = useLocation();
  const loadMore = useSetAtom(loadMoreAtom);
  const { meta, results } = state;
  usePresenceWatch(results.map((m) => m.id));
  const total = meta ? `${meta.total.toLocaleString("en")}${meta.total_capped ? "+" : ""}` : "0";
  const nextHref =
    meta?.has_more && state.lastRequest
      ? `${SEARCH_SCOPES[scope].endpoint}?${searchQueryString(
          state.lastRequest.keywords,
          state.lastRequest.filters,
          { page: meta.page + 1, per_page: meta.per_page, cursor: meta.cursor },
        )}`
      : null;

  return (
    <div className="search-results" aria-busy={state.isSearching || state.isLoadingMore}>
      <div className="search-results-head">
        <div>
          <h2 id={`${scope}-search-heading`}>{state.hasSearched ? "Search results" : heading}</h2>
          <p className="muted" role="status" data-testid="search-summary">
            {state.hasSearched
              ? `${total} ${meta?.total === 1 && !meta.total_capped ? "member" : "members"} found${
                  state.lastSearchKeywords ? ` for “${state.lastSearchKeywords}”` : ""
                }`
              : "Recently active members who are looking for someone like you."}
          </p>
        </div>
        {state.hasSearched ? (
          <Link
            to={SEARCH_SCOPES[scope].page}
            className="btn btn-secondary btn-sm"
            onClick={(event) => {
              // On the page itself, clearing needs no trip to the server; from the search page
              // (…/search, without JavaScript) the link goes back to the page.
              if (pathname === SEARCH_SCOPES[scope].page && !pageState.hasSearched) {
                event.preventDefault();
                setState((s) => clearSearch(s, pageState));
              }
            }}
          >
            Clear search
          </Link>
        ) : null}
      </div>
      {results.length === 0 ? (
        state.hasSearched ? (
          <div className="empty-state empty-help">
            <p>
              <strong>No members match.</strong> Try fewer filters or other words: a single interest
              or a city finds more people than a whole sentence.
            </p>
          </div>
        ) : (
          <div className="empty-state empty-help">
            <p>
              <strong>No one fits your age range yet.</strong> Widen the ages you are looking for,
              or search with other filters.
            </p>
            <div className="empty-help-actions">
              <Link to="/settings/profile" className="btn btn-secondary btn-sm">
                Change your age range
              </Link>
            </div>
          </div>
        )
      ) : (
        <ul className="member-grid" aria-label="Members">
          {results.map((member, index) => (
            <li key={member.id}>
              <MemberCard
                member={member}
                firstRow={index < FIRST_ROW}
                first={index === 0}
                onLikedChange={(liked) => setState((s) => setMemberLiked(s, member.id, liked))}
              />
            </li>
          ))}
        </ul>
      )}
      {state.loadMoreError ? (
        <div className="alert alert-error load-more-error" role="alert">
          {state.loadMoreError}
        </div>
      ) : null}
      {nextHref ? (
        <div className="load-more">
          <a
            href={nextHref}
            className="btn btn-secondary"
            aria-disabled={!canLoadMore(state)}
            onClick={(e) => {
              e.preventDefault();
              if (canLoadMore(state)) void loadMore();
            }}
          >
            {state.isLoadingMore ? "Loading…" : "Load more"}
          </a>
        </div>
      ) : null}
    </div>
  );
}
