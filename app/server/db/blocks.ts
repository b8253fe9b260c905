import { sql } from "drizzle-orm";
import { index, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { BLOCK_REASON_TYPES } from "../../schemas/block";
import { users } from "./schema";

/** One row per blocker and blocked member. A block hides both members from each other. */
export const blocks = sqliteTable(
  "blocks",
  {
    blockerId: text("blocker_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    blockedId: text("blocked_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reasonType: text("reason_type", { enum: BLOCK_REASON_TYPES }).notNull(),
    reason: text("reason"),
    createdAt: text("created_at")
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`),
  },
  (t) => [
    primaryKey({ columns: [t.blockerId, t.blockedId] }),
    index("blocks_blocked").on(t.blockedId, t.blockerId),
  ],
);
