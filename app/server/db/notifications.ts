import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { NOTIFICATION_KINDS, NOTIFICATION_TYPES } from "../../schemas/notifications";
import { users } from "./schema";

/** Stored notifications (docs/api.md "Notifications"), newest first per member. */
export const notifications = sqliteTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The member whose action caused it (hidden from the recipient if either blocks the other). */
    actorId: text("actor_id").references(() => users.id, { onDelete: "cascade" }),
    /** A kind the member switches, or an account notice (no actor, always on the bell). */
    type: text("type", { enum: NOTIFICATION_KINDS }).notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    readAt: text("read_at"),
    createdAt: text("created_at")
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`),
    /** Monotonic order within a member's list (ties in created_at). */
    seq: integer("seq").notNull(),
    /**
     * Whether it shows on the bell and the notifications page. A kind the member turned off in
     * the app but wants by push or email is still written (its push and digest come from it),
     * with false here.
     */
    inApp: integer("in_app", { mode: "boolean" }).notNull().default(true),
  },
  (t) => [
    index("notifications_user_seq").on(t.userId, t.seq),
    index("notifications_user_unread").on(t.userId, t.readAt),
  ],
);

/**
 * A member's switches per kind, one per channel (API.md "Away from the app"); no row, or null in
 * a channel, means that channel's default (app/schemas/notifications.ts DEFAULT_CHANNELS).
 */
export const notificationPreferences = sqliteTable(
  "notification_preferences",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text("type", { enum: NOTIFICATION_TYPES }).notNull(),
    /** In the app: the bell, the notifications page, the live channel. */
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    push: integer("push", { mode: "boolean" }),
    email: integer("email", { mode: "boolean" }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.type] })],
);

/** When and how a member is told while away: quiet hours and lock-screen previews. */
export const notificationSettings = sqliteTable("notification_settings", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** "HH:MM" in `timeZone`; both null when the member has no quiet hours. */
  quietStart: text("quiet_start"),
  quietEnd: text("quiet_end"),
  timeZone: text("time_zone"),
  /** A message's text on a lock screen: only when the member asked for it. */
  preview: integer("preview", { mode: "boolean" }).notNull().default(false),
});
