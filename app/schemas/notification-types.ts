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

/**
 * Account notices: a moderator's decision about the member's own account (their photo
 * verification, their appeal; docs/decisions/049). Not one of the kinds above: no switch turns
 * them off, they are always on the bell, and they are never pushed nor put in the digest (an
 * email of their own tells them).
 */
export const ACCOUNT_NOTICE_TYPES = ["verification", "appeal"] as const;
export type AccountNoticeType = (typeof ACCOUNT_NOTICE_TYPES)[number];

/** Every kind a stored notification may be: the kinds a member switches, and account notices. */
export const NOTIFICATION_KINDS = [...NOTIFICATION_TYPES, ...ACCOUNT_NOTICE_TYPES] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Whether a notification is of a kind the member's settings switch (not an account notice). */
export const isSwitchedKind = (kind: NotificationKind): kind is NotificationType =>
  (NOTIFICATION_TYPES as readonly string[]).includes(kind);
