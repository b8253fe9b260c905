import { describe, expect, it } from "vitest";
import { ApiError, httpErrorMessage } from "~/lib/http";
import {
  addBlockedUser,
  blockFailure,
  BLOCKING_ERRORS,
  BLOCKING_MESSAGES,
  blockingErrorMessage,
  blockStart,
  blockSuccess,
  checkFailure,
  checkStart,
  checkSuccess,
  clearBlockingMessages,
  fetchBlockedFailure,
  fetchBlockedStart,
  fetchBlockedSuccess,
  initialBlockingState,
  unblockFailure,
  unblockStart,
  unblockSuccess,
  type BlockedUser,
} from "~/state/blocking";
import { memberCard } from "../helpers/cards";

const member = (id: string): BlockedUser => ({
  ...memberCard(id, { username: `user_${id}` }),
  blocked_at: "2026-01-01T00:00:00.000Z",
  reason_type: "spam",
});

describe("blocking state (docs/domain.md: Client state)", () => {
  it("fetching the list goes loading → success, replacing the list on page 1", () => {
    const loading = fetchBlockedStart({ ...initialBlockingState, error: "old" });
    expect(loading).toMatchObject({ isLoading: true, error: null });
    const loaded = fetchBlockedSuccess(
      loading,
      {
        blocked_users: [member("a"), member("b")],
        meta: { page: 1, per_page: 50, has_more: true },
      },
      1000,
    );
    expect(loaded.blockedUsers.map((u) => u.id)).toEqual(["a", "b"]);
    expect(loaded).toMatchObject({ isLoading: false, hasMore: true, page: 1, lastUpdated: 1000 });

    const again = fetchBlockedSuccess(loaded, { blocked_users: [member("c")] }, 2000);
    expect(again.blockedUsers.map((u) => u.id)).toEqual(["c"]);
  });

  it("a later page appends without duplicates", () => {
    const first = fetchBlockedSuccess(initialBlockingState, {
      blocked_users: [member("a"), member("b")],
      meta: { page: 1, per_page: 2, has_more: true },
    });
    const second = fetchBlockedSuccess(first, {
      blocked_users: [member("b"), member("c")],
      meta: { page: 2, per_page: 2, has_more: false },
    });
    expect(second.blockedUsers.map((u) => u.id)).toEqual(["a", "b", "c"]);
    expect(second.hasMore).toBe(false);
  });

  it("a failed fetch stores the error and stops loading", () => {
    const failed = fetchBlockedFailure(fetchBlockedStart(initialBlockingState), "boom");
    expect(failed).toMatchObject({ isLoading: false, error: "boom" });
  });

  it("adding a blocked member avoids duplicates", () => {
    const one = addBlockedUser(initialBlockingState, member("a"));
    const same = addBlockedUser(one, { ...member("a"), reason_type: "other" });
    expect(same).toBe(one);
    expect(same.blockedUsers).toHaveLength(1);
    expect(addBlockedUser(one, member("b")).blockedUsers.map((u) => u.id)).toEqual(["a", "b"]);
  });

  it("blocking updates only flags and timestamps, never the list", () => {
    const listed = fetchBlockedSuccess(initialBlockingState, { blocked_users: [member("a")] });
    const started = blockStart({ ...listed, message: "old", error: "old" });
    expect(started).toMatchObject({ isBlocking: true, error: null, message: null });
    const done = blockSuccess(started, "z", undefined, 5000);
    expect(done.blockedUsers).toBe(listed.blockedUsers);
    expect(done.statuses.z).toEqual({
      is_blocked: true,
      is_blocked_by: false,
      has_mutual_block: false,
      updatedAt: 5000,
    });
    expect(done).toMatchObject({
      isBlocking: false,
      lastBlockedAt: 5000,
      message: BLOCKING_MESSAGES.blocked,
    });
    expect(blockSuccess(started, "z", "Blocked!").message).toBe("Blocked!");
  });

  it("blocking someone who blocked me makes the block mutual; unblocking keeps theirs", () => {
    const known = checkSuccess(initialBlockingState, "z", {
      is_blocked: false,
      is_blocked_by: true,
      has_mutual_block: false,
    });
    const blocked = blockSuccess(known, "z", null, 10);
    expect(blocked.statuses.z).toMatchObject({ is_blocked: true, has_mutual_block: true });
    const started = unblockStart(blocked);
    expect(started.isUnblocking).toBe(true);
    const unblocked = unblockSuccess(started, "z", null, 20);
    expect(unblocked.statuses.z).toEqual({
      is_blocked: false,
      is_blocked_by: true,
      has_mutual_block: false,
      updatedAt: 20,
    });
    expect(unblocked).toMatchObject({
      isUnblocking: false,
      lastUnblockedAt: 20,
      message: BLOCKING_MESSAGES.unblocked,
    });
  });

  it("unblocking leaves the list as it was (it is refreshed separately)", () => {
    const listed = fetchBlockedSuccess(initialBlockingState, { blocked_users: [member("a")] });
    const unblocked = unblockSuccess(unblockStart(listed), "a");
    expect(unblocked.blockedUsers).toBe(listed.blockedUsers);
  });

  it("failures store the error and clear the busy flag", () => {
    expect(blockFailure(blockStart(initialBlockingState), "x")).toMatchObject({
      isBlocking: false,
      error: "x",
    });
    expect(unblockFailure(unblockStart(initialBlockingState), "y")).toMatchObject({
      isUnblocking: false,
      error: "y",
    });
    const checking = checkStart(initialBlockingState);
    expect(checking.isChecking).toBe(true);
    expect(checkFailure(checking, "z")).toMatchObject({ isChecking: false, error: "z" });
  });

  it("a check stores the three flags for that member", () => {
    const s = checkSuccess(
      checkStart(initialBlockingState),
      "q",
      { is_blocked: true, is_blocked_by: true, has_mutual_block: true },
      7,
    );
    expect(s.statuses.q).toEqual({
      is_blocked: true,
      is_blocked_by: true,
      has_mutual_block: true,
      updatedAt: 7,
    });
    expect(s.isChecking).toBe(false);
  });

  it("clearing messages drops error and success message", () => {
    const s = blockSuccess(initialBlockingState, "a");
    expect(clearBlockingMessages(s)).toMatchObject({ message: null, error: null });
    expect(clearBlockingMessages(initialBlockingState)).toBe(initialBlockingState);
  });
});

