import { and, inArray, sql } from "drizzle-orm";
import type { ChatMessageView } from "~/realtime/chat";
import {
  ATTACHMENTS_NEED_MATCH,
  CONVERSATIONS_PAGE_SIZE,
  type ConversationView,
  type SendMessageInput,
  type StartConversationInput,
} from "~/schemas/chat";
import { conversationOfMessage, conversationRoom } from "./chat-rooms.server";
import {
  CANNOT_MESSAGE,
  CONVERSATION_NOT_FOUND,
  MESSAGE_NOT_FOUND,
  NOT_YOUR_CONVERSATION,
  STARTING_TOO_FAST,
} from "./chat-rules.server";
import { creditBalance } from "./credits.server";
import { conversations } from "./db/chat";
import { newId } from "./crypto.server";
import { getDb, nowIso, schema } from "./db.server";
import { readConfig, type Env } from "./env.server";
import { forbidden, HttpError, notFound, ValidationError } from "./errors.server";
import { activeGift, giftCatalogue, GIFT_REQUIRED } from "./gifts.server";
import { memberHub } from "./member-hub.server";
import { SafetyCheck } from "./message-safety.server";
import { cardPhotoUrls, cardQuery, toMemberCard, type MemberCard } from "./members.server";
import { hit } from "./rate-limit.server";
import type { ListRow, RoomResult } from "./room-api.server";
import type { TicketSession } from "./socket-ticket.server";
import { likeStatus, unmatched } from "./likes.server";
import { canSee, isBlockedEitherWay, visibleTo } from "./visibility.server";
import { firstOf, run, selection, statement } from "./sql.server";

/**
 * Chat (docs/api.md "Chat"): conversations between two members, their messages in one order, read
 * receipts, archiving, deletion and gifts (docs/decisions/012-chat-in-rooms.md).
 *
 * D1 holds who talks with whom (`conversations`, `conversation_members`: written once, when a
 * conversation starts) and the gifts' ledger. Each conversation's messages live in its room (a
 * Durable Object, which stores, orders and checks every send with no D1 round trip); each member's
 * conversation list lives in their hub, written by the rooms. This module routes each call to the
 * right object and adds the member cards from D1.
 */

export type Conversation = ConversationView;

/** A room's refusal as the HTTP error the API answers. */
export function unwrap<T>(result: RoomResult<T>): T {
  if (result.ok) return result.value;
  const { status, message, retryAfter, errors, safety } = result.refusal;
  if (safety) throw new SafetyCheck(safety);
  throw new HttpError(
    status,
    message,
    errors,
    retryAfter === undefined ? undefined : { "Retry-After": String(retryAfter) },
  );
}

interface ConversationRef {
  id: string;
  otherId: string;
  createdAt: string;
}

const ordered = (a: string, b: string): [string, string] => (a < b ? [a, b] : [b, a]);

// ---------------------------------------------------------------------------------------------
// Access (D1: when a socket opens, a list entry is archived; never per message)

/** A conversation's row: its id, its two members and when it started. */
const conversationFields = selection({
  id: conversations.id,
  user_low: conversations.userLow,
  user_high: conversations.userHigh,
  created_at: conversations.createdAt,
  ended_at: conversations.endedAt,
});

/**
 * The conversation, when `me` is one of its two members: 404 when unknown, 403 when not theirs or
 * when it ended (an unmatch).
 */
async function loadConversation(env: Env, me: string, id: string): Promise<ConversationRef> {
  const row = await firstOf(
    env.DB,
    conversationFields,
    sql`SELECT ${conversationFields.sql} FROM conversations WHERE id = ${id}`,
  );
  if (!row) throw notFound(CONVERSATION_NOT_FOUND);
  if (row.user_low !== me && row.user_high !== me) throw forbidden(NOT_YOUR_CONVERSATION);
  if (row.ended_at !== null) throw forbidden(CANNOT_MESSAGE);
  return {
    id: row.id,
    otherId: row.user_low === me ? row.user_high : row.user_low,
    createdAt: row.created_at,
  };
}

/**
 * Whether `me` may open the conversation's socket, asked of their hub first (no D1): false when
 * their ticket is refused (a session of theirs that ended). A conversation the hub does not list
 * as theirs and open (new, hidden, or not theirs) is checked against D1 as
 * `authorizeConversationSocket` does (throws 404 or 403). Either way the hub notes the
 * conversation, so that ending the member's sessions closes this socket too.
 */
export async function admitConversationSocket(
  env: Env,
  me: string,
  id: string,
  ticket: TicketSession,
): Promise<boolean> {
  const hub = memberHub(env, me);
  const admission = await hub.noteConversation(id, ticket);
  if (admission === "refused") return false;
  if (admission === "check") {
    await authorizeConversationSocket(env, me, id);
    await hub.rememberConversation(id);
  }
  return true;
}

