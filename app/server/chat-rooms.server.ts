import type { ChatServerFrame } from "~/realtime/chat";
import type { Env } from "./env.server";

/** The room of one conversation (a Durable Object addressed by the conversation id). */
export function conversationRoom(env: Env, conversationId: string) {
  return env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(conversationId));
}

function logFailure(event: string, conversationId: string, error: unknown) {
  console.error(
    JSON.stringify({
      level: "error",
      event,
      conversation_id: conversationId,
      error: String(error),
    }),
  );
}

/**
 * Fans a frame out to the open sockets of a conversation; returns the members who had one open.
 * Best effort: the frame's content is already stored in D1, and a socket that missed it catches
 * up through the messages API.
 */
export async function publishToConversation(
  env: Env,
  conversationId: string,
  frame: ChatServerFrame,
): Promise<string[]> {
  try {
    return await conversationRoom(env, conversationId).publish(frame);
  } catch (error) {
    logFailure("publish_to_conversation_failed", conversationId, error);
    return [];
  }
}

/**
 * Closes every open socket of the conversation between two members (after one blocked the
 * other): the room stops delivering at once, and the Worker refuses the sockets when they try to
 * come back.
 */
export async function closeConversationRoomsBetween(env: Env, a: string, b: string): Promise<void> {
  const [low, high] = a < b ? [a, b] : [b, a];
  const { results } = await env.DB.prepare(
    "SELECT id FROM conversations WHERE user_low = ?1 AND user_high = ?2",
  )
    .bind(low, high)
    .all<{ id: string }>();
  await Promise.all(
    results.map(async ({ id }) => {
      try {
        await conversationRoom(env, id).closeAll();
      } catch (error) {
        logFailure("close_conversation_room_failed", id, error);
      }
    }),
  );
}
