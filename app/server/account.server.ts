import { poseById, REJECT_REASONS, type RejectReason } from "~/schemas/verification";
import { conversationRoom, eraseConversationsOf, memberSuspended } from "./chat-rooms.server";
import { keepEvidenceOf } from "./evidence.server";
import { rememberAddressOf } from "./returning.server";
import { selfiePrefix } from "./verification.server";
import { getDb, nowIso, schema } from "./db.server";
import { eq, sql } from "drizzle-orm";
import type { Env } from "./env.server";
import { notFound } from "./errors.server";
import { endMemberSockets } from "./member-channel.server";
import { getNotificationPreferences } from "./notifications.server";
import { setPresenceHidden } from "./presence.server";
import { purgePhotoCache } from "./photos.server";
import { loadProfile } from "./profiles.server";
import { destroyAllSessions } from "./session.server";
import { endMoneyOf } from "./subscriptions.server";
import { all, first, statement } from "./sql.server";

/**
 * A member's own account as a whole: the download of everything stored about them (GET
 * /my/export) and deleting the account (docs/decisions/005-account-deletion.md).
 */

export const ACCOUNT_DELETED_MESSAGE = "Your account and everything in it have been deleted.";

// ---------------------------------------------------------------------------------------------
// Realtime: what stops at once when an account is suspended or deleted

/**
 * A suspended or deleted member: every conversation of theirs closes for both members (no
 * reconnect) and refuses messages to them, they vanish from presence at once, and their other
 * sockets close.
 */
