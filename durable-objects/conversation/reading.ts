import type { ChatMessageView } from "~/realtime/chat";
import { MESSAGES_PAGE_SIZE, type PageMeta } from "~/schemas/chat";
import {
  accessRefusal,
  CONVERSATION_NOT_FOUND,
  MESSAGE_NOT_FOUND,
  ONLY_OWN_MESSAGES,
  otherMember,
  type RoomRules,
} from "~/server/chat-rules.server";
import type { RoomResult, StoredAttachment } from "~/server/room-api.server";
import { nowIso } from "~/server/db.server";
import { refused, type RoomParts } from "./parts";
import { storedAttachment, viewFor, type ReactionRow } from "./storage";
import type { MessageRow } from "~/server/chat-migration.server";

/**
 * A page of messages, oldest first (docs/api.md "Chat"): without `cursor` or `after` the newest
 * page, which marks the conversation read for `me`; `cursor` the page before it; `after` the
 * messages after that sequence number (catch-up), `next_cursor` being the `after` of the next page.
 */
export async function page(
  room: RoomParts,
  conversationId: string,
  me: string,
  { cursor, after }: { cursor?: number; after?: number },
): Promise<RoomResult<{ messages: ChatMessageView[]; meta: PageMeta }>> {
  const rules = await room.rules.load(conversationId);
  if (!rules) return refused(404, CONVERSATION_NOT_FOUND);
  const refusal = accessRefusal(rules, me);
  if (refusal) return { ok: false, refusal };
  const limit = MESSAGES_PAGE_SIZE + 1;
  if (after !== undefined) {
    const rows = room.storage.after(after, limit);
    const page = rows.slice(0, MESSAGES_PAGE_SIZE);
    const hasMore = rows.length > MESSAGES_PAGE_SIZE;
    return {
      ok: true,
      value: {
        messages: views(room, conversationId, rules, me, page),
        meta: { has_more: hasMore, next_cursor: hasMore ? String(page.at(-1)!.seq) : null },
      },
    };
  }
  if (cursor === undefined && markRead(room, conversationId, rules, me)) {
    await room.outbox.flushSoon();
  }
  const rows = room.storage.before(cursor ?? Number.MAX_SAFE_INTEGER, limit);
  const page = rows.slice(0, MESSAGES_PAGE_SIZE).reverse();
  const hasMore = rows.length > MESSAGES_PAGE_SIZE;
  return {
    ok: true,
    value: {
      messages: views(room, conversationId, rules, me, page),
      meta: { has_more: hasMore, next_cursor: hasMore ? String(page[0]!.seq) : null },
    },
  };
}

/**
 * A page's messages (oldest first) as `me` sees them, with their reactions (one read for the
 * page). The other member's messages on it that no device of `me`'s had acknowledged are
 * delivered now: this device received them (the sender hears of it).
 */
function views(
  room: RoomParts,
  conversationId: string,
  rules: RoomRules,
  me: string,
  rows: MessageRow[],
): ChatMessageView[] {
  if (rows.length === 0) return [];
  const from = rows[0]!.seq;
  const to = rows.at(-1)!.seq;
  const other = otherMember(rules, me);
  if (rows.some((r) => r.sender_id === other && !r.delivered_at)) {
    const at = nowIso();
    const ids = room.storage.stampDeliveredBetween(other, from, to, at);
    if (ids.length > 0) {
      const stamped = new Set(ids);
      for (const r of rows) if (stamped.has(r.id)) r.delivered_at = at;
      room.sockets.fanOut(
        { type: "delivered", conversation_id: conversationId, ids, delivered_at: at },
        me,
      );
    }
  }
  const reactions = new Map<number, ReactionRow[]>();
  for (const r of room.storage.reactionsBetween(from, to)) {
    reactions.set(r.message_seq, [...(reactions.get(r.message_seq) ?? []), r]);
  }
  return rows.map((r) => viewFor(conversationId, r, me, reactions.get(r.seq)));
}

/**
 * `{type: "received", ids}` from a socket of `me` (or their member channel): the other member's
 * messages among `ids` that no device had acknowledged get `delivered_at`, and the sender's
 * sockets hear of it. Ids that are not the other member's messages here are ignored.
 */
export async function received(
  room: RoomParts,
  conversationId: string,
  me: string,
  ids: string[],
): Promise<RoomResult<null>> {
  const rules = await room.rules.load(conversationId);
  if (!rules) return refused(404, CONVERSATION_NOT_FOUND);
  const refusal = accessRefusal(rules, me);
  if (refusal) return { ok: false, refusal };
  const at = nowIso();
  const stamped = room.storage.stampDelivered(otherMember(rules, me), ids, at);
  if (stamped.length > 0) {
    room.sockets.fanOut(
      { type: "delivered", conversation_id: conversationId, ids: stamped, delivered_at: at },
      me,
    );
  }
  return { ok: true, value: null };
}

/**
 * Sets (`emoji`) or takes back (null) `me`'s reaction to a message of the conversation: one per
 * member, a new one replacing theirs. Both members' open sockets hear of it; when nothing changed,
 * only the socket it came over (if any) does, as its answer.
 */
