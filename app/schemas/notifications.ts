import { z } from "./zod";
import {
  ACCOUNT_NOTICE_TYPES,
  NOTIFICATION_KINDS,
  NOTIFICATION_TYPE_LABELS,
  NOTIFICATION_TYPES,
  type AccountNoticeType,
  type NotificationKind,
  type NotificationType,
} from "./notification-types";
import { pageQuery } from "./query";

export {
  ACCOUNT_NOTICE_TYPES,
  NOTIFICATION_KINDS,
  NOTIFICATION_TYPE_LABELS,
  NOTIFICATION_TYPES,
  type AccountNoticeType,
  type NotificationKind,
  type NotificationType,
};

/** docs/api.md "Notifications": one notification as the list and the live channel show it. */
export interface NotificationView {
  id: string;
  type: NotificationKind;
  /** What the kind carries (a conversation, a gift…) plus `actor`: the member's card, or null. */
  data: Record<string, unknown>;
  read_at: string | null;
  created_at: string;
}

/** Where a member can hear of something: in the app, as a push, in the email digest. */
export const NOTIFICATION_CHANNELS = ["in_app", "push", "email"] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

export const NOTIFICATION_CHANNEL_LABELS: Record<NotificationChannel, string> = {
  in_app: "In the app",
  push: "Push",
  email: "Email",
};

export type ChannelSwitches = Record<NotificationChannel, boolean>;
export type NotificationPreferences = Record<NotificationType, ChannelSwitches>;

/**
 * Each kind's channels before the member changes them: everything in the app; pushes for what
 * someone did for the member (not for a visit to their profile); the email digest names
 * conversations, matches and likes only.
 */
export const DEFAULT_CHANNELS: NotificationPreferences = {
  message: { in_app: true, push: true, email: true },
  like: { in_app: true, push: true, email: true },
  match: { in_app: true, push: true, email: true },
  gift: { in_app: true, push: true, email: false },
  profile_view: { in_app: true, push: false, email: false },
};

/** Hours without pushes, in the member's own time zone ("22:00" to "08:00" spans midnight). */
export interface QuietHours {
  start: string;
  end: string;
  time_zone: string;
}

/** GET /my/notification-preferences. */
export interface NotificationSettings {
  preferences: NotificationPreferences;
  quiet_hours: QuietHours | null;
  preview: boolean;
}

/** A change: any channels of any kinds, the quiet hours (null: none) and the preview. */
export interface NotificationSettingsChange {
  preferences?: Partial<Record<NotificationType, Partial<ChannelSwitches>>>;
  quiet_hours?: QuietHours | null;
  preview?: boolean;
}

const onOff = z.boolean({ error: "Must be true or false." });

/** A kind's change: its channels, or a bare boolean for the in-app switch (as before channels). */
const kindChange = z.union(
  [
    onOff.transform((in_app) => ({ in_app })),
    z.strictObject(
      Object.fromEntries(NOTIFICATION_CHANNELS.map((c) => [c, onOff.optional()])) as Record<
        NotificationChannel,
        z.ZodOptional<typeof onOff>
      >,
    ),
  ],
  { error: "Must be true or false, or the kind's channels." },
);

const kindChanges = Object.fromEntries(
  NOTIFICATION_TYPES.map((t) => [t, kindChange.optional()]),
) as Record<NotificationType, z.ZodOptional<typeof kindChange>>;

/** A time of day as the time input sends it. */
const timeOfDay = z
  .string({ error: "Must be a time like 22:00." })
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Must be a time like 22:00.");

/** Whether the runtime knows `zone` as an IANA time zone. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone.length > 0 && zone.length <= 64;
  } catch {
    return false;
  }
}

const quietHoursSchema = z
  .strictObject({
    start: timeOfDay,
    end: timeOfDay,
    time_zone: z
      .string({ error: "Choose a time zone." })
      .refine(isTimeZone, "Choose a time zone from the list."),
  })
  .refine((q) => q.start !== q.end, {
    message: "Quiet hours must end at another time than they start.",
    path: ["end"],
  });

/**
 * PUT /my/notification-preferences: any part of GET's shape, merged into what is stored. A kind
 * may also be given at the top level (`{"like": false}`), as before channels.
 */
export const notificationPreferencesSchema = z
  .strictObject({
    ...kindChanges,
    preferences: z.strictObject(kindChanges).optional(),
    quiet_hours: quietHoursSchema.nullable().optional(),
    preview: onOff.optional(),
  })
  .transform(({ preferences, quiet_hours, preview, ...topLevel }): NotificationSettingsChange => {
    const kinds: NonNullable<NotificationSettingsChange["preferences"]> = {};
    for (const type of NOTIFICATION_TYPES) {
      const change = { ...topLevel[type], ...preferences?.[type] };
      if (Object.keys(change).length > 0) kinds[type] = change;
    }
    return { preferences: kinds, quiet_hours, preview };
  });

export const notificationsQuerySchema = pageQuery(20, 50);

/**
 * A switch of a plain form: a hidden "off" followed by a checkbox "on" under one name, so the
 * last value sent is the switch's state. A switch that is missing is an error, never "off": a
 * body without the form's fields changes nothing.
 */
const checkbox = z.enum(["on", "off"], { error: "Must be on or off." });

/** The privacy page's form. */
export const privacyFormSchema = z.object({ hide_online: checkbox });

/** The name of a kind's channel switch in the settings page's form. */
export const switchName = (type: NotificationType, channel: NotificationChannel) =>
  `${type}.${channel}` as const;

/**
 * The notification settings page's form: every kind's three channel switches, quiet hours (their
 * switch, the two times and the time zone) and the preview switch.
 */
export const notificationFormSchema = z
  .object({
    ...(Object.fromEntries(
      NOTIFICATION_TYPES.flatMap((t) =>
        NOTIFICATION_CHANNELS.map((c) => [switchName(t, c), checkbox]),
      ),
    ) as Record<`${NotificationType}.${NotificationChannel}`, typeof checkbox>),
    quiet: checkbox,
    quiet_start: z.string().optional(),
    quiet_end: z.string().optional(),
    time_zone: z.string().optional(),
    preview: checkbox,
  })
  .transform((form): z.input<typeof notificationPreferencesSchema> => ({
    preferences: Object.fromEntries(
      NOTIFICATION_TYPES.map((t) => [
        t,
        Object.fromEntries(NOTIFICATION_CHANNELS.map((c) => [c, form[switchName(t, c)] === "on"])),
      ]),
    ),
    quiet_hours:
      form.quiet === "on"
        ? {
            start: form.quiet_start ?? "",
            end: form.quiet_end ?? "",
            time_zone: form.time_zone ?? "",
          }
        : null,
    preview: form.preview === "on",
  }))
  .pipe(notificationPreferencesSchema);

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
