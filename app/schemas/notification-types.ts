/**
 * The kinds of notification, without the schemas (app/schemas/notifications.ts): every signed-in
 * page reads them (the member channel's frames) and most never validate a form.
 */

/** The kinds of notification a member can receive, and switch off one by one. */
export const NOTIFICATION_TYPES = ["message", "like", "match", "gift", "profile_view"] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** How settings name each kind. */
export const NOTIFICATION_TYPE_LABELS: Record<NotificationType, string> = {
  message: "New messages",
  like: "Likes",
  match: "Matches",
  gift: "Gifts",
  profile_view: "Profile views",
};