export async function cutOffRealtime(env: Env, userId: string): Promise<void> {
  await Promise.all([
    memberSuspended(env, userId),
    setPresenceHidden(env, userId, true),
    endMemberSockets(env, userId, { conversations: false }),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Export

/**
 * What the member wrote in chat, from every conversation's room: the messages they sent that are
 * not deleted (a photo or voice note as its kind and URL, a call as its line) and the reactions
 * they gave.
 */
async function chatOf(env: Env, userId: string) {
  const conversations = await all<{ id: string; to_username: string | null }>(
    env.DB,
    sql`SELECT c.id, other.username AS to_username FROM conversations c
     LEFT JOIN users other ON other.id = CASE WHEN c.user_low = ${userId} THEN c.user_high ELSE c.user_low END
     WHERE c.user_low = ${userId} OR c.user_high = ${userId}`,
  );
  const each = await Promise.all(
    conversations.map(async ({ id, to_username }) => {
      const room = conversationRoom(env, id);
      const [messages, reactions] = await Promise.all([
        room.sentBy(id, userId),
        room.reactionsBy(id, userId),
      ]);
      return {
        sent: messages.map((m) => ({
          id: m.id,
          conversation_id: id,
          to_username,
          message: m.message,
          gift_id: m.gift?.id ?? null,
          attachment: m.attachment
            ? {
                kind: m.attachment.kind,
                url: m.attachment.url,
                ...(m.attachment.duration_ms ? { duration_ms: m.attachment.duration_ms } : {}),
              }
            : null,
          ...(m.call ? { call: m.call } : {}),
          sent_at: m.sent_at,
          read_at: m.read_at,
        })),
        reactions: reactions.map((r) => ({ conversation_id: id, to_username, ...r })),
      };
    }),
  );
  return {
    sent: each
      .flatMap((e) => e.sent)
      .sort((a, b) => a.sent_at.localeCompare(b.sent_at) || a.id.localeCompare(b.id)),
    reactions: each
      .flatMap((e) => e.reactions)
      .sort((a, b) => a.reacted_at.localeCompare(b.reacted_at)),
  };
}

/**
 * Everything stored about the member, as one JSON document: account, profile (with their prompt
 * answers), photos (metadata; each photo's URL works while the account exists), likes (those they
 * gave with the comment they wrote and what it landed on), messages they sent and reactions they
 * gave, notifications and their settings, the browsers that get pushes (the push service and when;
 * not the endpoint, which is a capability to push to that browser), blocks, reports they made,
 * profile views, credits and activity, their photo verification requests (status, pose, when sent
 * and decided, the decision and its reason in the words they were told) and their appeals (the
 * measure, their text, its outcome, when). Never who decided a request or an appeal.
 */
export async function exportAccount(env: Env, userId: string, now = Date.now()) {
  const account = await getDb(env.DB)
    .select({
      id: schema.users.id,
      username: schema.users.username,
      email: schema.users.email,
      email_verified_at: schema.users.emailVerifiedAt,
      photo_verified_at: schema.users.photoVerifiedAt,
      hide_online: schema.users.hideOnline,
      last_seen_at: schema.users.lastSeenAt,
      created_at: schema.users.createdAt,
    })
    .from(schema.users)
    .where(eq(schema.users.id, userId))
    .get();
  if (!account) throw notFound("Account not found.");
  const { photos: profilePhotos, ...profile } = await loadProfile(env, userId);
  void profilePhotos;

  const [
    photos,
    likesSent,
    likesReceived,
    chat,
    notifications,
    blocks,
    reports,
    viewsMade,
    credit,
    transactions,
    activities,
    notificationSettings,
    pushBrowsers,
    verifications,
    appeals,
  ] = await Promise.all([
    all(
      env.DB,
      sql`SELECT id, position, content_type, size, created_at, '/photos/' || id AS url
       FROM photos WHERE user_id = ${userId} ORDER BY position, id`,
    ),
    all(
      env.DB,
      sql`SELECT u.username, l.created_at, l.comment, l.target_photo_id, l.target_prompt_id
       FROM likes l JOIN users u ON u.id = l.liked_id
       WHERE l.liker_id = ${userId} ORDER BY l.created_at`,
    ),
    all(
      env.DB,
      sql`SELECT u.username, l.created_at FROM likes l JOIN users u ON u.id = l.liker_id
       WHERE l.liked_id = ${userId} ORDER BY l.created_at`,
    ),
    chatOf(env, userId),
    all<{ id: string; type: string; data: string; read_at: string | null; created_at: string }>(
      env.DB,
      sql`SELECT id, type, data, read_at, created_at FROM notifications
       WHERE user_id = ${userId} ORDER BY seq`,
    ),
    all(
      env.DB,
      sql`SELECT u.username, b.reason_type, b.reason, b.created_at
       FROM blocks b JOIN users u ON u.id = b.blocked_id
       WHERE b.blocker_id = ${userId} ORDER BY b.created_at`,
    ),
    all(
      env.DB,
      sql`SELECT u.username, r.reason_type, r.details, r.message_id, r.status, r.created_at
       FROM reports r JOIN users u ON u.id = r.reported_id
       WHERE r.reporter_id = ${userId} ORDER BY r.created_at`,
    ),
    all(
      env.DB,
      sql`SELECT u.username, v.viewed_at FROM profile_views v JOIN users u ON u.id = v.viewed_id
       WHERE v.viewer_id = ${userId} ORDER BY v.viewed_at`,
    ),
    first(
      env.DB,
      sql`SELECT balance, lifetime_earned, lifetime_spent FROM user_credits WHERE user_id = ${userId}`,
    ),
    all(
      env.DB,
      sql`SELECT amount, direction, reason, created_at FROM credit_transactions
       WHERE user_id = ${userId} ORDER BY created_at, id`,
    ),
    all<{ type: string; data: string; created_at: string }>(
      env.DB,
      sql`SELECT type, data, created_at FROM activities WHERE user_id = ${userId} ORDER BY seq`,
    ),
    getNotificationPreferences(env, userId),
    all<{ endpoint: string; created_at: string }>(
      env.DB,
      sql`SELECT endpoint, created_at FROM push_subscriptions WHERE user_id = ${userId}
       ORDER BY created_at, id`,
    ),
    // Not decided_by: who decided is the moderators' record, not the member's data.
    all<{
      pose_id: string;
      status: "pending" | "verified" | "rejected";
      reason: string | null;
      compared_photo_ids: string | null;
      created_at: string;
      decided_at: string | null;
    }>(
      env.DB,
      sql`SELECT pose_id, status, reason, compared_photo_ids, created_at, decided_at
       FROM photo_verifications WHERE user_id = ${userId} ORDER BY created_at, id`,
    ),
    all<{
      kind: string;
      text: string;
      status: string;
      created_at: string;
      decided_at: string | null;
    }>(
      env.DB,
      sql`SELECT kind, text, status, created_at, decided_at FROM appeals
       WHERE user_id = ${userId} ORDER BY created_at, id`,
    ),
  ]);

  const parse = (data: string): unknown => {
    try {
      return JSON.parse(data);
    } catch {
      return data;
    }
  };

  return {
    exported_at: nowIso(now),
    account,
    profile,
    photos,
    likes: { sent: likesSent, received: likesReceived },
    messages_sent: chat.sent,
    reactions_given: chat.reactions,
    notifications: notifications.map((n) => ({ ...n, data: parse(n.data) })),
    notification_settings: notificationSettings,
    push_browsers: pushBrowsers.map((b) => ({
      push_service: new URL(b.endpoint).origin,
      created_at: b.created_at,
    })),
    blocks,
    reports_made: reports,
    profile_views_made: viewsMade,
    credits: {
      balance: credit ?? { balance: 0, lifetime_earned: 0, lifetime_spent: 0 },
      transactions,
    },
    activities: activities.map((a) => ({ ...a, data: parse(a.data) })),
    photo_verifications: verifications.map((v) => ({
      status: v.status,
      pose: { id: v.pose_id, instruction: poseById(v.pose_id)?.instruction ?? null },
      submitted_at: v.created_at,
      decided_at: v.decided_at,
      // A rejection's reason, as the member was told it.
      reason:
        v.status === "rejected" && v.reason
          ? (REJECT_REASONS[v.reason as RejectReason] ?? null)
          : null,
      compared_photo_ids: v.compared_photo_ids ? parse(v.compared_photo_ids) : null,
    })),
    appeals: appeals.map((a) => ({
      measure: a.kind,
      text: a.text,
      status: a.status,
      submitted_at: a.created_at,
      decided_at: a.decided_at,
    })),
  };
}

export const exportFileName = (username: string, now = Date.now()) =>
  `heartline-${username}-${nowIso(now).slice(0, 10)}.json`;

// ---------------------------------------------------------------------------------------------
// Deletion

/**
 * Deletes every R2 object stored under the member's photo prefix (including any orphan) and
 * their verification selfie's, and the photos' widths from this data centre's cache (`origin`:
 * the app's address), so that their signed addresses stop at once here.
 */
async function deletePhotoObjects(env: Env, userId: string, origin: string): Promise<void> {
  const photos = `photos/${userId}/`;
  for (const prefix of [photos, selfiePrefix(userId)]) {
    let cursor: string | undefined;
    for (;;) {
      const page = await env.PHOTOS.list({ prefix, cursor, limit: 1000 });
      const keys = page.objects.map((o) => o.key);
      if (keys.length) await env.PHOTOS.delete(keys);
      if (prefix === photos) {
        // `photos/{user}/{photo}` and its widths `photos/{user}/{photo}.w{width}`.
        const ids = new Set(keys.map((key) => key.slice(prefix.length).replace(/\.w\d+$/, "")));
        if (ids.size) await purgePhotoCache(origin, [...ids]);
      }
      if (!page.truncated) break;
      cursor = page.cursor;
    }
  }
}

/**
 * Deletes the member's account for good. Sessions end first (so no other tab uploads or sends in
 * the meantime), then the live subscription is cancelled at Stripe (now) and open Checkout
 * Sessions expire (app/server/subscriptions.server.ts `endMoneyOf`), then the photo files in R2, then the member's rows in D1 in one batch: the user
 * row and, through the foreign keys and explicitly, their profile, photos, likes, blocks,
 * notifications, profile views, reports, activity, and every conversation they were in
 * (its room's messages first, then the conversation in the other member's list and in D1). The photo prefix is emptied once more afterwards, for an upload that raced.
 * Payments, subscriptions and the credits ledger are kept under the member's id, which then
 * names nobody (a tombstone): the refund, chargeback and tax trail holds no personal data.
 */
export async function deleteAccount(env: Env, userId: string, origin: string): Promise<void> {
  // Money first: nothing is billed after this (a Stripe failure stops the deletion with a 502
  // before anything else changed, and the member may retry); the money records stay, under the
  // member's id (ADR 008).
  await endMoneyOf(env, userId);
  await destroyAllSessions(env, userId);
  await cutOffRealtime(env, userId);
  // What moderators need of reports against the member outlives them (evidence.server.ts), read
  // before their profile and conversations go; so does their address, as a keyed hash that sends
  // a new registration with it to review (returning.server.ts).
  if (await keepEvidenceOf(env, userId))
    await rememberAddressOf(env, userId, "deleted_after_report");
  await deletePhotoObjects(env, userId, origin);
  await eraseConversationsOf(env, userId);
  const statements = [
    sql`DELETE FROM message_rooms WHERE conversation_id IN (SELECT id FROM conversations WHERE user_low = ${userId} OR user_high = ${userId})`,
    sql`DELETE FROM conversations WHERE user_low = ${userId} OR user_high = ${userId}`,
    sql`DELETE FROM notifications WHERE user_id = ${userId} OR actor_id = ${userId}`,
    sql`DELETE FROM profile_views WHERE viewer_id = ${userId} OR viewed_id = ${userId}`,
    sql`DELETE FROM likes WHERE liker_id = ${userId} OR liked_id = ${userId}`,
    sql`DELETE FROM blocks WHERE blocker_id = ${userId} OR blocked_id = ${userId}`,
    // Photos kept with reports that go now without evidence (those the member made, and any
    // against them not kept) are erased at the next housekeeping run (ADR 049).
    sql`UPDATE report_photos SET erase_after = ${nowIso()}
     WHERE report_id IN (SELECT id FROM reports WHERE reporter_id = ${userId} OR reported_id = ${userId})
       AND report_id NOT IN (SELECT id FROM report_evidence)`,
    sql`DELETE FROM reports WHERE reporter_id = ${userId} OR reported_id = ${userId}`,
    sql`DELETE FROM photos WHERE user_id = ${userId}`,
    sql`DELETE FROM sessions WHERE user_id = ${userId}`,
    sql`DELETE FROM users WHERE id = ${userId}`,
  ];
  await env.DB.batch(statements.map((q) => statement(env.DB, q)));
  await deletePhotoObjects(env, userId, origin);
}
