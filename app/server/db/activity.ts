import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { ACTIVITY_TYPES } from "../../schemas/activities";
import { users } from "./schema";

/**
 * A member's own history (likes given and received, matches, gifts, purchases, subscription
 * changes), one row per event and member, written by the domain module that made the change.
 */
export const activities = sqliteTable(
  "activities",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text("type", { enum: ACTIVITY_TYPES }).notNull(),
    /** The other member of the event, when there is one (kept as null if they leave). */
    otherUserId: text("other_user_id").references(() => users.id, { onDelete: "set null" }),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: text("created_at")
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`),
    /** Monotonic order within a member's history (ties in created_at). */
    seq: integer("seq").notNull(),
  },
  (t) => [
    index("activities_user_seq").on(t.userId, t.seq),
    index("activities_created_at").on(t.createdAt),
  ],
);