describe("blocking error messages (docs/domain.md: Error messages)", () => {
  it("joins validation errors with commas", () => {
    const error = new ApiError(422, "Please choose a reason.", {
      reason_type: ["Please choose a reason."],
      reason: ["The reason may not be longer than 500 characters."],
    });
    expect(blockingErrorMessage(error, BLOCKING_ERRORS.block)).toBe(
      "Please choose a reason., The reason may not be longer than 500 characters.",
    );
  });

  it("uses the server's message when there is one", () => {
    expect(
      blockingErrorMessage(new ApiError(404, "Member not found."), BLOCKING_ERRORS.block),
    ).toBe("Member not found.");
  });

  it("falls back to docs/domain.md's messages otherwise", () => {
    expect(
      blockingErrorMessage(new ApiError(500, httpErrorMessage(500)), BLOCKING_ERRORS.fetch),
    ).toBe("Failed to fetch blocked users");
    expect(blockingErrorMessage(new TypeError("Failed to fetch"), BLOCKING_ERRORS.block)).toBe(
      "Failed to block user",
    );
    expect(blockingErrorMessage(null, BLOCKING_ERRORS.unblock)).toBe("Failed to unblock user");
    expect(blockingErrorMessage(undefined, BLOCKING_ERRORS.check)).toBe(
      "Failed to check block status",
    );
  });
});
