import type { ChatMessageView, ChatServerFrame } from "~/realtime/chat";
import {
  CONVERSATIONS_PAGE_SIZE,
  MESSAGES_PAGE_SIZE,
  UNANSWERED_MESSAGE_LIMIT,
  type ConversationView,
  type Gift,
  type SendMessageInput,
  type StartConversationInput,
} from "~/schemas/chat";
import { recordActivity } from "./activities.server";
import { isBlockedEitherWay } from "./blocks.server";
import { publishToConversation } from "./chat-rooms.server";
import {
  creditBalance,
  isInsufficientCredits,
  notEnoughCredits,
  spendStatements,
} from "./credits.server";
import { newId } from "./crypto.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { forbidden, HttpError, notFound, ValidationError } from "./errors.server";
import { publishToMember } from "./member-channel.server";
import { memberCards } from "./members.server";
import { notify } from "./notifications.server";
import { hit, hitStatement } from "./rate-limit.server";
import { canSee } from "./visibility.server";

/**
 * Chat (API.md "Chat"): conversations between two members, their messages in one order, read
 * receipts, archiving, deletion and gifts. This module owns every rule and every query; the
 * conversation rooms only fan out what it publishes after D1 has stored it.
 *
 * Order: a message's `seq` is assigned by the statement that stores it (max + 1 within the
 * conversation, unique), so every fetch and every socket agree on one order.
 */

export type Conversation = ConversationView;

/**
 * How frames reach a conversation's open sockets: by default a call to its room; the room itself
 * passes its own fan-out. Resolves with the members who had a socket open.
 */
export type Publish = (frame: ChatServerFrame) => Promise<string[]>;

/** Runs work that may finish after the response (waitUntil); by default it runs unawaited. */
export type Defer = (work: Promise<unknown>) => void;
const awaitLater: Defer = (work) => void work.catch(logDeferredFailure);

function logDeferredFailure(error: unknown) {
  console.error(
    JSON.stringify({ level: "error", event: "chat_deferred_failed", error: String(error) }),
  );
}

export const CANNOT_MESSAGE = "You cannot message this member.";
export const NOT_YOUR_CONVERSATION = "This conversation is not yours.";
export const CONVERSATION_NOT_FOUND = "Conversation not found.";
export const SENDING_TOO_FAST = "You are sending messages too quickly. Please wait a moment.";
export const STARTING_TOO_FAST = "You have started too many conversations. Please try again later.";
export const WAIT_FOR_REPLY = `You can send ${UNANSWERED_MESSAGE_LIMIT} messages until they reply. Please wait for a reply.`;
/** Retry-After for the unanswered-messages limit: waiting alone does not lift it, a reply does. */
const WAIT_FOR_REPLY_RETRY_AFTER = 3600;

// ---------------------------------------------------------------------------------------------
// Rows and views

interface MessageRow {
  id: string;
  conversation_id: string;
  seq: number;
  sender_id: string;
  client_id: string | null;
  message: string;
  sent_at: string;
  read_at: string | null;
  deleted_at: string | null;
  gift_id: string | null;
  gift_name: string | null;
  gift_icon: string | null;
  gift_price: number | null;
}

const MESSAGE_COLUMNS = `m.id, m.conversation_id, m.seq, m.sender_id, m.client_id, m.message, m.sent_at,
  m.read_at, m.deleted_at, m.gift_id, g.name AS gift_name, g.icon AS gift_icon,
  g.price_credits AS gift_price`;
const MESSAGE_FROM = "FROM messages m LEFT JOIN gifts g ON g.id = m.gift_id";

function toMessage(row: MessageRow): ChatMessageView {
  return {
    id: row.id,
    conversation_id: row.conversation_id,
    seq: row.seq,
    sender_id: row.sender_id,
    client_id: row.client_id,
    message: row.message,
    sent_at: row.sent_at,
    read_at: row.read_at,
    gift:
      row.gift_id && row.gift_name !== null
        ? {
            id: row.gift_id,
            name: row.gift_name,
            icon: row.gift_icon ?? "",
            price_credits: row.gift_price ?? 0,
          }
        : null,
  };
}

interface ConversationRef {
  id: string;
  otherId: string;
}

const ordered = (a: string, b: string): [string, string] => (a < b ? [a, b] : [b, a]);

