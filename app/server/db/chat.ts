import { sql } from "drizzle-orm";
import {
  check,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { users } from "./schema";

const isoNow = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

/**
 * A conversation between exactly two members: one live row per pair (`user_low` < `user_high`), so
 * starting a conversation that exists finds it. An unmatch ends it (`ended_at`): neither member
 * can use it again, its room keeps what was written for the moderators, and a new match between
 * the two starts a new conversation.
 */
export const conversations = sqliteTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    userLow: text("user_low")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    userHigh: text("user_high")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdBy: text("created_by").notNull(),
    createdAt: text("created_at").notNull().default(isoNow),
    endedAt: text("ended_at"),
  },
  (t) => [
    uniqueIndex("conversations_pair")
      .on(t.userLow, t.userHigh)
      .where(sql`ended_at IS NULL`),
    index("conversations_user_high").on(t.userHigh),
    // Ended (unmatched) conversations, oldest first: erased after REPORT_RETENTION_DAYS.
    index("conversations_ended")
      .on(t.endedAt)
      .where(sql`ended_at IS NOT NULL`),
    check("conversations_ordered_pair", sql`${t.userLow} < ${t.userHigh}`),
  ],
);

/**
 * The two members of a conversation (written once, when it starts): who talks with whom, for the
 * queries across members (presence contacts, account export and deletion). Each member's list
 * state (last message, unread count, archived) lives in their hub, and the messages in the
 * conversation's room (docs/decisions/012-chat-in-rooms.md).
 */
export const conversationMembers = sqliteTable(
  "conversation_members",
  {
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    lastActivityAt: text("last_activity_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.conversationId, t.userId] }),
    index("conversation_members_user").on(t.userId, t.lastActivityAt),
  ],
);

/** The gifts catalogue (seeded by a migration). */
export const gifts = sqliteTable(
  "gifts",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    icon: text("icon").notNull(),
    priceCredits: integer("price_credits").notNull(),
    position: integer("position").notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
  },
  (t) => [check("gifts_price_positive", sql`${t.priceCredits} > 0`)],
);

/**
 * The credits ledger: every credit in or out is one row, and `user_credits` holds the running
 * totals kept equal to it (both change in the same D1 batch). `(reason, reference)` is unique, so
 * one event (a payment, a gift message) is applied at most once.
 */
export const creditTransactions = sqliteTable(
  "credit_transactions",
  {
    id: text("id").primaryKey(),
    /** The member's id; kept after the account is deleted (a tombstone id, no personal data). */
    userId: text("user_id").notNull(),
    amount: integer("amount").notNull(),
    direction: text("direction", { enum: ["in", "out"] }).notNull(),
    reason: text("reason").notNull(),
    reference: text("reference"),
    createdAt: text("created_at").notNull().default(isoNow),
  },
  (t) => [
    index("credit_transactions_user").on(t.userId, t.createdAt),
    uniqueIndex("credit_transactions_reference").on(t.reason, t.reference),
    check("credit_transactions_amount_positive", sql`${t.amount} > 0`),
    check("credit_transactions_direction", sql`${t.direction} IN ('in', 'out')`),
  ],
);

export const userCredits = sqliteTable(
  "user_credits",
  {
    userId: text("user_id").primaryKey(),
    balance: integer("balance").notNull().default(0),
    lifetimeEarned: integer("lifetime_earned").notNull().default(0),
    lifetimeSpent: integer("lifetime_spent").notNull().default(0),
    /**
     * Credits a refund or dispute took back that were already spent: taken from the next
     * purchase; gifting pauses while it is above zero.
     */
    owed: integer("owed").notNull().default(0),
  },
  (t) => [
    check("user_credits_balance_non_negative", sql`${t.balance} >= 0`),
    check("user_credits_owed_non_negative", sql`${t.owed} >= 0`),
  ],
);

/**
 * One row per gift message, written in the batch that spends its price (the ledger row references
 * the same message id): the gifts page reads it, since the messages live in their rooms.
 */
export const giftMessages = sqliteTable(
  "gift_messages",
  {
    messageId: text("message_id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    senderId: text("sender_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    recipientId: text("recipient_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    giftId: text("gift_id")
      .notNull()
      .references(() => gifts.id),
    priceCredits: integer("price_credits").notNull(),
    sentAt: text("sent_at").notNull(),
  },
  (t) => [
    index("gift_messages_sender").on(t.senderId, t.sentAt, t.messageId),
    index("gift_messages_recipient").on(t.recipientId, t.sentAt, t.messageId),
  ],
);

/**
 * The conversation of each message stored before the rooms held the messages (their ids do not
 * start with the conversation id): written by the migration into the rooms, read to find the room
 * of such a message (deleting it, reporting it).
 */
export const messageRooms = sqliteTable("message_rooms", {
  messageId: text("message_id").primaryKey(),
  conversationId: text("conversation_id")
    .notNull()
    .references(() => conversations.id, { onDelete: "cascade" }),
});
