import { api, ApiError, httpErrorMessage, joinFieldErrors } from "~/lib/http";
import type { MemberCardView } from "~/lib/members";
import type { BlockReasonType } from "~/schemas/block";
import { atom } from "./jotai";

/**
 * Blocking on the client (docs/domain.md "Client state") with the transitions as pure
 * functions. Blocking and unblocking change only flags and timestamps: the list of blocked members
 * is refreshed separately (GET /my/blocked-users), and adding a member to it never duplicates one.
 */

/** GET /my/block/check/{userId}: I blocked them, they blocked me, both. */
export interface BlockStatus {
  is_blocked: boolean;
  is_blocked_by: boolean;
  has_mutual_block: boolean;
}

export type BlockedUser = MemberCardView & { blocked_at: string; reason_type: BlockReasonType };

export interface BlockedUsersResponse {
  blocked_users: BlockedUser[];
  meta?: { page: number; per_page: number; has_more: boolean };
}

export interface BlockingState {
  blockedUsers: BlockedUser[];
  /** Block status per member id, with when it was last set (epoch ms). */
  statuses: Record<string, BlockStatus & { updatedAt: number }>;
  page: number;
  hasMore: boolean;
  isLoading: boolean;
  isBlocking: boolean;
  isUnblocking: boolean;
  isChecking: boolean;
  error: string | null;
  /**
   * The last success message (docs/domain.md "Error messages" defaults when the server gives none).
   */
  message: string | null;
  /** When the list last came from the server. */
  lastUpdated: number | null;
  lastBlockedAt: number | null;
  lastUnblockedAt: number | null;
}

export const initialBlockingState: BlockingState = {
  blockedUsers: [],
  statuses: {},
  page: 0,
  hasMore: false,
  isLoading: false,
  isBlocking: false,
  isUnblocking: false,
  isChecking: false,
  error: null,
  message: null,
  lastUpdated: null,
  lastBlockedAt: null,
  lastUnblockedAt: null,
};

/**
 * docs/domain.md "Error messages": fallbacks when the server gives no message, and default
 * successes.
 */
export const BLOCKING_ERRORS = {
  fetch: "Failed to fetch blocked users",
  block: "Failed to block user",
  unblock: "Failed to unblock user",
  check: "Failed to check block status",
} as const;

export const BLOCKING_MESSAGES = {
  blocked: "User has been blocked successfully.",
  unblocked: "User has been unblocked successfully.",
} as const;

/**
 * The message to store for a failed block call: validation errors joined with commas, else the
 * server's message, else the fallback (also for a network failure or a response that is not JSON).
 */
export function blockingErrorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError) {
    const fields = joinFieldErrors(error.errors, ", ");
    if (fields) return fields;
    if (error.message && error.message !== httpErrorMessage(error.status)) return error.message;
  }
  return fallback;
}

const noBlock: BlockStatus = { is_blocked: false, is_blocked_by: false, has_mutual_block: false };

function withStatus(
  s: BlockingState,
  userId: string,
  change: Partial<BlockStatus>,
  now: number,
): BlockingState["statuses"] {
  const current = s.statuses[userId] ?? noBlock;
  const isBlocked = change.is_blocked ?? current.is_blocked;
  const isBlockedBy = change.is_blocked_by ?? current.is_blocked_by;
  return {
    ...s.statuses,
    [userId]: {
      is_blocked: isBlocked,
      is_blocked_by: isBlockedBy,
      has_mutual_block: isBlocked && isBlockedBy,
      updatedAt: now,
    },
  };
}

export const fetchBlockedStart = (s: BlockingState): BlockingState => ({
  ...s,
  isLoading: true,
  error: null,
});

/** Page 1 replaces the list; a later page adds the members not already in it. */
export const fetchBlockedSuccess = (
  s: BlockingState,
  res: BlockedUsersResponse,
  now = Date.now(),
): BlockingState => {
  const page = res.meta?.page ?? 1;
  const base = page <= 1 ? [] : s.blockedUsers;
  return {
    ...s,
    blockedUsers: res.blocked_users.reduce(addUnique, base),
    page,
    hasMore: res.meta?.has_more ?? false,
    isLoading: false,
    error: null,
    lastUpdated: now,
  };
};

export const fetchBlockedFailure = (s: BlockingState, error: string): BlockingState => ({
  ...s,
  isLoading: false,
  error,
});

function addUnique(list: BlockedUser[], user: BlockedUser): BlockedUser[] {
  return list.some((u) => u.id === user.id) ? list : [...list, user];
}

/** Adds a member to the blocked list unless they are already in it. */
export const addBlockedUser = (s: BlockingState, user: BlockedUser): BlockingState => {
  const blockedUsers = addUnique(s.blockedUsers, user);
  return blockedUsers === s.blockedUsers ? s : { ...s, blockedUsers };
};

