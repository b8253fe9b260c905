import type { Env } from "./env.server";
import type {
  ClientIdClaim,
  RateLimitSpec,
  Refusal,
  SendGrant,
  SendsReturned,
} from "./room-api.server";
import { memberHub } from "./member-hub.server";

/**
 * Each member's conversation list lives with the member, in their own Durable Object (MemberHub):
 * one row per conversation with the last message, its time, the member's unread count, whether it
 * is listed and archived for them. The conversation's room writes it after each change
 * (docs/decisions/012-chat-in-rooms.md); the chat module reads it.
 */

// Re-exported while the conversation room still imports it from here (room-api.server.ts).

/**
 * Asks `userId`'s hub for up to `want` sends in a conversation against their send limit, across
 * every conversation (their hub counts), giving back the unused ones of the room's last grant:
 * the grant, or the refusal past the limit.
 */
export async function takeMemberSends(
  env: Env,
  userId: string,
  conversationId: string,
  limit: RateLimitSpec,
  want: number,
  returned: SendsReturned | null,
): Promise<{ grant: SendGrant } | { refusal: Refusal }> {
  return memberHub(env, userId).takeSends(limit, userId, conversationId, want, returned);
}

/**
 * Claims a client id for a conversation in the sender's hub: answers the conversation that owns
 * it (this one, unless the sender already used it in another), and the conversation's lease.
 */
export async function claimClientId(
  env: Env,
  userId: string,
  clientId: string,
  conversationId: string,
): Promise<ClientIdClaim> {
  return memberHub(env, userId).claimClientId(clientId, conversationId, userId);
}
