import { createContext, createElement, useContext, useMemo, type ReactNode } from "react";
import { PRESENCE_WATCH_LIMIT, type PresenceServerFrame } from "~/realtime/presence";
import { atom, useAtomValue, useStore, type Atom } from "./jotai";

/**
 * Presence on the client (docs/domain.md "Client state": the online user ids, a connected flag, an
 * error) and its transitions as pure functions, for the members the page watches
 * (app/realtime/use-presence-watch.ts): the list is set on `here` (after every watch), then
 * members join or leave one by one; an error sets the error and marks it disconnected. Also the
 * count of members online (`online_count`). The realtime provider (app/components/realtime.tsx)
 * feeds the frames in.
 */
export interface PresenceState {
  users: string[];
  connected: boolean;
  error: string | null;
  /** Members online everywhere (null until the room has said). */
  onlineCount: number | null;
  /**
   * The members the last `here` answered for (the watch set it follows); null when it answered
   * for the member's contacts, which the page does not know.
   */
  watched: string[] | null;
}

export const initialPresenceState: PresenceState = {
  users: [],
  connected: false,
  error: null,
  onlineCount: null,
  watched: null,
};

/**
 * docs/domain.md "Error messages": logged when the realtime client is absent (the app carries on
 * without it).
 */
export const ECHO_NOT_INITIALIZED = "Echo not initialized";
export const PRESENCE_CONNECTION_ERROR = "Could not connect to the presence channel";

export const presenceHere = (
  s: PresenceState,
  users: string[],
  watched: string[] | null = null,
): PresenceState => ({
  ...s,
  users: [...new Set(users)],
  watched,
  connected: true,
  error: null,
});

export const presenceJoining = (s: PresenceState, userId: string): PresenceState =>
  s.users.includes(userId) ? s : { ...s, users: [...s.users, userId] };

export const presenceLeaving = (s: PresenceState, userId: string): PresenceState =>
  s.users.includes(userId) ? { ...s, users: s.users.filter((id) => id !== userId) } : s;

export const presenceError = (s: PresenceState, error: string): PresenceState => ({
  ...s,
  error,
  connected: false,
});

/** The socket closed (it reconnects by itself): the list is stale until the next `here`. */
export const presenceDisconnected = (s: PresenceState): PresenceState =>
  s.connected ? { ...s, connected: false } : s;

export const presenceOnlineCount = (s: PresenceState, count: number): PresenceState =>
  s.onlineCount === count ? s : { ...s, onlineCount: count };

/** One frame of the room; a `here` with the watch set it answers (null: the contacts). */
export function applyPresenceFrame(
  s: PresenceState,
  frame: PresenceServerFrame,
  answered: string[] | null = null,
): PresenceState {
  switch (frame.type) {
    case "here":
      return presenceHere(s, frame.users, answered);
    case "joining":
      return presenceJoining(s, frame.user_id);
    case "leaving":
      return presenceLeaving(s, frame.user_id);
    case "online_count":
      return presenceOnlineCount(s, frame.count);
    case "error":
      return presenceError(s, frame.message);
    case "pong":
      return s;
  }
}

/**
 * The watch set of a page: the members every part of it shows, each once, in the order they
 * appear, at most the room's limit (the first ones, which are the ones on screen first).
 */
export function watchUnion(
  lists: Iterable<readonly string[]>,
  limit = PRESENCE_WATCH_LIMIT,
): string[] {
  const ids = new Set<string>();
  for (const list of lists) {
    for (const id of list) {
      if (ids.size >= limit) return [...ids];
      ids.add(id);
    }
  }
  return [...ids];
}

/**
 * Whether a member shows as online: the presence room's word while connected and the member is in
 * the set the last `here` answered for; otherwise what the server said when the page was rendered
 * (`fallback`, the member card's `online`), as for a page just opened whose `here` is on its way.
 * Both halves are app/lib/online.ts's definition: live, and stored (which lags it, ONLINE_LAG_MS).
 */
export function isOnlineIn(
  state: PresenceState,
  online: ReadonlySet<string>,
  watched: ReadonlySet<string> | null,
  id: string,
  fallback: boolean,
) {
  if (!state.connected) return fallback;
  if (watched === null) return online.has(id) || fallback;
  return watched.has(id) ? online.has(id) : fallback;
}

// Atoms: one store per render tree (the root Provider), so nothing here is shared between requests.

export const presenceStateAtom = atom<PresenceState>(initialPresenceState);

export const onlineIdsAtom = atom((get) => new Set(get(presenceStateAtom).users));

export const onlineCountAtom = atom((get) => get(presenceStateAtom).onlineCount);

const watchedIdsAtom = atom((get) => {
  const { watched } = get(presenceStateAtom);
  return watched === null ? null : new Set(watched);
});

/**
 * The store the realtime provider feeds. A feature with a store of its own (a nested Provider,
 * like the search) wraps it in KeepPresenceStore so that its online dots still read the page's.
 */
const PresenceStoreContext = createContext<ReturnType<typeof useStore> | null>(null);

export function KeepPresenceStore({ children }: { children: ReactNode }) {
  const store = useStore();
  const outer = useContext(PresenceStoreContext);
  return createElement(PresenceStoreContext.Provider, { value: outer ?? store }, children);
}

/**
 * The page's store, the one the realtime provider feeds (notifications too), from inside a
 * feature with a store of its own (see KeepPresenceStore).
 */
export function usePageStore() {
  return useContext(PresenceStoreContext) ?? undefined;
}

/** Reads a presence atom from the page's store (see KeepPresenceStore). */
export function usePresenceValue<T>(a: Atom<T>): T {
  const store = useContext(PresenceStoreContext) ?? undefined;
  return useAtomValue(a, { store });
}

/**
 * The online dot of one member, for every place members appear. Re-renders only when that
 * member's own state changes.
 */
export function useIsOnline(memberId: string | null, fallback: boolean): boolean {
  const memberAtom = useMemo(
    () =>
      atom((get) =>
        memberId === null
          ? fallback
          : isOnlineIn(
              get(presenceStateAtom),
              get(onlineIdsAtom),
              get(watchedIdsAtom),
              memberId,
              fallback,
            ),
      ),
    [memberId, fallback],
  );
  return usePresenceValue(memberAtom);
}
