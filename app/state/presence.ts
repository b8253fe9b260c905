import { useMemo } from "react";
import type { PresenceServerFrame } from "~/realtime/presence";
import { atom, useAtomValue } from "./jotai";

/**
 * Presence on the client (SPEC.md §3 "Presence": the online user ids, a connected flag, an error)
 * and its SPEC.md §4 transitions as pure functions: the full list is set on joining the global
 * presence channel (`here`), then members join or leave one by one; an error sets the error and
 * marks it disconnected. The realtime provider (app/components/realtime.tsx) feeds the frames in.
 */
export interface PresenceState {
  users: string[];
  connected: boolean;
  error: string | null;
}

export const initialPresenceState: PresenceState = { users: [], connected: false, error: null };

/** SPEC.md §8: logged when the realtime client is absent (the app carries on without it). */
export const ECHO_NOT_INITIALIZED = "Echo not initialized";
export const PRESENCE_CONNECTION_ERROR = "Could not connect to the presence channel";

export const presenceHere = (_s: PresenceState, users: string[]): PresenceState => ({
  users: [...new Set(users)],
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

/** One frame of the room; a `presence` batch is its joins then its leaves, one by one. */
export function applyPresenceFrame(s: PresenceState, frame: PresenceServerFrame): PresenceState {
  switch (frame.type) {
    case "here":
      return presenceHere(s, frame.users);
    case "joining":
      return presenceJoining(s, frame.user_id);
    case "leaving":
      return presenceLeaving(s, frame.user_id);
    case "presence": {
      if (frame.joining.length + frame.leaving.length < 8) {
        let next = s;
        for (const id of frame.joining) next = presenceJoining(next, id);
        for (const id of frame.leaving) next = presenceLeaving(next, id);
        return next;
      }
      // The same result for a large batch, in one pass.
      const users = new Set(s.users);
      for (const id of frame.joining) users.add(id);
      for (const id of frame.leaving) users.delete(id);
      return { ...s, users: [...users] };
    }
    case "pong":
      return s;
  }
}

/**
 * Whether a member shows as online: the presence room's word while connected, otherwise what the
 * server said when the page was rendered (`fallback`, the member card's `online`).
 */
export function isOnlineIn(
  state: PresenceState,
  online: ReadonlySet<string>,
  id: string,
  fallback: boolean,
) {
  return state.connected ? online.has(id) : fallback;
}

// Atoms: one store per render tree (the root Provider), so nothing here is shared between requests.

export const presenceStateAtom = atom<PresenceState>(initialPresenceState);

export const onlineIdsAtom = atom((get) => new Set(get(presenceStateAtom).users));

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
          : isOnlineIn(get(presenceStateAtom), get(onlineIdsAtom), memberId, fallback),
      ),
    [memberId, fallback],
  );
  return useAtomValue(memberAtom);
}
