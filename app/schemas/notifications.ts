import { z } from "./zod";
import {
  NOTIFICATION_TYPE_LABELS,
  NOTIFICATION_TYPES,
  type NotificationType,
} from "./notification-types";
import { pageQuery } from "./query";

export { NOTIFICATION_TYPE_LABELS, NOTIFICATION_TYPES, type NotificationType };

/** docs/api.md "Notifications": one notification as the list and the live channel show it. */
export interface NotificationView {
  id: string;
  type: NotificationType;
  /** What the kind carries (a conversation, a gift…) plus `actor`: the member's card, or null. */
  data: Record<string, unknown>;
  read_at: string | null;
  created_at: string;
}

export type NotificationPreferences = Record<NotificationType, boolean>;

/** PUT /my/notification-preferences: any of the kinds, each on or off. */
export const notificationPreferencesSchema = z.strictObject(
  Object.fromEntries(
    NOTIFICATION_TYPES.map((t) => [t, z.boolean({ error: "Must be true or false." }).optional()]),
  ) as Record<NotificationType, z.ZodOptional<z.ZodBoolean>>,
);

export const notificationsQuerySchema = pageQuery(20, 50);

/**
 * A switch of a plain form: a hidden "off" followed by a checkbox "on" under one name, so the
 * last value sent is the switch's state. A switch that is missing is an error, never "off": a
 * body without the form's fields changes nothing.
 */
const checkbox = z.enum(["on", "off"], { error: "Must be on or off." });

/** The privacy page's form. */
export const privacyFormSchema = z.object({ hide_online: checkbox });

/** The notification settings page's form: one checkbox per kind. */
export const notificationFormSchema = z.object(
  Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, checkbox])) as Record<
    NotificationType,
    typeof checkbox
  >,
);

/** PUT /my/privacy. */
export const privacySchema = z.strictObject({
  hide_online: z.boolean({ error: "Must be true or false." }),
});

/**
 * The notifications page's "mark read" form: the ids of one row (a notification, or a grouped
 * row's unread ones), comma-separated, at most a page's worth.
 */
export const notificationsReadFormSchema = z.object({
  ids: z
    .string({ error: "Choose what to mark read." })
    .transform((v) => v.split(",").filter((id) => id.length > 0))
    .pipe(
      z
        .array(z.string().max(64, "Unknown notification."))
        .min(1, "Choose what to mark read.")
        .max(100, "Too many at once."),
    ),
  /**
   * The row the ids came from (app/lib/notification-groups.ts keys): its unread notifications the
   * page has not loaded are marked read too, so that the row is read as a whole.
   */
  group: z
    .string()
    .regex(/^(like|profile_view|conversation:[A-Za-z0-9_-]{1,64})$/, "Unknown notification.")
    .optional(),
});