export async function react(
  room: RoomParts,
  conversationId: string,
  me: string,
  messageId: string,
  emoji: string | null,
  /** The socket it came over, which hears the outcome even when nothing changed. */
  { socket }: { socket?: WebSocket } = {},
): Promise<RoomResult<null>> {
  const rules = await room.rules.load(conversationId);
  const row = room.storage.byId(messageId);
  if (!rules || !row || row.deleted_at || (rules.low !== me && rules.high !== me)) {
    return refused(404, MESSAGE_NOT_FOUND);
  }
  const refusal = accessRefusal(rules, me);
  if (refusal) return { ok: false, refusal };
  const changed =
    emoji === null
      ? room.storage.unreact(row.seq, me)
      : room.storage.react(row.seq, me, emoji, nowIso());
  if (changed) {
    // Both lists' previews show the reaction (or, taken back, what they showed before), with the
    // messages' next flush: a busy conversation's reactions cost its hubs no call of their own.
    room.outbox.queueBoth(null);
    room.outbox.flushWithin();
    void room.sockets.publish({
      type: "reaction",
      conversation_id: conversationId,
      message_id: messageId,
      user_id: me,
      emoji,
    });
  } else if (socket) {
    room.sockets.reply(socket, {
      type: "reaction",
      conversation_id: conversationId,
      message_id: messageId,
      user_id: me,
      emoji,
    });
  }
  return { ok: true, value: null };
}

/** POST …/read, or `{type: "read"}` over the socket. */
export async function read(
  room: RoomParts,
  conversationId: string,
  me: string,
): Promise<RoomResult<null>> {
  const rules = await room.rules.load(conversationId);
  if (!rules) return refused(404, CONVERSATION_NOT_FOUND);
  const refusal = accessRefusal(rules, me);
  if (refusal) return { ok: false, refusal };
  if (markRead(room, conversationId, rules, me)) await room.outbox.flushSoon();
  return { ok: true, value: null };
}

/**
 * Marks every message read for `me`: the other member's unread messages get `read_at`, the open
 * sockets hear of it (the sender sees the read ticks), and `me`'s list entry clears its count.
 * Nothing is published when there was nothing new to read. Returns whether anything changed.
 */
function markRead(room: RoomParts, conversationId: string, rules: RoomRules, me: string): boolean {
  const { storage } = room;
  const last = storage.lastSeq();
  const readUpTo = storage.lastRead(me);
  if (readUpTo >= last) return false;
  const readAt = nowIso();
  const changed = storage.stampRead(otherMember(rules, me), readUpTo, readAt);
  storage.setLastRead(me, last);
  room.outbox.queue(me, null);
  if (changed > 0) {
    void room.sockets.publish({
      type: "read",
      conversation_id: conversationId,
      user_id: me,
      read_at: readAt,
      seq: last,
    });
  }
  return true;
}

/**
 * Deletes one of `me`'s own messages: its row stays without text (its sequence number is never
 * given again), every open socket hears of it, and both list entries show the newest message
 * that remains. Deleting a message that is already gone changes nothing.
 */
export async function deleteMessage(
  room: RoomParts,
  conversationId: string,
  me: string,
  messageId: string,
): Promise<RoomResult<string | null>> {
  const rules = await room.rules.load(conversationId);
  const row = room.storage.byId(messageId);
  if (!rules || !row || (rules.low !== me && rules.high !== me)) {
    return refused(404, MESSAGE_NOT_FOUND);
  }
  if (row.sender_id !== me) return refused(403, ONLY_OWN_MESSAGES);
  if (row.deleted_at) return { ok: true, value: null };
  const attachment = storedAttachment(row);
  room.storage.markDeleted(messageId, nowIso());
  // Its photo or voice note goes with it (its URL answers 404 from now on, stored or not).
  if (attachment) room.ctx.waitUntil(room.env.PHOTOS.delete(attachment.key));
  room.storage.dropReactions(row.seq);
  room.outbox.queueBoth(null);
  void room.sockets.publish({
    type: "message_deleted",
    id: messageId,
    conversation_id: conversationId,
  });
  await room.outbox.flushSoon();
  return { ok: true, value: otherMember(rules, me) };
}

/** Why an attachment cannot be opened: the same 404 whatever the reason, for a stranger too. */
export const ATTACHMENT_NOT_FOUND = "Attachment not found.";
/** A view-once photo is for its recipient, once. */
export const VIEW_ONCE_GONE = "This photo was already opened.";

/**
 * `me` opens a message's photo or voice note: only one of the two members, while neither has
 * blocked the other and the conversation goes on. A view-once photo is for its recipient, once:
 * this call marks it opened (both members' sockets hear of it and its URL is gone for both) and
 * answers `consume: true`, the caller deleting the object once it has served it.
 */
export async function openAttachment(
  room: RoomParts,
  conversationId: string,
  me: string,
  messageId: string,
): Promise<RoomResult<{ attachment: StoredAttachment; consume: boolean }>> {
  const rules = await room.rules.load(conversationId);
  const row = room.storage.byId(messageId);
  const attachment = row && !row.deleted_at ? storedAttachment(row) : null;
  if (!rules || !row || !attachment || accessRefusal(rules, me)) {
    return refused(404, ATTACHMENT_NOT_FOUND);
  }
  if (!attachment.view_once) return { ok: true, value: { attachment, consume: false } };
  // The sender of a view-once photo has it on their device; on the server it is the recipient's.
  if (row.sender_id === me) return refused(404, ATTACHMENT_NOT_FOUND);
  const openedAt = nowIso();
  if (attachment.opened_at || !room.storage.markOpened(messageId, openedAt)) {
    return refused(410, VIEW_ONCE_GONE);
  }
  void room.sockets.publish({
    type: "attachment_opened",
    conversation_id: conversationId,
    message_id: messageId,
    opened_at: openedAt,
  });
  return { ok: true, value: { attachment, consume: true } };
}