export const blockStart = (s: BlockingState): BlockingState => ({
  ...s,
  isBlocking: true,
  error: null,
  message: null,
});

/** Marks the member blocked; the list itself is refreshed separately. */
export const blockSuccess = (
  s: BlockingState,
  userId: string,
  message?: string | null,
  now = Date.now(),
): BlockingState => ({
  ...s,
  statuses: withStatus(s, userId, { is_blocked: true }, now),
  isBlocking: false,
  error: null,
  message: message || BLOCKING_MESSAGES.blocked,
  lastBlockedAt: now,
});

export const blockFailure = (s: BlockingState, error: string): BlockingState => ({
  ...s,
  isBlocking: false,
  error,
});

export const unblockStart = (s: BlockingState): BlockingState => ({
  ...s,
  isUnblocking: true,
  error: null,
  message: null,
});

/** Marks the member unblocked; the list itself is refreshed separately. */
export const unblockSuccess = (
  s: BlockingState,
  userId: string,
  message?: string | null,
  now = Date.now(),
): BlockingState => ({
  ...s,
  statuses: withStatus(s, userId, { is_blocked: false }, now),
  isUnblocking: false,
  error: null,
  message: message || BLOCKING_MESSAGES.unblocked,
  lastUnblockedAt: now,
});

export const unblockFailure = (s: BlockingState, error: string): BlockingState => ({
  ...s,
  isUnblocking: false,
  error,
});

export const checkStart = (s: BlockingState): BlockingState => ({
  ...s,
  isChecking: true,
  error: null,
});

export const checkSuccess = (
  s: BlockingState,
  userId: string,
  status: BlockStatus,
  now = Date.now(),
): BlockingState => ({
  ...s,
  statuses: withStatus(s, userId, status, now),
  isChecking: false,
  error: null,
});

export const checkFailure = (s: BlockingState, error: string): BlockingState => ({
  ...s,
  isChecking: false,
  error,
});

export const clearBlockingMessages = (s: BlockingState): BlockingState =>
  s.error === null && s.message === null ? s : { ...s, error: null, message: null };

// Atoms: one store per render tree (the root Provider), so nothing here is shared between requests.

export const blockingStateAtom = atom<BlockingState>(initialBlockingState);

export const fetchBlockedUsersAtom = atom(null, async (get, set, page: number = 1) => {
  set(blockingStateAtom, fetchBlockedStart(get(blockingStateAtom)));
  try {
    const res = await api<BlockedUsersResponse>(`/my/blocked-users?page=${page}`);
    set(blockingStateAtom, fetchBlockedSuccess(get(blockingStateAtom), res));
  } catch (error) {
    set(
      blockingStateAtom,
      fetchBlockedFailure(
        get(blockingStateAtom),
        blockingErrorMessage(error, BLOCKING_ERRORS.fetch),
      ),
    );
  }
});

export interface BlockRequest {
  user_id: string;
  reason_type: BlockReasonType;
  reason?: string;
}

/** POST /my/block. Resolves to true when the member is now blocked. */
export const blockUserAtom = atom(null, async (get, set, input: BlockRequest) => {
  set(blockingStateAtom, blockStart(get(blockingStateAtom)));
  try {
    const res = await api<{ message?: string }>("/my/block", { method: "POST", body: input });
    set(blockingStateAtom, blockSuccess(get(blockingStateAtom), input.user_id, res?.message));
    return true;
  } catch (error) {
    set(
      blockingStateAtom,
      blockFailure(get(blockingStateAtom), blockingErrorMessage(error, BLOCKING_ERRORS.block)),
    );
    return false;
  }
});

/** DELETE /my/block/{userId}. Resolves to true when the member is now unblocked. */
export const unblockUserAtom = atom(null, async (get, set, userId: string) => {
  set(blockingStateAtom, unblockStart(get(blockingStateAtom)));
  try {
    const res = await api<{ message?: string }>(`/my/block/${encodeURIComponent(userId)}`, {
      method: "DELETE",
    });
    set(blockingStateAtom, unblockSuccess(get(blockingStateAtom), userId, res?.message));
    return true;
  } catch (error) {
    set(
      blockingStateAtom,
      unblockFailure(get(blockingStateAtom), blockingErrorMessage(error, BLOCKING_ERRORS.unblock)),
    );
    return false;
  }
});

/** GET /my/block/check/{userId}. */
export const checkBlockStatusAtom = atom(null, async (get, set, userId: string) => {
  set(blockingStateAtom, checkStart(get(blockingStateAtom)));
  try {
    const status = await api<BlockStatus>(`/my/block/check/${encodeURIComponent(userId)}`);
    set(blockingStateAtom, checkSuccess(get(blockingStateAtom), userId, status));
    return status;
  } catch (error) {
    set(
      blockingStateAtom,
      checkFailure(get(blockingStateAtom), blockingErrorMessage(error, BLOCKING_ERRORS.check)),
    );
    return null;
  }
});
