import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./schema";

/**
 * One row per member who liked another. A like both ways is a match. Rows go when either member's
 * account goes; unliking deletes the row.
 */
export const likes = sqliteTable(
  "likes",
  {
    likerId: text("liker_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    likedId: text("liked_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: text("created_at").notNull(),
    /** What the liker wrote with the like (up to 300 characters), or null. */
    comment: text("comment"),
    /**
     * What message safety saw in the comment for its reader (off_platform, money or link;
     * app/server/message-safety.server.ts), or null.
     */
    commentSafety: text("comment_safety"),
    /** What the like landed on: one of the liked member's photos or prompts, or neither. */
    targetPhotoId: text("target_photo_id"),
    targetPromptId: text("target_prompt_id"),
  },
  (t) => [
    primaryKey({ columns: [t.likerId, t.likedId] }),
    index("likes_liked_created").on(t.likedId, t.createdAt),
    index("likes_liker_created").on(t.likerId, t.createdAt),
  ],
);

/**
 * How many likes a member gave on one UTC day (YYYY-MM-DD). Counted when a like is given and never
 * given back by an unlike, so unliking and liking again cannot get round the daily limit.
 */
export const likeQuota = sqliteTable(
  "like_quota",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    day: text("day").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] })],
);

/**
 * A pair of members who unmatched (`user_low` < `user_high`): neither may message the other until
 * both like each other again; the like that makes the new match deletes the row.
 */
export const unmatches = sqliteTable(
  "unmatches",
  {
    userLow: text("user_low")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    userHigh: text("user_high")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    unmatchedBy: text("unmatched_by").notNull(),
    unmatchedAt: text("unmatched_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userLow, t.userHigh] }),
    index("unmatches_user_high").on(t.userHigh),
    check("unmatches_ordered_pair", sql`${t.userLow} < ${t.userHigh}`),
  ],
);
