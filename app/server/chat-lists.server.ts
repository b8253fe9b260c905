import type { Env } from "./env.server";
import { memberHub } from "./member-hub.server";

/**
 * Each member's conversation list lives with the member, in their own Durable Object (MemberHub):
 * one row per conversation with the last message, its time, the member's unread count, whether it
 * is listed and archived for them. The conversation's room writes it after each change
 * (docs/decisions/012-chat-in-rooms.md); the chat module reads it.
 */

/** A member's list entry as the room computed it after a change (absolute values). */
export interface ListUpdate {
  conversation_id: string;
  other_id: string;
  /** The room's change counter: an entry older than the one held is ignored. */
  version: number;
  last_message: string | null;
  last_message_time: string | null;
  /** What the list is ordered by: the newest message's time, or when the conversation began. */
  activity_at: string;
  unread_count: number;
  /** Either member blocked the other, or the other member is suspended: out of the totals. */
  hidden: boolean;
  /** The new message that caused the change (it lists the conversation and brings it back). */
  message: { id: string; sender_id: string; message: string; sent_at: string } | null;
}

export type ListRow = {
  conversation_id: string;
  other_id: string;
  last_message: string | null;
  last_message_time: string | null;
  activity_at: string;
  unread_count: number;
};

/** Writes a list entry into the member's hub (throws when the hub cannot be reached). */
export async function applyToMemberList(env: Env, userId: string, update: ListUpdate) {
  await memberHub(env, userId).applyConversation(update);
}

/**
 * Claims a client id for a conversation in the sender's hub: returns the conversation that owns
 * it (this one, unless the sender already used it in another).
 */
export async function claimClientId(
  env: Env,
  userId: string,
  clientId: string,
  conversationId: string,
): Promise<string> {
  return memberHub(env, userId).claimClientId(clientId, conversationId);
}