/** A block either way between the member bound to `me` and the one bound to `other` (SQL). */
const blockedSql = (me: string, other: string) =>
  `EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = ${me} AND b.blocked_id = ${other}) OR (b.blocker_id = ${other} AND b.blocked_id = ${me}))`;

// ---------------------------------------------------------------------------------------------
// Access

/** The conversation, when `me` is one of its two members: 404 when unknown, 403 when not theirs. */
async function loadConversation(env: Env, me: string, id: string): Promise<ConversationRef> {
  const row = await env.DB.prepare(
    "SELECT id, user_low, user_high FROM conversations WHERE id = ?1",
  )
    .bind(id)
    .first<{ id: string; user_low: string; user_high: string }>();
  if (!row) throw notFound(CONVERSATION_NOT_FOUND);
  if (row.user_low !== me && row.user_high !== me) throw forbidden(NOT_YOUR_CONVERSATION);
  return { id: row.id, otherId: row.user_low === me ? row.user_high : row.user_low };
}

/** As `loadConversation`, and refused (403) when either member blocked the other. */
async function openConversation(env: Env, me: string, id: string): Promise<ConversationRef> {
  const ref = await loadConversation(env, me, id);
  if (await isBlockedEitherWay(env, me, ref.otherId)) throw forbidden(CANNOT_MESSAGE);
  return ref;
}

/**
 * Whether `me` may open the conversation's socket (checked before the upgrade): the same rule as
 * reading it. Throws 404, or 403 for someone else's conversation or across a block.
 */
export async function authorizeConversationSocket(env: Env, me: string, id: string) {
  await openConversation(env, me, id);
}

// ---------------------------------------------------------------------------------------------
// Conversation lists

interface ConversationRow {
  id: string;
  other_id: string;
  last_activity_at: string;
  last_message: string | null;
  last_message_time: string | null;
  unread_count: number;
}

/**
 * Each row: the conversation as `?1` sees it. The last message is the newest one not deleted;
 * unread counts the other member's messages after the member's last read sequence.
 */
function conversationSelect(member: string) {
  return `
  SELECT cm.conversation_id AS id, o.user_id AS other_id, cm.last_activity_at,
    lm.message AS last_message, lm.sent_at AS last_message_time,
    (SELECT count(*) FROM messages u WHERE u.conversation_id = cm.conversation_id
       AND u.sender_id = o.user_id AND u.seq > cm.last_read_seq AND u.deleted_at IS NULL) AS unread_count
  FROM conversation_members cm
  JOIN conversation_members o ON o.conversation_id = cm.conversation_id AND o.user_id <> cm.user_id
  JOIN users ou ON ou.id = o.user_id
  LEFT JOIN messages lm ON lm.id = (SELECT l.id FROM messages l WHERE l.conversation_id = cm.conversation_id
       AND l.deleted_at IS NULL ORDER BY l.seq DESC LIMIT 1)
  WHERE cm.user_id = ${member} AND ou.status = 'active' AND ou.email_verified_at IS NOT NULL
    AND NOT ${blockedSql(member, "o.user_id")}`;
}

const CONVERSATION_SELECT = conversationSelect("?1");

/** A member's unread messages over their active conversations (SQL; `member` is a placeholder). */
const unreadTotalSql = (member: string) =>
  `(SELECT coalesce(sum(t.unread_count), 0) FROM (${conversationSelect(member)}
     AND cm.listed = 1 AND cm.archived_at IS NULL) t)`;

/** A member's unread messages in one conversation (SQL; placeholders for both). */
const unreadInSql = (conversation: string, member: string, other: string) =>
  `(SELECT count(*) FROM messages u WHERE u.conversation_id = ${conversation} AND u.sender_id = ${other}
     AND u.deleted_at IS NULL AND u.seq > (SELECT last_read_seq FROM conversation_members
       WHERE conversation_id = ${conversation} AND user_id = ${member}))`;

async function toConversations(env: Env, rows: ConversationRow[]): Promise<Conversation[]> {
  const cards = new Map(
    (
      await memberCards(
        env,
        rows.map((r) => r.other_id),
      )
    ).map((c) => [c.id, c]),
  );
  return rows.flatMap((r) => {
    const user = cards.get(r.other_id);
    if (!user) return [];
    return [
      {
        id: r.id,
        last_message: r.last_message,
        last_message_time: r.last_message_time,
        unread_count: r.unread_count,
        user_id: r.other_id,
        user,
      },
    ];
  });
}

