import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { NOTIFICATION_TYPES } from "../../schemas/notifications";
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
    type: text("type", { enum: NOTIFICATION_TYPES }).notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    readAt: text("read_at"),
    createdAt: text("created_at")
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`),
    /** Monotonic order within a member's list (ties in created_at). */
    seq: integer("seq").notNull(),
  },
  (t) => [
    index("notifications_user_seq").on(t.userId, t.seq),
    index("notifications_user_unread").on(t.userId, t.readAt),
  ],
);

/** A member's switch per kind; no row means the kind is on. */
export const notificationPreferences = sqliteTable(
  "notification_preferences",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text("type", { enum: NOTIFICATION_TYPES }).notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.type] })],
);
