import { api, ApiError, httpErrorMessage, joinFieldErrors } from "~/lib/http";
import type { MemberCardView } from "~/lib/members";
import type { Profile, ProfileFormInput, ProfilePhoto } from "~/schemas/profile";
import { atom } from "./jotai";

/**
 * The member's own profile on the client (docs/domain.md "Client state") and its
 * transitions as pure functions: fetch and update each go loading → success | failure, and an
 * update merges the submitted data into the profile. The atoms below only call these.
 */
export interface ProfileState {
  data: Profile | null;
  isLoading: boolean;
  isUpdating: boolean;
  error: string | null;
  /** When the data last came from the server (epoch ms). */
  lastUpdated: number | null;
}

export const initialProfileState: ProfileState = {
  data: null,
  isLoading: false,
  isUpdating: false,
  error: null,
  lastUpdated: null,
};

/** docs/domain.md "Error messages": used when the server gives no message of its own. */
export const PROFILE_ERRORS = {
  update: "An error occurred while updating profile",
  fetchFailed: "Failed to fetch profile",
  fetchError: "An error occurred while fetching profile",
  viewersFailed: "Failed to fetch profile viewers",
  viewersError: "An error occurred while fetching profile viewers",
} as const;

export const fetchStart = (s: ProfileState): ProfileState => ({
  ...s,
  isLoading: true,
  error: null,
});

export const fetchSuccess = (s: ProfileState, data: Profile, now = Date.now()): ProfileState => ({
  ...s,
  data,
  isLoading: false,
  error: null,
  lastUpdated: now,
});

export const fetchFailure = (s: ProfileState, error: string): ProfileState => ({
  ...s,
  isLoading: false,
  error,
});

export const updateStart = (s: ProfileState): ProfileState => ({
  ...s,
  isUpdating: true,
  error: null,
});

/**
 * docs/domain.md "Client state": the submitted data is merged into the existing profile; what the
 * server answered (its canonical form of the same fields) is merged over that.
 */
export const updateSuccess = (
  s: ProfileState,
  submitted: Partial<Profile>,
  server?: Profile,
  now = Date.now(),
): ProfileState => ({
  ...s,
  data: s.data ? { ...s.data, ...submitted, ...server } : (server ?? null),
  isUpdating: false,
  error: null,
  lastUpdated: now,
});

export const updateFailure = (s: ProfileState, error: string): ProfileState => ({
  ...s,
  isUpdating: false,
  error,
});

/** Photos changed (upload, delete, reorder): they are part of the profile. */
export const photosChanged = (s: ProfileState, photos: ProfilePhoto[]): ProfileState =>
  s.data ? { ...s, data: { ...s.data, photos } } : s;

/**
 * The message to store for a failed call (docs/domain.md "Error messages"): field errors joined
 * with ', ', else the server's message, else `httpFallback` for an HTTP failure without one, else
 * `otherFallback` for anything else (network, a response that is not JSON).
 */
export function errorMessage(error: unknown, httpFallback: string, otherFallback: string): string {
  if (error instanceof ApiError) {
    const fields = joinFieldErrors(error.errors);
    if (fields) return fields;
    if (error.message && error.message !== httpErrorMessage(error.status)) return error.message;
    return httpFallback;
  }
  return otherFallback;
}

/**
 * Who viewed me (docs/domain.md "Client state"): the list, total_count and its own loading state.
 */
export type ProfileViewer = MemberCardView & { viewed_at: string };

export interface ViewersState {
  viewers: ProfileViewer[];
  total_count: number;
  page: number;
  hasMore: boolean;
  isLoading: boolean;
  error: string | null;
}

export const initialViewersState: ViewersState = {
  viewers: [],
  total_count: 0,
  page: 0,
  hasMore: false,
  isLoading: false,
  error: null,
};

export interface ViewersResponse {
  viewers: ProfileViewer[];
  total_count: number;
  meta: { page: number; per_page: number; has_more: boolean };
}

export const viewersFetchStart = (s: ViewersState): ViewersState => ({
  ...s,
  isLoading: true,
  error: null,
});

/** Page 1 replaces the list; later pages append viewers not already shown. */
export const viewersFetchSuccess = (s: ViewersState, res: ViewersResponse): ViewersState => {
  const base = res.meta.page <= 1 ? [] : s.viewers;
  const seen = new Set(base.map((v) => v.id));
  return {
    viewers: [...base, ...res.viewers.filter((v) => !seen.has(v.id))],
    total_count: res.total_count,
    page: res.meta.page,
    hasMore: res.meta.has_more,
    isLoading: false,
    error: null,
  };
};

export const viewersFetchFailure = (s: ViewersState, error: string): ViewersState => ({
  ...s,
  isLoading: false,
  error,
});

// Atoms: one store per render tree (the root Provider), so nothing here is shared between requests.

export const profileStateAtom = atom<ProfileState>(initialProfileState);
export const viewersStateAtom = atom<ViewersState>(initialViewersState);

export const fetchProfileAtom = atom(null, async (get, set) => {
  set(profileStateAtom, fetchStart(get(profileStateAtom)));
  try {
    const { profile } = await api<{ profile: Profile }>("/my/profile");
    set(profileStateAtom, fetchSuccess(get(profileStateAtom), profile));
  } catch (error) {
    set(
      profileStateAtom,
      fetchFailure(
        get(profileStateAtom),
        errorMessage(error, PROFILE_ERRORS.fetchFailed, PROFILE_ERRORS.fetchError),
      ),
    );
  }
});

/** PUT /my/profile (the named route my.profile.update). Resolves to the field errors, if any. */
export const updateProfileAtom = atom(
  null,
  async (get, set, submitted: ProfileFormInput): Promise<Record<string, string[]> | null> => {
    set(profileStateAtom, updateStart(get(profileStateAtom)));
    try {
      const { profile } = await api<{ profile: Profile }>("/my/profile", {
        method: "PUT",
        body: submitted,
      });
      set(
        profileStateAtom,
        updateSuccess(get(profileStateAtom), submitted as Partial<Profile>, profile),
      );
      return null;
    } catch (error) {
      set(
        profileStateAtom,
        updateFailure(
          get(profileStateAtom),
          errorMessage(error, PROFILE_ERRORS.update, PROFILE_ERRORS.update),
        ),
      );
      return error instanceof ApiError && error.errors ? error.errors : {};
    }
  },
);

export const fetchViewersAtom = atom(null, async (get, set, page: number = 1) => {
  set(viewersStateAtom, viewersFetchStart(get(viewersStateAtom)));
  try {
    const res = await api<ViewersResponse>(`/my/profile-viewers?page=${page}`);
    set(viewersStateAtom, viewersFetchSuccess(get(viewersStateAtom), res));
  } catch (error) {
    set(
      viewersStateAtom,
      viewersFetchFailure(
        get(viewersStateAtom),
        errorMessage(error, PROFILE_ERRORS.viewersFailed, PROFILE_ERRORS.viewersError),
      ),
    );
  }
});