function encodeCursor(at: string, id: string) {
  return btoa(`${at}|${id}`).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const [at, id] = text.split("|");
    if (at && id && !Number.isNaN(Date.parse(at))) return [at, id];
  } catch {
    // Fall through.
  }
  throw new ValidationError({ cursor: ["The cursor is invalid."] });
}

/**
 * The member's active (or archived) conversations, newest activity first, a page at a time.
 * A conversation with a member either side has blocked is in neither list.
 */
export async function listConversations(
  env: Env,
  me: string,
  { archived = false, cursor }: { archived?: boolean; cursor?: string } = {},
) {
  const binds: unknown[] = [me];
  let sql = `${CONVERSATION_SELECT} AND cm.listed = 1 AND cm.archived_at IS ${archived ? "NOT NULL" : "NULL"}`;
  if (cursor) {
    const [at, id] = decodeCursor(cursor);
    sql +=
      " AND (cm.last_activity_at < ?2 OR (cm.last_activity_at = ?2 AND cm.conversation_id < ?3))";
    binds.push(at, id);
  }
  sql += ` ORDER BY cm.last_activity_at DESC, cm.conversation_id DESC LIMIT ${CONVERSATIONS_PAGE_SIZE + 1}`;
  const { results } = await env.DB.prepare(sql)
    .bind(...binds)
    .all<ConversationRow>();
  const page = results.slice(0, CONVERSATIONS_PAGE_SIZE);
  const hasMore = results.length > CONVERSATIONS_PAGE_SIZE;
  const last = page.at(-1);
  return {
    conversations: await toConversations(env, page),
    meta: {
      has_more: hasMore,
      next_cursor: hasMore && last ? encodeCursor(last.last_activity_at, last.id) : null,
    },
  };
}

/** One conversation as `me` sees it (whether listed or archived). */
export async function getConversation(env: Env, me: string, id: string): Promise<Conversation> {
  await loadConversation(env, me, id);
  const row = await env.DB.prepare(`${CONVERSATION_SELECT} AND cm.conversation_id = ?2`)
    .bind(me, id)
    .first<ConversationRow>();
  const [conversation] = row ? await toConversations(env, [row]) : [];
  if (!conversation) throw forbidden(CANNOT_MESSAGE);
  return conversation;
}

