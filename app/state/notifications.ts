import type { NotificationView } from "~/schemas/notifications";
import { atom } from "./jotai";

/**
 * Notifications on the client: the unread count the header shows, the newest notifications, and
 * the one that just arrived (a live toast). Transitions are pure functions; the realtime provider
 * feeds the member channel's frames in, the notifications page its own changes.
 */
export interface NotificationsState {
  unreadCount: number;
  /**
   * The rows those make on the notifications page (docs/decisions/028), which the bell shows; null
   * when the server did not say (a page of the previous version's server).
   */
  unreadGroups: number | null;
  latest: NotificationView[];
  /** The notification that arrived last on this page, until it is dismissed. */
  arrived: NotificationView | null;
  /**
   * Members whose match this page is celebrating (the match moment's dialog): their match
   * notification counts as unread like any other, but gets no toast of its own on top.
   */
  celebrated: string[];
}

export const LATEST_KEPT = 20;

export const initialNotificationsState: NotificationsState = {
  unreadCount: 0,
  unreadGroups: null,
  latest: [],
  arrived: null,
  celebrated: [],
};

/** The unread counts an answer or a frame carries (a bare number: notifications only). */
export type UnreadCounts = number | { unread_count: number; unread_groups?: number };

const unread = (u: UnreadCounts) =>
  typeof u === "number"
    ? { unreadCount: u, unreadGroups: null }
    : { unreadCount: u.unread_count, unreadGroups: u.unread_groups ?? null };

/** The bell's number: the rows of unread notifications, or their count from an older server. */
export const bellCount = (s: NotificationsState) => s.unreadGroups ?? s.unreadCount;

export const notificationsLoaded = (
  s: NotificationsState,
  res: { notifications: NotificationView[]; unread_count: number; unread_groups?: number },
): NotificationsState => ({
  ...s,
  ...unread(res),
  latest: res.notifications.slice(0, LATEST_KEPT),
});

export const notificationReceived = (
  s: NotificationsState,
  notification: NotificationView,
  counts: UnreadCounts,
): NotificationsState => ({
  ...s,
  ...unread(counts),
  latest: [notification, ...s.latest.filter((n) => n.id !== notification.id)].slice(0, LATEST_KEPT),
  arrived: isCelebratedMatch(s, notification) ? s.arrived : notification,
});

const isCelebratedMatch = (s: NotificationsState, n: NotificationView): boolean => {
  const actor = n.data.actor as { id?: unknown } | null | undefined;
  return n.type === "match" && typeof actor?.id === "string" && s.celebrated.includes(actor.id);
};

/**
 * My like just made a match with this member and the page celebrates it: one moment, so the match
 * notification (which may come over the member channel before or after the like's answer) shows
 * no toast as well.
 */
export const matchCelebrated = (s: NotificationsState, memberId: string): NotificationsState => {
  const celebrated = s.celebrated.includes(memberId) ? s.celebrated : [...s.celebrated, memberId];
  const next = { ...s, celebrated };
  return next.arrived && isCelebratedMatch(next, next.arrived) ? { ...next, arrived: null } : next;
};

/** Some (ids) or all (null) notifications were read, here or on another page. */
export const notificationsRead = (
  s: NotificationsState,
  ids: string[] | null,
  counts: UnreadCounts,
  now = new Date().toISOString(),
): NotificationsState => ({
  ...s,
  ...unread(counts),
  latest: s.latest.map((n) =>
    n.read_at === null && (ids === null || ids.includes(n.id)) ? { ...n, read_at: now } : n,
  ),
});

export const notificationDismissed = (s: NotificationsState): NotificationsState =>
  s.arrived ? { ...s, arrived: null } : s;

export const notificationsStateAtom = atom<NotificationsState>(initialNotificationsState);
