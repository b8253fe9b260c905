import type { NotificationView } from "~/schemas/notifications";
import { atom } from "./jotai";

/**
 * Notifications on the client: the unread count the header shows, the newest notifications, and
 * the one that just arrived (a live toast). Transitions are pure functions; the realtime provider
 * feeds the member channel's frames in, the notifications page its own changes.
 */
export interface NotificationsState {
  unreadCount: number;
  latest: NotificationView[];
  /** The notification that arrived last on this page, until it is dismissed. */
  arrived: NotificationView | null;
}

export const LATEST_KEPT = 20;

export const initialNotificationsState: NotificationsState = {
  unreadCount: 0,
  latest: [],
  arrived: null,
};

export const notificationsLoaded = (
  s: NotificationsState,
  res: { notifications: NotificationView[]; unread_count: number },
): NotificationsState => ({
  ...s,
  unreadCount: res.unread_count,
  latest: res.notifications.slice(0, LATEST_KEPT),
});

export const notificationReceived = (
  s: NotificationsState,
  notification: NotificationView,
  unreadCount: number,
): NotificationsState => ({
  unreadCount,
  latest: [notification, ...s.latest.filter((n) => n.id !== notification.id)].slice(0, LATEST_KEPT),
  arrived: notification,
});

/** Some (ids) or all (null) notifications were read, here or on another page. */
export const notificationsRead = (
  s: NotificationsState,
  ids: string[] | null,
  unreadCount: number,
  now = new Date().toISOString(),
): NotificationsState => ({
  ...s,
  unreadCount,
  latest: s.latest.map((n) =>
    n.read_at === null && (ids === null || ids.includes(n.id)) ? { ...n, read_at: now } : n,
  ),
});

export const notificationDismissed = (s: NotificationsState): NotificationsState =>
  s.arrived ? { ...s, arrived: null } : s;

export const notificationsStateAtom = atom<NotificationsState>(initialNotificationsState);
