import type { MemberCardView } from "~/lib/members";
import type { LikeNote } from "~/schemas/like-comment";
import { atom } from "./jotai";

/**
 * The likes page's three lists (who liked me, whom I liked, matches) and how a like or an unlike
 * moves a member between them, as pure functions the page's atom calls.
 */
export type LikedMember = MemberCardView & {
  liked_at?: string;
  matched_at?: string;
} & Partial<LikeNote>;

export interface LikeListMeta {
  page: number;
  per_page: number;
  total: number;
  has_more: boolean;
}

export type LikeListName = "received" | "sent" | "matches";

export interface LikesState {
  received: LikedMember[];
  sent: LikedMember[];
  matches: LikedMember[];
  meta: Record<LikeListName, LikeListMeta>;
  /** The list whose next page is loading, if any, and the last error. */
  loading: LikeListName | null;
  error: string | null;
}

export interface LikesResponse {
  received?: LikedMember[];
  sent?: LikedMember[];
  matches?: LikedMember[];
  meta: Partial<Record<LikeListName, LikeListMeta>>;
}

export const LIKES_ERRORS = {
  load: "Failed to load likes",
} as const;

const emptyMeta: LikeListMeta = { page: 0, per_page: 0, total: 0, has_more: false };

export const initialLikesState: LikesState = {
  received: [],
  sent: [],
  matches: [],
  meta: { received: emptyMeta, sent: emptyMeta, matches: emptyMeta },
  loading: null,
  error: null,
};

const without = (list: LikedMember[], id: string) => list.filter((m) => m.id !== id);
const bump = (meta: LikeListMeta, by: number): LikeListMeta => ({
  ...meta,
  total: Math.max(0, meta.total + by),
});

/** GET /my/likes (every list) or one list's next page: later pages are added after the list. */
export function likesLoaded(s: LikesState, res: LikesResponse): LikesState {
  const next: LikesState = { ...s, loading: null, error: null, meta: { ...s.meta } };
  for (const name of ["received", "sent", "matches"] as const) {
    const page = res[name];
    const meta = res.meta[name];
    if (!page || !meta) continue;
    const base = meta.page <= 1 ? [] : s[name];
    const shown = new Set(base.map((m) => m.id));
    next[name] = [...base, ...page.filter((m) => !shown.has(m.id))];
    next.meta[name] = meta;
  }
  return next;
}

export const likesLoadStart = (s: LikesState, list: LikeListName): LikesState => ({
  ...s,
  loading: list,
  error: null,
});

export const likesLoadFailure = (s: LikesState, error: string): LikesState => ({
  ...s,
  loading: null,
  error,
});

/** I liked a member: a match when they liked me (they move to matches), else one I liked. */
export function memberLiked(
  s: LikesState,
  member: LikedMember,
  isMatch: boolean,
  now = new Date().toISOString(),
): LikesState {
  const wasReceived = s.received.some((m) => m.id === member.id);
  if (isMatch) {
    if (s.matches.some((m) => m.id === member.id)) return s;
    return {
      ...s,
      received: without(s.received, member.id),
      matches: [{ ...member, matched_at: now }, ...s.matches],
      meta: {
        ...s.meta,
        received: wasReceived ? bump(s.meta.received, -1) : s.meta.received,
        matches: bump(s.meta.matches, 1),
      },
    };
  }
  if (s.sent.some((m) => m.id === member.id)) return s;
  return {
    ...s,
    sent: [{ ...member, liked_at: now }, ...s.sent],
    meta: { ...s.meta, sent: bump(s.meta.sent, 1) },
  };
}

/** I took my like back: from my sent likes, or from matches back to those who liked me. */
export function memberUnliked(s: LikesState, member: LikedMember): LikesState {
  const wasMatch = s.matches.some((m) => m.id === member.id);
  const wasSent = s.sent.some((m) => m.id === member.id);
  if (!wasMatch && !wasSent) return s;
  if (wasMatch) {
    const { matched_at: matchedAt, ...card } = member;
    return {
      ...s,
      matches: without(s.matches, member.id),
      received: [{ ...card, liked_at: matchedAt }, ...s.received],
      meta: {
        ...s.meta,
        matches: bump(s.meta.matches, -1),
        received: bump(s.meta.received, 1),
      },
    };
  }
  return {
    ...s,
    sent: without(s.sent, member.id),
    meta: { ...s.meta, sent: bump(s.meta.sent, -1) },
  };
}

export const likesStateAtom = atom<LikesState>(initialLikesState);