/** The member's unread messages over their active conversations (the header badge). */
export async function unreadTotal(env: Env, me: string): Promise<number> {
  const row = await env.DB.prepare(`SELECT ${unreadTotalSql("?1")} AS n`)
    .bind(me)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Messages

/**
 * A page of messages, oldest first. Without `cursor` or `after` it is the newest page, and it
 * marks the conversation read for `me`; `cursor` gives the page before it; `after` gives the
 * messages after that sequence number (catch-up), with `next_cursor` the `after` of the next page.
 */
export async function listMessages(
  env: Env,
  me: string,
  id: string,
  { cursor, after }: { cursor?: number; after?: number } = {},
  defer: Defer = awaitLater,
) {
  const ref = await openConversation(env, me, id);
  const limit = MESSAGES_PAGE_SIZE + 1;
  if (after !== undefined) {
    const { results } = await env.DB.prepare(
      `SELECT ${MESSAGE_COLUMNS} ${MESSAGE_FROM}
       WHERE m.conversation_id = ?1 AND m.seq > ?2 AND m.deleted_at IS NULL
       ORDER BY m.seq ASC LIMIT ${limit}`,
    )
      .bind(id, after)
      .all<MessageRow>();
    const page = results.slice(0, MESSAGES_PAGE_SIZE);
    const hasMore = results.length > MESSAGES_PAGE_SIZE;
    return {
      messages: page.map(toMessage),
      meta: { has_more: hasMore, next_cursor: hasMore ? String(page.at(-1)!.seq) : null },
    };
  }
  if (cursor === undefined) await markConversationRead(env, me, ref, defer);
  const { results } = await env.DB.prepare(
    `SELECT ${MESSAGE_COLUMNS} ${MESSAGE_FROM}
     WHERE m.conversation_id = ?1 AND m.seq < ?2 AND m.deleted_at IS NULL
     ORDER BY m.seq DESC LIMIT ${limit}`,
  )
    .bind(id, cursor ?? Number.MAX_SAFE_INTEGER)
    .all<MessageRow>();
  const page = results.slice(0, MESSAGES_PAGE_SIZE).reverse();
  const hasMore = results.length > MESSAGES_PAGE_SIZE;
  return {
    messages: page.map(toMessage),
    meta: { has_more: hasMore, next_cursor: hasMore ? String(page[0]!.seq) : null },
  };
}

async function messageById(env: Env, id: string) {
  return env.DB.prepare(`SELECT ${MESSAGE_COLUMNS} ${MESSAGE_FROM} WHERE m.id = ?1`)
    .bind(id)
    .first<MessageRow>();
}

/** The same client id again: the message it stored, when it is for the same conversation. */
function replayed(row: MessageRow, conversationId: string): ChatMessageView {
  if (row.conversation_id !== conversationId) {
    throw new HttpError(409, "This client id was already used for another message.");
  }
  return toMessage(row);
}

async function activeGift(env: Env, giftId: string): Promise<Gift> {
  const gift = await env.DB.prepare(
    "SELECT id, name, icon, price_credits FROM gifts WHERE id = ?1 AND active = 1",
  )
    .bind(giftId)
    .first<Gift>();
  if (!gift) throw new ValidationError({ gift_id: ["Please choose a gift."] });
  return gift;
}

interface SendCheck {
  user_low: string;
  user_high: string;
  other_id: string;
  blocked: number;
  other_status: string | null;
  replied: number;
  sent: number;
  replay_id: string | null;
}

/**
 * Everything a send needs to know first, in one query: the conversation and its other member, a
 * message already stored under the client id, a block either way, whether the other member is
 * active, whether they have written, and (until they have) how many messages `me` sent. Null when
 * the conversation does not exist.
 */
async function sendCheck(env: Env, me: string, conversationId: string, clientId: string | null) {
  return env.DB.prepare(
    `WITH c AS (SELECT id, user_low, user_high,
                  CASE WHEN user_low = ?2 THEN user_high ELSE user_low END AS other_id
                FROM conversations WHERE id = ?1)
     SELECT c.user_low, c.user_high, c.other_id,
       ${blockedSql("?2", "c.other_id")} AS blocked,
       (SELECT status FROM users WHERE id = c.other_id) AS other_status,
       EXISTS (SELECT 1 FROM messages WHERE conversation_id = c.id AND sender_id = c.other_id) AS replied,
       CASE WHEN EXISTS (SELECT 1 FROM messages WHERE conversation_id = c.id AND sender_id = c.other_id)
         THEN 0 ELSE (SELECT count(*) FROM messages WHERE conversation_id = c.id AND sender_id = ?2) END AS sent,
       CASE WHEN ?3 IS NULL THEN NULL
         ELSE (SELECT id FROM messages WHERE sender_id = ?2 AND client_id = ?3) END AS replay_id
     FROM c`,
  )
    .bind(conversationId, me, clientId)
    .first<SendCheck>();
}

/**
 * Why the checked member may not send right now, as the error to answer; null when they may. The
 * same conditions guard the insert itself (see SEND_GUARD), so a race cannot slip past.
 */
function sendRefusal(check: SendCheck): HttpError | null {
  if (check.blocked || check.other_status !== "active") return forbidden(CANNOT_MESSAGE);
  if (!check.replied && check.sent >= UNANSWERED_MESSAGE_LIMIT) {
    return new HttpError(429, WAIT_FOR_REPLY, undefined, {
      "Retry-After": String(WAIT_FOR_REPLY_RETRY_AFTER),
    });
  }
  return null;
}

/** The conversation of a send check, as `loadConversation` answers it (404, 403). */
function checkedConversation(check: SendCheck | null, me: string, id: string): ConversationRef {
  if (!check) throw notFound(CONVERSATION_NOT_FOUND);
  if (check.user_low !== me && check.user_high !== me) throw forbidden(NOT_YOUR_CONVERSATION);
  return { id, otherId: check.other_id };
}

/**
 * The other member of conversation ?2 as seen by sender ?3 (SQL; a primary-key lookup).
 */
const OTHER = `(SELECT CASE WHEN user_low = ?3 THEN user_high ELSE user_low END FROM conversations WHERE id = ?2)`;

/**
 * The insert's own guard (?2 the conversation, ?3 the sender, ?8 the rate-limit key, ?9 its
 * maximum, ?10 the weight of its previous window): the sender is one of the conversation's two members, neither blocked the other, the
 * other member is active, either they have written or the sender is under the unanswered limit,
 * and the sender is within the rate limit (counted earlier in the same batch). When it fails the
 * message text becomes NULL and the NOT NULL constraint fails the whole batch.
 */
const SEND_GUARD = `EXISTS (SELECT 1 FROM conversations WHERE id = ?2 AND (user_low = ?3 OR user_high = ?3))
  AND NOT ${blockedSql("?3", OTHER)}
  AND (SELECT status FROM users WHERE id = ${OTHER}) = 'active'
  AND (EXISTS (SELECT 1 FROM messages WHERE conversation_id = ?2 AND sender_id = ${OTHER})
    OR (SELECT count(*) FROM (SELECT 1 FROM messages WHERE conversation_id = ?2 AND sender_id = ?3
          LIMIT ${UNANSWERED_MESSAGE_LIMIT})) < ${UNANSWERED_MESSAGE_LIMIT})
  AND coalesce((SELECT count + prev_count * ?10 FROM rate_limits WHERE key = ?8), 0) <= ?9`;

const isGuardFailure = (e: unknown) =>
  String(e).includes("NOT NULL constraint failed: messages.message");
const isUnknownConversation = (e: unknown) => String(e).includes("FOREIGN KEY constraint failed");
const isDuplicateClientId = (e: unknown) => String(e).includes("messages.client_id");
const isSeqConflict = (e: unknown) => String(e).includes("messages.seq");

/**
 * Stores a message and publishes it to the conversation's room: the message acknowledged to the
 * sender is in D1 first. With a `client_id` the send is idempotent: the same id again answers
 * the stored message and stores nothing. A gift spends its price in the same D1 batch.
 *
 * The common case is one D1 batch (one transaction): the sender's rate-limit count, the message
 * with its sequence number behind a guard that holds every rule, both members' list state, the
 * gift's credits, and both members' unread counts for their own channels. Only when it fails are
 * the rules checked one by one, to answer with the right error.
 */
export async function sendMessage(
  env: Env,
  me: string,
  conversationId: string,
  input: SendMessageInput,
  defer: Defer = awaitLater,
  /** How the stored message reaches the room: by default a call to the room's Durable Object. */
  publish: Publish = (frame) => publishToConversation(env, conversationId, frame),
): Promise<{ message: ChatMessageView; created: boolean }> {
  const gift = input.gift_id ? await activeGift(env, input.gift_id) : null;
  const text = input.message || (gift ? `${gift.icon} ${gift.name}` : "");
  const clientId = input.client_id ?? null;
  const id = newId();
  const sentAt = nowIso();
  const limit = hitStatement(env, "chat_send_account", me);

  let stored: { seq: number; counts: UnreadCounts } | null = null;
  for (let attempt = 0; stored === null; attempt++) {
    const statements = [
      limit.statement,
      env.DB.prepare(
        `INSERT INTO messages (id, conversation_id, seq, sender_id, client_id, message, gift_id, sent_at)
         VALUES (?1, ?2, (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE conversation_id = ?2),
           ?3, ?4, CASE WHEN ${SEND_GUARD} THEN ?5 END, ?6, ?7)
         RETURNING seq`,
      ).bind(
        id,
        conversationId,
        me,
        clientId,
        text,
        gift?.id ?? null,
        sentAt,
        limit.key,
        limit.max,
        limit.previousWeight,
      ),
      // A new message brings the conversation back to both members' active lists.
      env.DB.prepare(
        `UPDATE conversation_members SET last_activity_at = ?2, listed = 1, archived_at = NULL
         WHERE conversation_id = ?1`,
      ).bind(conversationId, sentAt),
      ...(gift
        ? spendStatements(env, {
            userId: me,
            amount: gift.price_credits,
            reason: "gift",
            reference: id,
            createdAt: sentAt,
          })
        : []),
      // Both members' unread counts as they are now, for their own channels (no query later).
      env.DB.prepare(
        `SELECT ${OTHER} AS other_id,
           ${unreadInSql("?2", OTHER, "?3")} AS recipient_unread,
           ${unreadTotalSql(OTHER)} AS recipient_total,
           ${unreadInSql("?2", "?3", OTHER)} AS sender_unread,
           ${unreadTotalSql("?3")} AS sender_total`,
      ).bind(null, conversationId, me),
    ];
    try {
      const results = await env.DB.batch<Record<string, unknown>>(statements);
      stored = {
        seq: results[1]!.results[0]!.seq as number,
        counts: results.at(-1)!.results[0] as unknown as UnreadCounts,
      };
    } catch (error) {
      if (isSeqConflict(error) && attempt < 4) continue;
      if (isInsufficientCredits(error)) throw notEnoughCredits();
      const isRefusal = isGuardFailure(error) || isUnknownConversation(error);
      if (!isRefusal && !isDuplicateClientId(error)) throw error;
      return refusedSend(env, me, conversationId, clientId, limit);
    }
  }

  const ref = { id: conversationId, otherId: stored.counts.other_id };
  const message: ChatMessageView = {
    id,
    conversation_id: conversationId,
    seq: stored.seq,
    sender_id: me,
    client_id: clientId,
    message: text,
    sent_at: sentAt,
    read_at: null,
    gift: gift ? { ...gift } : null,
  };
  const watching = await publish({ type: "message", message });
  defer(afterSend(env, me, ref, message, stored.counts, watching.includes(ref.otherId)));
  return { message, created: true };
}

/**
 * The batch of a send did not store it: says why, checking the rules in the order the API
 * answers them (404 unknown conversation, 403 not a member, the stored message for a client id
 * already used, 403 blocked, 429 waiting for a reply, 429 too fast).
 */
async function refusedSend(
  env: Env,
  me: string,
  conversationId: string,
  clientId: string | null,
  limit: ReturnType<typeof hitStatement>,
): Promise<{ message: ChatMessageView; created: false }> {
  const check = await sendCheck(env, me, conversationId, clientId);
  const ref = checkedConversation(check, me, conversationId);
  if (check!.replay_id) {
    const existing = await messageById(env, check!.replay_id);
    if (existing) return { message: replayed(existing, ref.id), created: false };
  }
  const refusal = sendRefusal(check!);
  if (refusal) throw refusal;
  // The batch did not count this attempt: would it have been within the limit?
  const row = await env.DB.prepare("SELECT count, prev_count FROM rate_limits WHERE key = ?1")
    .bind(limit.key)
    .first<{ count: number; prev_count: number }>();
  const verdict = limit.result((row?.count ?? 0) + 1, row?.prev_count ?? 0);
  if (!verdict.allowed) {
    throw new HttpError(429, SENDING_TOO_FAST, undefined, {
      "Retry-After": String(verdict.retryAfter),
    });
  }
  throw forbidden(CANNOT_MESSAGE);
}

/** What follows a stored message: both members' lists, and a notification for the recipient. */
interface UnreadCounts {
  other_id: string;
  recipient_unread: number;
  recipient_total: number;
  sender_unread: number;
  sender_total: number;
}

async function afterSend(
  env: Env,
  me: string,
  ref: ConversationRef,
  message: ChatMessageView,
  counts: UnreadCounts,
  /** The recipient has the conversation open (a socket in its room) and sees the message. */
  recipientWatching: boolean,
) {
  const update = (unread: number, total: number) => ({
    type: "conversation" as const,
    conversation_id: ref.id,
    last_message: message.message,
    last_message_time: message.sent_at,
    unread_count: unread,
    unread_total: total,
    message: {
      id: message.id,
      sender_id: message.sender_id,
      message: message.message,
      sent_at: message.sent_at,
    },
  });
  await Promise.all([
    publishToMember(env, me, update(counts.sender_unread, counts.sender_total)),
    publishToMember(env, ref.otherId, update(counts.recipient_unread, counts.recipient_total)),
  ]);
  // A notification for every gift, and for the first unread message of a streak unless the
  // recipient is looking at the conversation.
  if (message.gift || (counts.recipient_unread === 1 && !recipientWatching)) {
    await notify(env, {
      to: ref.otherId,
      type: message.gift ? "gift" : "message",
      actorId: me,
      data: {
        conversation_id: ref.id,
        message_id: message.id,
        preview: message.message.slice(0, 140),
        ...(message.gift ? { gift: message.gift } : {}),
      },
    });
  }
  // Both members' own history (the activities page).
  if (message.gift) {
    const data = { conversation_id: ref.id, gift: message.gift };
    await recordActivity(
      env,
      { userId: me, type: "gift_sent", otherUserId: ref.otherId, data },
      { userId: ref.otherId, type: "gift_received", otherUserId: me, data },
    );
  }
}

/**
 * The conversation's list entry for one member, as their other pages should show it, with the
 * member's unread total (one query).
 */
async function memberSummary(env: Env, userId: string, conversationId: string) {
  return env.DB.prepare(
    `SELECT s.*, ${unreadTotalSql("?1")} AS unread_total
     FROM (${CONVERSATION_SELECT} AND cm.conversation_id = ?2) s`,
  )
    .bind(userId, conversationId)
    .first<ConversationRow & { unread_total: number }>();
}

/** Tells a member's open pages (their own channel) that a conversation changed. */
async function pushConversationUpdate(
  env: Env,
  userId: string,
  conversationId: string,
  message: ChatMessageView | null = null,
) {
  const summary = await memberSummary(env, userId, conversationId);
  if (!summary) return null;
  await publishToMember(env, userId, {
    type: "conversation",
    conversation_id: conversationId,
    last_message: summary.last_message,
    last_message_time: summary.last_message_time,
    unread_count: summary.unread_count,
    unread_total: summary.unread_total,
    message: message
      ? {
          id: message.id,
          sender_id: message.sender_id,
          message: message.message,
          sent_at: message.sent_at,
        }
      : null,
  });
  return summary;
}

/**
 * Marks every message of the conversation read for `me`: the other member's unread messages get
 * `read_at`, the room tells the open sockets (the sender sees the read ticks), and `me`'s other
 * pages clear the unread count. Nothing is published when there was nothing new to read.
 */
async function markConversationRead(
  env: Env,
  me: string,
  ref: ConversationRef,
  defer: Defer,
  publish: Publish = (frame) => publishToConversation(env, ref.id, frame),
) {
  const readAt = nowIso();
  const [messagesRead, member] = await env.DB.batch<{ last_read_seq: number }>([
    env.DB.prepare(
      `UPDATE messages SET read_at = ?4
       WHERE conversation_id = ?1 AND sender_id = ?3 AND read_at IS NULL AND seq >
         (SELECT last_read_seq FROM conversation_members WHERE conversation_id = ?1 AND user_id = ?2)`,
    ).bind(ref.id, me, ref.otherId, readAt),
    env.DB.prepare(
      `UPDATE conversation_members
       SET last_read_seq = (SELECT coalesce(max(seq), 0) FROM messages WHERE conversation_id = ?1)
       WHERE conversation_id = ?1 AND user_id = ?2
         AND last_read_seq < (SELECT coalesce(max(seq), 0) FROM messages WHERE conversation_id = ?1)
       RETURNING last_read_seq`,
    ).bind(ref.id, me),
  ]);
  const seq = member?.results[0]?.last_read_seq;
  if (seq === undefined) return;
  if ((messagesRead?.meta.changes ?? 0) > 0) {
    await publish({
      type: "read",
      conversation_id: ref.id,
      user_id: me,
      read_at: readAt,
      seq,
    });
  }
  defer(pushConversationUpdate(env, me, ref.id));
}

/** POST …/read, or `{type: "read"}` over the conversation's socket (which passes its fan-out). */
export async function markRead(
  env: Env,
  me: string,
  id: string,
  defer: Defer = awaitLater,
  publish?: Publish,
) {
  await markConversationRead(env, me, await openConversation(env, me, id), defer, publish);
}

/**
 * Deletes one of the member's own messages: it is gone from every page (its text from the other
 * member's notifications too), the room tells the open sockets, and both members' lists show the
 * newest message that remains. Deleting a message that
 * is already gone changes nothing. A gift's credits stay spent.
 */
export async function deleteMessage(
  env: Env,
  me: string,
  messageId: string,
  defer: Defer = awaitLater,
) {
  const row = await messageById(env, messageId);
  const ref = row ? await loadConversation(env, me, row.conversation_id).catch(() => null) : null;
  if (!row || !ref) throw notFound("Message not found.");
  if (row.sender_id !== me) throw forbidden("You can only delete your own messages.");
  if (row.deleted_at) return;
  const [deleted] = await env.DB.batch([
    env.DB.prepare(
      "UPDATE messages SET deleted_at = ?2, message = '' WHERE id = ?1 AND deleted_at IS NULL",
    ).bind(messageId, nowIso()),
    env.DB.prepare(
      `UPDATE conversation_members SET last_activity_at = coalesce(
         (SELECT sent_at FROM messages WHERE conversation_id = ?1 AND deleted_at IS NULL ORDER BY seq DESC LIMIT 1),
         (SELECT created_at FROM conversations WHERE id = ?1))
       WHERE conversation_id = ?1`,
    ).bind(ref.id),
    // Its text leaves the other member's notifications too (and so their export).
    env.DB.prepare(
      `UPDATE notifications SET data = json_remove(data, '$.preview')
       WHERE user_id = ?2 AND json_extract(data, '$.message_id') = ?1`,
    ).bind(messageId, ref.otherId),
  ]);
  if (!deleted?.meta.changes) return;
  await publishToConversation(env, ref.id, {
    type: "message_deleted",
    id: messageId,
    conversation_id: ref.id,
  });
  defer(
    Promise.all([
      pushConversationUpdate(env, me, ref.id),
      pushConversationUpdate(env, ref.otherId, ref.id),
    ]),
  );
}

// ---------------------------------------------------------------------------------------------
// Starting, archiving, gifts

async function conversationOfPair(env: Env, a: string, b: string) {
  const [low, high] = ordered(a, b);
  return env.DB.prepare("SELECT id FROM conversations WHERE user_low = ?1 AND user_high = ?2")
    .bind(low, high)
    .first<{ id: string }>();
}

/**
 * Starts a conversation with a member, or finds the one the two already have (and puts it back in
 * the starter's active list); with a message, sends it. The other member sees the conversation
 * once it has a message.
 */
export async function startConversation(
  env: Env,
  me: string,
  input: StartConversationInput,
  defer: Defer = awaitLater,
) {
  const other = input.user_id;
  if (other === me) throw new ValidationError({ user_id: ["You cannot message yourself."] });
  // API.md: messaging across a block is 403 (before visibility, which also hides blocked members).
  if (await isBlockedEitherWay(env, me, other)) throw forbidden(CANNOT_MESSAGE);
  if (!(await canSee(env, me, other))) throw notFound("Member not found.");

  let existing = await conversationOfPair(env, me, other);
  let created = false;
  if (!existing) {
    const limit = await hit(env, "chat_start_account", me);
    if (!limit.allowed) {
      throw new HttpError(429, STARTING_TOO_FAST, undefined, {
        "Retry-After": String(Math.max(1, limit.retryAfter)),
      });
    }
    const id = newId();
    const now = nowIso();
    const [low, high] = ordered(me, other);
    const member = (userId: string, listed: boolean) =>
      env.DB.prepare(
        `INSERT INTO conversation_members (conversation_id, user_id, listed, last_activity_at)
         SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM conversations WHERE id = ?1)`,
      ).bind(id, userId, listed ? 1 : 0, now);
    await env.DB.batch([
      env.DB.prepare(
        `INSERT INTO conversations (id, user_low, user_high, created_by, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(user_low, user_high) DO NOTHING`,
      ).bind(id, low, high, me, now),
      member(me, true),
      member(other, false),
    ]);
    existing = await conversationOfPair(env, me, other);
    if (!existing) throw new Error("The conversation was not stored");
    created = existing.id === id;
  }
  if (!created) {
    await env.DB.prepare(
      `UPDATE conversation_members SET listed = 1, archived_at = NULL
       WHERE conversation_id = ?1 AND user_id = ?2`,
    )
      .bind(existing.id, me)
      .run();
  }
  const message =
    input.message || input.gift_id
      ? (
          await sendMessage(
            env,
            me,
            existing.id,
            { message: input.message, client_id: input.client_id, gift_id: input.gift_id },
            defer,
          )
        ).message
      : null;
  return { conversation: await getConversation(env, me, existing.id), message, created };
}

/** Archiving hides the conversation for `me` only; a new message brings it back. */
export async function setArchived(env: Env, me: string, id: string, archived: boolean) {
  const ref = await loadConversation(env, me, id);
  await env.DB.prepare(
    "UPDATE conversation_members SET archived_at = ?3 WHERE conversation_id = ?1 AND user_id = ?2",
  )
    .bind(ref.id, me, archived ? nowIso() : null)
    .run();
  return { archived };
}

/** GET /chat/gifts: the catalogue, and the member's balance to pay with. */
export async function listGifts(env: Env, me: string) {
  const [{ results }, credit] = await Promise.all([
    env.DB.prepare(
      "SELECT id, name, icon, price_credits FROM gifts WHERE active = 1 ORDER BY position, id",
    ).all<Gift>(),
    creditBalance(env, me),
  ]);
  return { gifts: results, user_credits: credit.balance };
}
