import { sql } from "drizzle-orm";
import { conversationRoom } from "./chat-rooms.server";
import type { Env } from "./env.server";
import { all, statement } from "./sql.server";

/**
 * Moving the messages stored in D1 (before the rooms held them) into their conversations' rooms
 * (docs/decisions/012-chat-in-rooms.md "Migration"). A room imports its conversation's D1 messages
 * itself the first time it starts; `migrateConversations` walks every conversation. Migration 0015
 * keeps what was not moved in D1's legacy tables (`legacy_messages`, the members' list and read
 * state in `legacy_conversation_members`), so both run after the whole upgrade; a database that
 * dropped its messages once they were moved has these tables empty (0042). Every step is an
 * upsert: rerunning it, or resuming it from any cursor, changes nothing that was already moved.
 */

/** A message row, as a room stores it and as the migration reads it from D1 (with its gift). */
export type MessageRow = {
  seq: number;
  id: string;
  sender_id: string;
  client_id: string | null;
  message: string;
  gift_id: string | null;
  gift_name: string | null;
  gift_icon: string | null;
  gift_price: number | null;
  sent_at: string;
  read_at: string | null;
  deleted_at: string | null;
  /** The safety kind the room's rules gave the message, for its recipient (rooms only). */
  safety?: string | null;
  /** When a device of the recipient first received it (rooms only). */
  delivered_at?: string | null;
  /** A photo or voice note: StoredAttachment as JSON (rooms only). */
  attachment?: string | null;
  /** A call's line: CallLine as JSON (rooms only). */
  call?: string | null;
};

/** A member's own state of the conversation as D1 held it. */
export interface LegacyMemberState {
  user_id: string;
  listed: number;
  archived_at: string | null;
  last_read_seq: number;
}

export const LEGACY_PAGE = 500;

const isMissingTable = (error: unknown) => /no such (table|column)/.test(String(error));

/**
 * A page of the conversation's D1 messages after `afterSeq`, in order; null when D1 has no legacy
 * table (a schema from before 0042 that dropped them: nothing is left to move).
 */
export async function legacyMessages(
  env: Env,
  conversationId: string,
  afterSeq: number,
): Promise<MessageRow[] | null> {
  try {
    const results = await all<MessageRow>(
      env.DB,
      sql`SELECT m.seq, m.id, m.sender_id, m.client_id, m.message, m.gift_id, g.name AS gift_name,
         g.icon AS gift_icon, coalesce(t.amount, g.price_credits) AS gift_price, m.sent_at,
         m.read_at, m.deleted_at
       FROM legacy_messages m
       LEFT JOIN gifts g ON g.id = m.gift_id
       LEFT JOIN credit_transactions t ON t.reason = 'gift' AND t.reference = m.id
       WHERE m.conversation_id = ${conversationId} AND m.seq > ${afterSeq} ORDER BY m.seq LIMIT ${LEGACY_PAGE}`,
    );
    return results;
  } catch (error) {
    if (isMissingTable(error)) return null;
    throw error;
  }
}

/**
 * Both members' list and read state as D1 held it before the rooms; null when D1 holds none for the
 * conversation (started after the rooms, or its messages dropped once moved).
 */
export async function legacyMemberStates(
  env: Env,
  conversationId: string,
): Promise<LegacyMemberState[] | null> {
  try {
    const results = await all<LegacyMemberState>(
      env.DB,
      sql`SELECT user_id, listed, archived_at, last_read_seq FROM legacy_conversation_members
       WHERE conversation_id = ${conversationId}`,
    );
    return results.length > 0 ? results : null;
  } catch (error) {
    if (isMissingTable(error)) return null;
    throw error;
  }
}

/**
 * What D1 keeps of the moved messages: where each one lives (`message_rooms`, so that deleting or
 * reporting it finds its room) and the gifts (`gift_messages`, the gifts page).
 */
export async function indexLegacyMessages(env: Env, conversationId: string): Promise<void> {
  await env.DB.batch([
    statement(
      env.DB,
      sql`INSERT INTO message_rooms (message_id, conversation_id)
       SELECT id, conversation_id FROM legacy_messages WHERE conversation_id = ${conversationId}
       ON CONFLICT DO NOTHING`,
    ),
    statement(
      env.DB,
      sql`INSERT INTO gift_messages (message_id, conversation_id, sender_id, recipient_id, gift_id,
         price_credits, sent_at)
       SELECT m.id, m.conversation_id, m.sender_id,
         CASE WHEN c.user_low = m.sender_id THEN c.user_high ELSE c.user_low END, m.gift_id,
         coalesce(t.amount, g.price_credits), m.sent_at
       FROM legacy_messages m
       JOIN conversations c ON c.id = m.conversation_id
       JOIN gifts g ON g.id = m.gift_id
       LEFT JOIN credit_transactions t ON t.reason = 'gift' AND t.reference = m.id
       WHERE m.conversation_id = ${conversationId} AND m.gift_id IS NOT NULL
       ON CONFLICT DO NOTHING`,
    ),
  ]);
}

export const MIGRATION_BATCH = 50;

/**
 * Moves the messages of up to `limit` conversations, those whose id comes after `after`, into
 * their rooms. Returns how many conversations and messages it moved and the cursor to resume
 * from (null when every conversation was done).
 */
export async function migrateConversations(
  env: Env,
  { after = "", limit = MIGRATION_BATCH }: { after?: string; limit?: number } = {},
) {
  const results = await all<{ id: string }>(
    env.DB,
    sql`SELECT id FROM conversations WHERE id > ${after} ORDER BY id LIMIT ${limit}`,
  );
  let messages = 0;
  for (const { id } of results) {
    messages += await conversationRoom(env, id).importLegacy(id);
  }
  return {
    conversations: results.length,
    messages,
    next_cursor: results.length === limit ? (results.at(-1)?.id ?? null) : null,
  };
}