/**
 * Whether `me` may open the conversation's socket (checked before the upgrade): a member of it,
 * and neither blocked the other. Throws 404, or 403 for someone else's conversation or a block.
 */
export async function authorizeConversationSocket(env: Env, me: string, id: string) {
  const ref = await loadConversation(env, me, id);
  if (await isBlockedEitherWay(env, me, ref.otherId)) throw forbidden(CANNOT_MESSAGE);
}

// ---------------------------------------------------------------------------------------------
// Conversation lists (the member's hub, and the cards from D1 in one query)

/** Cards of the listed members `me` may see (active, verified, no block either way). */
async function visibleCards(env: Env, me: string, ids: string[]): Promise<Map<string, MemberCard>> {
  if (ids.length === 0) return new Map();
  const rows = await cardQuery(getDb(env.DB))
    .where(and(inArray(schema.users.id, [...new Set(ids)]), visibleTo(me)))
    .all();
  const now = Date.now();
  const photos = await cardPhotoUrls(env, rows, now);
  return new Map(rows.map((row) => [row.id, toMemberCard(row, photos, now)]));
}

function toConversations(rows: ListRow[], cards: Map<string, MemberCard>): Conversation[] {
  return rows.flatMap((r) => {
    const user = cards.get(r.other_id);
    if (!user) return [];
    return [
      {
        id: r.conversation_id,
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
  const rows = await memberHub(env, me).conversations(
    archived,
    CONVERSATIONS_PAGE_SIZE + 1,
    cursor ? decodeCursor(cursor) : null,
  );
  const page = rows.slice(0, CONVERSATIONS_PAGE_SIZE);
  const hasMore = rows.length > CONVERSATIONS_PAGE_SIZE;
  const last = page.at(-1);
  const cards = await visibleCards(
    env,
    me,
    page.map((r) => r.other_id),
  );
  return {
    conversations: toConversations(page, cards),
    meta: {
      has_more: hasMore,
      next_cursor: hasMore && last ? encodeCursor(last.activity_at, last.conversation_id) : null,
    },
  };
}

/** One conversation as `me` sees it (whether listed or archived). */
async function getConversation(env: Env, me: string, ref: ConversationRef): Promise<Conversation> {
  const [row, cards] = await Promise.all([
    memberHub(env, me).conversation(ref.id),
    visibleCards(env, me, [ref.otherId]),
  ]);
  const [conversation] = toConversations(
    [
      row ?? {
        conversation_id: ref.id,
        other_id: ref.otherId,
        last_message: null,
        last_message_time: null,
        activity_at: ref.createdAt,
        unread_count: 0,
      },
    ],
    cards,
  );
  if (!conversation) throw forbidden(CANNOT_MESSAGE);
  return conversation;
}

/** The member's unread messages over their active conversations (the header badge). */
export async function unreadTotal(env: Env, me: string): Promise<number> {
  return memberHub(env, me).unreadTotal();
}

// ---------------------------------------------------------------------------------------------
// Messages (the conversation's room)

/**
 * A page of messages, oldest first. Without `cursor` or `after` it is the newest page, and it
 * marks the conversation read for `me`; `cursor` gives the page before it; `after` gives the
 * messages after that sequence number (catch-up), with `next_cursor` the `after` of the next page.
 */
export async function listMessages(
  env: Env,
  me: string,
  id: string,
  query: { cursor?: number; after?: number } = {},
) {
  return unwrap(await conversationRoom(env, id).page(id, me, query));
}

/**
 * Stores a message in the conversation's room, which checks every rule, orders it and fans it out
 * (docs/api.md POST …/messages; the socket's `{type: "send"}` is the same send, taken by the room
 * itself). With a `client_id` the send is idempotent; a gift spends its price first.
 */
export async function sendMessage(
  env: Env,
  me: string,
  conversationId: string,
  input: SendMessageInput,
): Promise<{ message: ChatMessageView; created: boolean }> {
  const gift = input.gift_id ? await activeGift(env, input.gift_id) : null;
  if (input.gift_id && !gift) throw new ValidationError({ gift_id: [GIFT_REQUIRED] });
  return unwrap(
    await conversationRoom(env, conversationId).send({
      conversationId,
      senderId: me,
      text: input.message || (gift ? `${gift.icon} ${gift.name}` : ""),
      clientId: input.client_id ?? null,
      gift,
      limit: readConfig(env).rateLimits.chat_send_account,
      confirm: input.confirm,
    }),
  );
}

/** POST …/read: every message of the conversation is read for `me`. */
export async function markRead(env: Env, me: string, id: string) {
  unwrap(await conversationRoom(env, id).read(id, me));
}

/**
 * Deletes one of the member's own messages: it is gone from every page (its text from the other
 * member's notifications too), the room tells the open sockets, and both members' lists show the
 * newest message that remains. Deleting a message that is already gone changes nothing. A gift's
 * credits stay spent.
 */
export async function deleteMessage(env: Env, me: string, messageId: string) {
  const conversationId = await conversationOfMessage(env, messageId);
  if (!conversationId) throw notFound(MESSAGE_NOT_FOUND);
  const otherId = unwrap(
    await conversationRoom(env, conversationId).deleteMessage(conversationId, me, messageId),
  );
  if (!otherId) return;
  // Its text leaves the other member's notifications too (and so their export).
  await run(
    env.DB,
    sql`UPDATE notifications SET data = json_remove(data, '$.preview')
     WHERE user_id = ${otherId} AND json_extract(data, '$.message_id') = ${messageId}`,
  );
}

/**
 * Sets (`emoji`) or takes back (null) the member's reaction to a message of one of their
 * conversations: one per member and message, live on both sides.
 */
export async function setReaction(env: Env, me: string, messageId: string, emoji: string | null) {
  const conversationId = await conversationOfMessage(env, messageId);
  if (!conversationId) throw notFound(MESSAGE_NOT_FOUND);
  unwrap(await conversationRoom(env, conversationId).react(conversationId, me, messageId, emoji));
}

/**
 * The conversation `me` sends a photo or voice note in: one of theirs, going on, with no block
 * either way, and a match (both members like each other). 404/403 as for messages; 403
 * ATTACHMENTS_NEED_MATCH before a match.
 */
export async function conversationForAttachments(env: Env, me: string, id: string) {
  const ref = await loadConversation(env, me, id);
  if (await isBlockedEitherWay(env, me, ref.otherId)) throw forbidden(CANNOT_MESSAGE);
  if (!(await likeStatus(env, me, ref.otherId)).is_match) throw forbidden(ATTACHMENTS_NEED_MATCH);
  return ref;
}

// ---------------------------------------------------------------------------------------------
// Starting, archiving, gifts

async function conversationOfPair(env: Env, a: string, b: string) {
  const [low, high] = ordered(a, b);
  return firstOf(
    env.DB,
    conversationFields,
    sql`SELECT ${conversationFields.sql} FROM conversations
     WHERE user_low = ${low} AND user_high = ${high} AND ended_at IS NULL`,
  );
}

/**
 * Starts a conversation with a member, or finds the one the two already have (and puts it back in
 * the starter's active list); with a message, sends it. The other member sees the conversation
 * once it has a message.
 */
export async function startConversation(env: Env, me: string, input: StartConversationInput) {
  const other = input.user_id;
  if (other === me) throw new ValidationError({ user_id: ["You cannot message yourself."] });
  // docs/api.md "Chat": messaging across a block is 403 (before visibility, which also hides
  // blocked members).
  if (await isBlockedEitherWay(env, me, other)) throw forbidden(CANNOT_MESSAGE);
  if (!(await canSee(env, me, other))) throw notFound("Member not found.");
  // After an unmatch neither may write to the other until both like each other again.
  if (await unmatched(env, me, other)) throw forbidden(CANNOT_MESSAGE);

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
    const member = (userId: string) =>
      statement(
        env.DB,
        sql`INSERT INTO conversation_members (conversation_id, user_id, last_activity_at)
         SELECT ${id}, ${userId}, ${now} WHERE EXISTS (SELECT 1 FROM conversations WHERE id = ${id})`,
      );
    await env.DB.batch([
      statement(
        env.DB,
        sql`INSERT INTO conversations (id, user_low, user_high, created_by, created_at)
         VALUES (${id}, ${low}, ${high}, ${me}, ${now})
         ON CONFLICT(user_low, user_high) WHERE ended_at IS NULL DO NOTHING`,
      ),
      member(me),
      member(other),
    ]);
    existing = await conversationOfPair(env, me, other);
    if (!existing) throw new Error("The conversation was not stored");
    created = existing.id === id;
  }
  const ref = { id: existing.id, otherId: other, createdAt: existing.created_at };
  await memberHub(env, me).listConversation({
    conversation_id: ref.id,
    other_id: other,
    activity_at: ref.createdAt,
  });
  const message =
    input.message || input.gift_id
      ? (
          await sendMessage(env, me, ref.id, {
            message: input.message,
            client_id: input.client_id,
            gift_id: input.gift_id,
          })
        ).message
      : null;
  return { conversation: await getConversation(env, me, ref), message, created };
}

/** Archiving hides the conversation for `me` only; a new message brings it back. */
export async function setArchived(env: Env, me: string, id: string, archived: boolean) {
  const ref = await loadConversation(env, me, id);
  await memberHub(env, me).setArchived(
    { conversation_id: ref.id, other_id: ref.otherId, activity_at: ref.createdAt },
    archived ? nowIso() : null,
  );
  return { archived };
}

/** GET /chat/gifts: the catalogue, and the member's balance to pay with. */
export async function listGifts(env: Env, me: string) {
  const [gifts, credit] = await Promise.all([giftCatalogue(env), creditBalance(env, me)]);
  return { gifts, user_credits: credit.balance };
}
