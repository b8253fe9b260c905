import { sql } from "drizzle-orm";
import type { Env } from "./env.server";
import { logFailure } from "./log.server";
import { memberHub } from "./member-hub.server";
import { all, first } from "./sql.server";

/** The room of one conversation (a Durable Object addressed by the conversation id). */
export function conversationRoom(env: Env, conversationId: string) {
  return env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(conversationId));
}

/**
 * The conversation a message belongs to: a message id starts with its conversation's id; the ids
 * of messages stored before the rooms held them are looked up in `message_rooms` (written by the
 * migration, docs/decisions/012-chat-in-rooms.md).
 */
export async function conversationOfMessage(env: Env, messageId: string): Promise<string | null> {
  const dot = messageId.indexOf(".");
  if (dot > 0) return messageId.slice(0, dot);
  const row = await first<{ conversation_id: string }>(
    env.DB,
    sql`SELECT conversation_id FROM message_rooms WHERE message_id = ${messageId}`,
  );
  return row?.conversation_id ?? null;
}

/** The conversations a member is in, with the other member (from D1). */
export async function conversationsOf(env: Env, userId: string) {
  const results = await all<{ id: string; other_id: string }>(
    env.DB,
    sql`SELECT id, CASE WHEN user_low = ${userId} THEN user_high ELSE user_low END AS other_id
     FROM conversations WHERE user_low = ${userId} OR user_high = ${userId}`,
  );
  return results;
}

/**
 * A block between two members was added or removed (D1 holds it already): their conversation's
 * room hears of it at once (a block closes its sockets, which the Worker then refuses, and stops
 * every send already on its way), and both members' lists follow.
 */
export async function conversationBlockChanged(
  env: Env,
  a: string,
  b: string,
  blocked: boolean,
): Promise<void> {
  const [low, high] = a < b ? [a, b] : [b, a];
  const row = await first<{ id: string }>(
    env.DB,
    sql`SELECT id FROM conversations WHERE user_low = ${low} AND user_high = ${high}`,
  );
  if (!row) return;
  try {
    await conversationRoom(env, row.id).setBlocked(row.id, blocked);
  } catch (error) {
    logFailure("conversation_block_push_failed", error, { conversation_id: row.id });
  }
}

/**
 * A member was suspended: every conversation of theirs closes for both members (no reconnect) and
 * refuses messages to them; the other members' lists leave them out.
 */
export async function memberSuspended(env: Env, userId: string): Promise<void> {
  await Promise.all(
    (await conversationsOf(env, userId)).map(async ({ id }) => {
      try {
        await conversationRoom(env, id).setMemberActive(id, userId, false);
      } catch (error) {
        logFailure("conversation_suspension_push_failed", error, { conversation_id: id });
      }
    }),
  );
}

/**
 * A member is deleting their account: their own lists go, and every conversation of theirs, in
 * its room (messages, receipts, sockets) and in the other member's list. Called before D1 forgets
 * the conversations.
 */
export async function eraseConversationsOf(env: Env, userId: string): Promise<void> {
  await memberHub(env, userId).forgetChat();
  await Promise.all(
    (await conversationsOf(env, userId)).map(async ({ id, other_id }) => {
      await conversationRoom(env, id).erase();
      await memberHub(env, other_id).dropConversation(id);
    }),
  );
}
