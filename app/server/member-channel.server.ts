import type { MemberServerFrame } from "~/realtime/member";
import type { NotificationView } from "~/schemas/notifications";
import { conversationRoom } from "./chat-rooms.server";
import type { Env } from "./env.server";
import { logFailure } from "./log.server";
import { memberHub } from "./member-hub.server";
import { presenceShardFor } from "./presence.server";
import type { EndedSessions } from "./socket-ticket.server";

/**
 * Publishes a frame to a member's own channel (every open page of theirs). Delivery is best
 * effort: what matters is stored in D1 first, and a page that was closed loads it on open.
 */
export async function publishToMember(env: Env, userId: string, frame: MemberServerFrame) {
  try {
    await memberHub(env, userId).publish(frame, userId);
  } catch (error) {
    logFailure("publish_to_member_failed", error);
  }
}

/**
 * A notification the member keeps off their bell but may want by push or email: their hub hears
 * it as a notification no page received (while they are away), and no page is told.
 */
export async function notifyAway(env: Env, userId: string, notification: NotificationView) {
  try {
    await memberHub(env, userId).heardAway(notification, userId);
  } catch (error) {
    logFailure("notify_away_failed", error, { user_id: userId });
  }
}

/**
 * The member's push subscriptions or notification settings changed: their hub, which keeps a copy
 * to push without reading D1, reads them again before its next push.
 */
export async function pushSettingsChanged(env: Env, userId: string) {
  try {
    await memberHub(env, userId).pushSettingsChanged();
  } catch (error) {
    logFailure("push_settings_changed_failed", error, { user_id: userId });
  }
}

/** A block between two members: neither's hub pushes anything of the other any more. */
export async function forgetAwayPushes(env: Env, a: string, b: string) {
  await Promise.all(
    [
      [a, b],
      [b, a],
    ].map(([userId, otherId]) =>
      memberHub(env, userId!)
        .forgetMember(otherId!)
        .catch((error: unknown) =>
          logFailure("forget_away_pushes_failed", error, { user_id: userId }),
        ),
    ),
  );
}

/**
 * The member's sessions ended (signed out, password changed or reset, suspended, deleted):
 * `sessions` says which, and their socket tickets open nothing from now on (the hub keeps that,
 * socket-ticket.server.ts). Closes their presence sockets, their channel's sockets and their
 * sockets in the conversations they recently opened, so that a page left open receives nothing
 * more. Pages still signed in reconnect. `conversations: false` leaves the conversation rooms to a
 * caller that closes every one of them anyway (account.server.ts `cutOffRealtime`). A session that
 * ends by itself (its absolute expiry) takes the same steps from the member's hub, at its alarm
 * (durable-objects/member-hub.ts `endExpiredSessions`).
 */
export async function endMemberSockets(
  env: Env,
  userId: string,
  {
    conversations: closeRooms = true,
    sessions = "all",
  }: { conversations?: boolean; sessions?: EndedSessions } = {},
): Promise<void> {
  await Promise.all([
    // A browser's push subscription ends with the session it was made in (the foreign key):
    // the hub's copy of the member's browsers is read again.
    pushSettingsChanged(env, userId),
    closePresenceSockets(env, userId),
    (async () => {
      const conversations = await memberHub(env, userId).endSessions(sessions);
      if (closeRooms) await closeConversationSockets(env, userId, conversations);
    })().catch((error: unknown) => logFailure("end_member_sockets_failed", error)),
  ]);
}

/** Closes the member's presence sockets (their shard; they leave after the grace period). */
export async function closePresenceSockets(env: Env, userId: string): Promise<void> {
  const { shard, room } = presenceShardFor(env, userId);
  await room
    .closeMember(shard, userId)
    .then(() => undefined)
    .catch((error: unknown) => logFailure("close_presence_sockets_failed", error));
}

/** Closes the member's sockets in these conversations' rooms (those their hub noted). */
export async function closeConversationSockets(
  env: Env,
  userId: string,
  conversations: string[],
): Promise<void> {
  await Promise.all(
    conversations.map((id) =>
      conversationRoom(env, id)
        .closeMember(userId)
        .catch((error: unknown) => logFailure("close_member_sockets_failed", error)),
    ),
  );
}
