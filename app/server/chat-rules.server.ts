import { UNANSWERED_MESSAGE_LIMIT } from "~/schemas/chat";
import type { Refusal } from "./room-api.server";

/**
 * The rules of sending a message (docs/api.md "Chat"), as pure functions over what a conversation's
 * room knows: its two members (fixed when the conversation was created), whether either blocked
 * the other and whether both are active (pushed to the room when they change, read from D1 when
 * it starts), and how many messages the sender wrote before the other member replied. The room
 * checks them with no database round trip; docs/decisions/012-chat-in-rooms.md. The send limit
 * is the member's across every conversation, counted in their hub (docs/decisions/021).
 */

export const CANNOT_MESSAGE = "You cannot message this member.";
export const NOT_YOUR_CONVERSATION = "This conversation is not yours.";
export const CONVERSATION_NOT_FOUND = "Conversation not found.";
export const MESSAGE_NOT_FOUND = "Message not found.";
export const ONLY_OWN_MESSAGES = "You can only delete your own messages.";
export const CLIENT_ID_REUSED = "This client id was already used for another message.";
export const SENDING_TOO_FAST = "You are sending messages too quickly. Please wait a moment.";
export const STARTING_TOO_FAST = "You have started too many conversations. Please try again later.";
export const WAIT_FOR_REPLY = `You can send ${UNANSWERED_MESSAGE_LIMIT} messages until they reply. Please wait for a reply.`;
/** Retry-After for the unanswered-messages limit: waiting alone does not lift it, a reply does. */
export const WAIT_FOR_REPLY_RETRY_AFTER = 3600;

// Re-exported while the conversation room still imports them from here (room-api.server.ts).

/** What a room knows about its conversation's rules. */
export interface RoomRules {
  low: string;
  high: string;
  createdAt: string;
  blocked: boolean;
  /** A member unmatched the other: the conversation is closed to both for good. */
  ended: boolean;
  /** When each member's account was created (links wait for an account's first day). */
  joinedAt: Record<string, string>;
  /** Members whose account is not active (suspended). */
  inactive: string[];
}

/** A member's sends over the rate limit's sliding window (counted in their hub). */
export type SendCounter = { windowStart: number; count: number; prev: number };

export const otherMember = (rules: Pick<RoomRules, "low" | "high">, me: string) =>
  rules.low === me ? rules.high : rules.low;

/** Whether `me` may read or write the conversation at all (the 403s of docs/api.md "Chat"). */
export function accessRefusal(rules: RoomRules, me: string): Refusal | null {
  if (rules.low !== me && rules.high !== me) return { status: 403, message: NOT_YOUR_CONVERSATION };
  if (rules.blocked || rules.ended) return { status: 403, message: CANNOT_MESSAGE };
  return null;
}

/**
 * Why `me` may not send right now, in the order the API answers it; null when they may.
 * `replied`: the other member has written in the conversation; `sentBeforeReply`: how many
 * messages `me` wrote (until the other member replies).
 */
export function sendRefusal(
  rules: RoomRules,
  me: string,
  history: { replied: boolean; sentBeforeReply: number },
): Refusal | null {
  const access = accessRefusal(rules, me);
  if (access) return access;
  if (rules.inactive.includes(otherMember(rules, me))) {
    return { status: 403, message: CANNOT_MESSAGE };
  }
  if (!history.replied && history.sentBeforeReply >= UNANSWERED_MESSAGE_LIMIT) {
    return { status: 429, message: WAIT_FOR_REPLY, retryAfter: WAIT_FOR_REPLY_RETRY_AFTER };
  }
  return null;
}
