import { describe, expect, it } from "vitest";
import { ApiError, httpErrorMessage } from "~/lib/http";
import {
  errorMessage,
  fetchFailure,
  fetchStart,
  fetchSuccess,
  initialProfileState,
  initialViewersState,
  photosChanged,
  PROFILE_ERRORS,
  updateFailure,
  updateStart,
  updateSuccess,
  viewersFetchFailure,
  viewersFetchStart,
  viewersFetchSuccess,
  type ProfileViewer,
} from "~/state/profile";
import { memberCard, storedProfile } from "../helpers/cards";

const profile = storedProfile();

const viewer = (id: string): ProfileViewer => ({
  ...memberCard(id),
  viewed_at: "2026-01-01T00:00:00.000Z",
});

describe("profile fetch transitions (docs/domain.md: Client state)", () => {
  it("starts loading and clears the error", () => {
    const s = fetchStart({ ...initialProfileState, error: "old" });
    expect(s).toEqual({ ...initialProfileState, isLoading: true, error: null });
  });

  it("stores the data, stops loading and stamps lastUpdated", () => {
    const s = fetchSuccess(fetchStart(initialProfileState), profile, 1234);
    expect(s).toEqual({
      data: profile,
      isLoading: false,
      isUpdating: false,
      error: null,
      lastUpdated: 1234,
    });
  });

  it("keeps the data it had on failure and stores the error", () => {
    const loaded = fetchSuccess(initialProfileState, profile, 1);
    const s = fetchFailure(fetchStart(loaded), "Failed to fetch profile");
    expect(s).toEqual({ ...loaded, isLoading: false, error: "Failed to fetch profile" });
  });

  it("does not change the state it is given", () => {
    const before = Object.freeze({ ...initialProfileState });
    fetchStart(before);
    fetchSuccess(before, profile);
    fetchFailure(before, "x");
    expect(before).toEqual(initialProfileState);
  });
});

describe("profile update transitions (docs/domain.md: Client state)", () => {
  const loaded = fetchSuccess(initialProfileState, profile, 1);

  it("starts updating and clears the error", () => {
    expect(updateStart({ ...loaded, error: "old" })).toEqual({
      ...loaded,
      isUpdating: true,
      error: null,
    });
  });

  it("merges the submitted data into the existing profile", () => {
    const s = updateSuccess(
      updateStart(loaded),
      { bio: "New bio", interests: ["Go"] },
      undefined,
      99,
    );
    expect(s.data).toEqual({ ...profile, bio: "New bio", interests: ["Go"] });
    expect(s).toMatchObject({ isUpdating: false, error: null, lastUpdated: 99 });
  });

  it("takes the server's answer over the submitted data", () => {
    const server = { ...profile, bio: "Trimmed", username: "ada" };
    const s = updateSuccess(updateStart(loaded), { bio: "  Trimmed  " }, server, 5);
    expect(s.data).toEqual(server);
  });

  it("without data yet, the server's profile becomes the data", () => {
    expect(updateSuccess(initialProfileState, { bio: "x" }, profile, 1).data).toEqual(profile);
    expect(updateSuccess(initialProfileState, { bio: "x" }, undefined, 1).data).toBeNull();
  });

  it("keeps the profile and stores the error on failure", () => {
    const s = updateFailure(updateStart(loaded), "Username must be at least 3 characters");
    expect(s).toEqual({
      ...loaded,
      isUpdating: false,
      error: "Username must be at least 3 characters",
    });
  });

  it("photosChanged replaces the photos only", () => {
    const urls = { 160: "/photos/p1?w=160", 400: "/photos/p1?w=400", 720: "/photos/p1?w=720" };
    const photos = [{ id: "p1", url: urls[720], urls, position: 0 }];
    expect(photosChanged(loaded, photos).data).toEqual({ ...profile, photos });
    expect(photosChanged(initialProfileState, photos)).toBe(initialProfileState);
  });
});

describe("error messages (docs/domain.md: Error messages)", () => {
  const fallbacks = [PROFILE_ERRORS.fetchFailed, PROFILE_ERRORS.fetchError] as const;

  it("joins field errors with ', '", () => {
    const error = new ApiError(422, "Username must be at least 3 characters", {
      username: ["Username must be at least 3 characters"],
      "ageRange.min": ["Minimum age must be at least 18"],
    });
    expect(errorMessage(error, ...fallbacks)).toBe(
      "Username must be at least 3 characters, Minimum age must be at least 18",
    );
  });

  it("uses the server's message when it gives one", () => {
    expect(
      errorMessage(new ApiError(403, "Your email address is not verified."), ...fallbacks),
    ).toBe("Your email address is not verified.");
  });

  it("falls back for an HTTP failure without a message, and for anything else", () => {
    expect(errorMessage(new ApiError(500, httpErrorMessage(500)), ...fallbacks)).toBe(
      "Failed to fetch profile",
    );
    expect(errorMessage(new TypeError("Failed to fetch"), ...fallbacks)).toBe(
      "An error occurred while fetching profile",
    );
  });

  it("has docs/domain.md's fallback texts", () => {
    expect(PROFILE_ERRORS).toEqual({
      update: "An error occurred while updating profile",
      fetchFailed: "Failed to fetch profile",
      fetchError: "An error occurred while fetching profile",
      viewersFailed: "Failed to fetch profile viewers",
      viewersError: "An error occurred while fetching profile viewers",
    });
  });
});

describe("viewers transitions", () => {
  const page = (n: number, ids: string[], hasMore: boolean, total = 3) => ({
    viewers: ids.map(viewer),
    total_count: total,
    meta: { page: n, per_page: 2, has_more: hasMore },
  });

  it("loads page 1, then appends later pages without duplicates", () => {
    let s = viewersFetchSuccess(viewersFetchStart(initialViewersState), page(1, ["a", "b"], true));
    expect(s).toMatchObject({ total_count: 3, page: 1, hasMore: true, isLoading: false });
    s = viewersFetchSuccess(viewersFetchStart(s), page(2, ["b", "c"], false));
    expect(s.viewers.map((v) => v.id)).toEqual(["a", "b", "c"]);
    expect(s).toMatchObject({ page: 2, hasMore: false });
    // Page 1 again replaces the list.
    s = viewersFetchSuccess(s, page(1, ["c"], false, 1));
    expect(s.viewers.map((v) => v.id)).toEqual(["c"]);
  });

  it("stores the error and keeps the list on failure", () => {
    const loaded = viewersFetchSuccess(initialViewersState, page(1, ["a"], false));
    const s = viewersFetchFailure(viewersFetchStart(loaded), PROFILE_ERRORS.viewersFailed);
    expect(s).toEqual({ ...loaded, isLoading: false, error: "Failed to fetch profile viewers" });
  });
});
