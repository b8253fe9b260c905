import type { AttachmentView, CallLine, ChatMessageView } from "~/realtime/chat";
import { UNANSWERED_MESSAGE_LIMIT, type Gift } from "~/schemas/chat";
import type { MessageRow } from "~/server/chat-migration.server";
import type { RoomRules } from "~/server/chat-rules.server";
import type { StoredAttachment, StoredMessage } from "~/server/room-api.server";
import { isSafetyKind } from "~/schemas/message-safety";
import { SAFETY_NOTES } from "~/server/message-safety.server";
import { hasColumn, upgradeStorage, type StorageStep } from "../storage-version";

/**
 * The conversation room's own SQLite storage: its tables and every statement on them. Statements
 * are constant text with `?` parameters (docs/decisions/014-room-and-search-modules.md).
 */

/**
 * The acknowledgement of several messages, by id (`+sender_id` keeps messages_sender_client out:
 * SQLite would otherwise walk every message of the sender and test each against the list).
 */
export const STAMP_DELIVERED_LIST = `UPDATE messages SET delivered_at = ?
  WHERE id IN (SELECT value FROM json_each(?)) AND +sender_id = ? AND delivered_at IS NULL
    AND deleted_at IS NULL
  RETURNING id`;

export const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS messages (
     seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, sender_id TEXT NOT NULL, client_id TEXT,
     message TEXT NOT NULL, gift_id TEXT, gift_name TEXT, gift_icon TEXT, gift_price INTEGER,
     sent_at TEXT NOT NULL, read_at TEXT, deleted_at TEXT)`,
  "CREATE UNIQUE INDEX IF NOT EXISTS messages_sender_client ON messages (sender_id, client_id)",
  // A member's messages are found through messages_sender_client (its first column); those after a
  // position, by sequence (`+sender_id` keeps that index out). One index less to write a message.
  "DROP INDEX IF EXISTS messages_sender_seq",
  // How far each member has read (by sequence).
  `CREATE TABLE IF NOT EXISTS readers (user_id TEXT PRIMARY KEY, last_read_seq INTEGER NOT NULL DEFAULT 0)`,
  // The members' list entries still to tell their hubs: at most one row a member, with the
  // version of its first change since a flush read it; `message_seq` is set once a change was a
  // new message (the flush sends the newest message then, outbox.ts).
  `CREATE TABLE IF NOT EXISTS outbox (user_id TEXT PRIMARY KEY, version INTEGER NOT NULL,
     message_seq INTEGER)`,
  // The conversation's fixed facts (id, members, creation time) and its change counter.
  "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
];

/** The room's storage versions (durable-objects/storage-version.ts); append, never edit. */
const STEPS: readonly StorageStep[] = [
  { why: "messages, readers, the outbox and the conversation's facts", statements: SCHEMA },
  {
    why: "a message's safety kind (message-safety.server.ts)",
    statements: ["ALTER TABLE messages ADD COLUMN safety TEXT"],
    alreadyThere: (sql) => hasColumn(sql, "messages", "safety"),
  },
  {
    why: 'delivery times and reactions (docs/api.md "Chat: reactions, delivery…")',
    statements: [
      "ALTER TABLE messages ADD COLUMN delivered_at TEXT",
      // One reaction per member per message; a message's reactions are read by sequence range.
      `CREATE TABLE IF NOT EXISTS reactions (message_seq INTEGER NOT NULL, user_id TEXT NOT NULL,
         emoji TEXT NOT NULL, reacted_at TEXT NOT NULL, PRIMARY KEY (message_seq, user_id))`,
    ],
    alreadyThere: (sql) => hasColumn(sql, "messages", "delivered_at"),
  },
  {
    why: 'photos, voice notes and calls (docs/api.md "Chat: reactions, delivery, photos, voice, calls")',
    statements: [
      "ALTER TABLE messages ADD COLUMN attachment TEXT",
      // A call's line in the conversation: CallLine as JSON.
      "ALTER TABLE messages ADD COLUMN call TEXT",
      // The calls of the conversation: at most one is not ended (calls.ts).
      `CREATE TABLE IF NOT EXISTS calls (call_id TEXT PRIMARY KEY, caller_id TEXT NOT NULL,
         callee_id TEXT NOT NULL, video INTEGER NOT NULL, state TEXT NOT NULL, rang_at TEXT NOT NULL,
         accepted_at TEXT, ended_at TEXT)`,
    ],
    alreadyThere: (sql) => hasColumn(sql, "messages", "attachment"),
  },
];

/** Where a message's photo or voice note is served (to the two members only). */
export const attachmentUrl = (messageId: string) =>
  `/chat/attachments/${encodeURIComponent(messageId)}`;

/** A JSON column's value, or null (none, or not readable). */
function jsonColumn<T>(text: string | null | undefined): T | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/** A message's stored attachment, or null. */
export const storedAttachment = (row: MessageRow) => jsonColumn<StoredAttachment>(row.attachment);

/** A call's line, as stored and shown. */
const callOf = (row: MessageRow) => jsonColumn<CallLine>(row.call);

/** What the API shows of a stored attachment: never its R2 key; no URL once a view-once is gone. */
function attachmentOf(row: MessageRow): AttachmentView | null {
  const a = storedAttachment(row);
  if (!a) return null;
  const openedAt = a.opened_at ?? null;
  return {
    kind: a.kind,
    url: a.view_once && openedAt ? null : attachmentUrl(row.id),
    content_type: a.content_type,
    size: a.size,
    ...(a.width ? { width: a.width } : {}),
    ...(a.height ? { height: a.height } : {}),
    ...(a.duration_ms ? { duration_ms: a.duration_ms } : {}),
    view_once: a.view_once,
    opened_at: openedAt,
  };
}

/** The conversation's fixed facts, kept in `meta` for the outbox. */
export interface ConversationFacts {
  id: string;
  low: string;
  high: string;
  createdAt: string;
}

/** A member's list entry still to tell their hub. */
export type OutboxRow = {
  user_id: string;
  version: number;
  message_seq: number | null;
};

/** A call as stored (calls.ts). */
export type CallRow = {
  call_id: string;
  caller_id: string;
  callee_id: string;
  video: number;
  state: "ringing" | "active" | "ended";
  rang_at: string;
  accepted_at: string | null;
  ended_at: string | null;
};

/** A reaction as stored. */
export type ReactionRow = { message_seq: number; user_id: string; emoji: string };

/** A message as the API shows it (with its reactions, when the caller read them). */
export function messageView(
  conversationId: string,
  row: MessageRow,
  reactions: ReactionRow[] = [],
): ChatMessageView {
  const call = callOf(row);
  return {
    id: row.id,
    conversation_id: conversationId,
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
    reactions: reactions.map((r) => ({ user_id: r.user_id, emoji: r.emoji })),
    delivered_at: row.delivered_at ?? null,
    attachment: attachmentOf(row),
    ...(call ? { call } : {}),
  };
}

/**
 * A message as its recipient sees it: with the safety note the rules gave it (never shown to its
 * sender, whose views are `messageView`).
 */
export function viewFor(
  conversationId: string,
  row: MessageRow,
  viewer: string,
  reactions: ReactionRow[] = [],
): ChatMessageView {
  const view = messageView(conversationId, row, reactions);
  if (row.safety && row.sender_id !== viewer && isSafetyKind(row.safety)) {
    view.safety = { kind: row.safety, note: SAFETY_NOTES[row.safety] };
  }
  return view;
}

/** A stored message, deleted ones included. */
export const storedMessage = (conversationId: string, row: MessageRow): StoredMessage => ({
  ...messageView(conversationId, row),
  deleted_at: row.deleted_at,
});

/** How far above the versions handed out their stored ceiling is set: a minute of the clock (µs). */
const VERSION_HEADROOM = 60_000_000;

/**
 * What the room reads on every send, kept in memory next to the rows: this object is their only
 * writer, so each write below keeps it right (and `create`, `insertLegacy` and `mergeLastRead`,
 * which change many rows at once, drop it to be read again).
 */
interface Cached {
  lastSeq?: number;
  /** The last version handed out, and the stored ceiling above it (bumpVersion). */
  version?: number;
  versionCeiling?: number;
  facts?: ConversationFacts;
  /** A member's unread messages (from the other member, not deleted, after their read position). */
  unread: Map<string, number>;
  /** Members who have written here (for good: a deleted message keeps its row). */
  wrote: Set<string>;
  /** The newest reaction still there (null: none), for the list entries' preview. */
  lastReaction?: LastReaction | null;
}

/** The newest reaction, as the list entries show it when it came after the newest message. */
export interface LastReaction {
  seq: number;
  user_id: string;
  emoji: string;
  at: string;
}

export class ConversationStorage {
  private cached: Cached = { unread: new Map(), wrote: new Set() };

  constructor(private readonly sql: SqlStorage) {}

  /** Creates the tables, or brings older ones up to date (again, after `deleteAll`). */
  create() {
    upgradeStorage(this.sql, "conversation", STEPS);
    this.cached = { unread: new Map(), wrote: new Set() };
  }

  // Messages

  /**
   * Stores a new message; returns its row as stored, or null if this sender's client id (or the
   * message id) is stored already, when nothing is written.
   */
  insert(m: {
    seq: number;
    id: string;
    senderId: string;
    clientId: string | null;
    text: string;
    gift: Gift | null;
    sentAt: string;
    safety?: string | null;
    attachment?: StoredAttachment | null;
    call?: CallLine | null;
  }): MessageRow | null {
    const attachment = m.attachment ? JSON.stringify(m.attachment) : null;
    const call = m.call ? JSON.stringify(m.call) : null;
    const { rowsWritten } = this.sql.exec(
      `INSERT INTO messages (seq, id, sender_id, client_id, message, gift_id, gift_name, gift_icon,
         gift_price, sent_at, safety, attachment, call) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
      m.seq,
      m.id,
      m.senderId,
      m.clientId,
      m.text,
      m.gift?.id ?? null,
      m.gift?.name ?? null,
      m.gift?.icon ?? null,
      m.gift?.price_credits ?? null,
      m.sentAt,
      m.safety ?? null,
      attachment,
      call,
    );
    if (rowsWritten === 0) return null;
    this.cached.lastSeq = Math.max(this.cached.lastSeq ?? 0, m.seq);
    this.cached.wrote.add(m.senderId);
    // The new message is unread for the other member (whose count, if kept, grows by one).
    for (const [userId, n] of this.cached.unread) {
      if (userId !== m.senderId) this.cached.unread.set(userId, n + 1);
    }
    return {
      seq: m.seq,
      id: m.id,
      sender_id: m.senderId,
      client_id: m.clientId,
      message: m.text,
      gift_id: m.gift?.id ?? null,
      gift_name: m.gift?.name ?? null,
      gift_icon: m.gift?.icon ?? null,
      gift_price: m.gift?.price_credits ?? null,
      sent_at: m.sentAt,
      read_at: null,
      deleted_at: null,
      safety: m.safety ?? null,
      delivered_at: null,
      attachment,
      call,
    };
  }

  /** A message as D1 held it (an id or seq already here is skipped). */
  insertLegacy(m: MessageRow) {
    this.sql.exec(
      `INSERT INTO messages (seq, id, sender_id, client_id, message, gift_id, gift_name,
         gift_icon, gift_price, sent_at, read_at, deleted_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      m.seq,
      m.id,
      m.sender_id,
      m.client_id,
      m.message,
      m.gift_id,
      m.gift_name,
      m.gift_icon,
      m.gift_price,
      m.sent_at,
      m.read_at,
      m.deleted_at,
    );
    this.cached = { ...this.cached, lastSeq: undefined, unread: new Map() };
  }

  row(seq: number): MessageRow | null {
    return (
      this.sql.exec<MessageRow>("SELECT * FROM messages WHERE seq = ?", seq).toArray()[0] ?? null
    );
  }

  byId(messageId: string): MessageRow | null {
    return (
      this.sql.exec<MessageRow>("SELECT * FROM messages WHERE id = ?", messageId).toArray()[0] ??
      null
    );
  }

  byClientId(senderId: string, clientId: string): MessageRow | null {
    return (
      this.sql
        .exec<MessageRow>(
          "SELECT * FROM messages WHERE sender_id = ? AND client_id = ?",
          senderId,
          clientId,
        )
        .toArray()[0] ?? null
    );
  }

  /** Up to `limit` messages after `seq`, not deleted, oldest first. */
  after(seq: number, limit: number): MessageRow[] {
    return this.sql
      .exec<MessageRow>(
        "SELECT * FROM messages WHERE seq > ? AND deleted_at IS NULL ORDER BY seq ASC LIMIT ?",
        seq,
        limit,
      )
      .toArray();
  }

  /** Up to `limit` messages before `seq`, not deleted, newest first. */
  before(seq: number, limit: number): MessageRow[] {
    return this.sql
      .exec<MessageRow>(
        "SELECT * FROM messages WHERE seq < ? AND deleted_at IS NULL ORDER BY seq DESC LIMIT ?",
        seq,
        limit,
      )
      .toArray();
  }

  /** The client ids `senderId` sent with here since `since` (an ISO time). */
  clientIdsSince(senderId: string, since: string): string[] {
    return this.sql
      .exec<{ client_id: string }>(
        "SELECT client_id FROM messages WHERE sender_id = ? AND client_id IS NOT NULL AND sent_at >= ?",
        senderId,
        since,
      )
      .toArray()
      .map((r) => r.client_id);
  }

  sentBy(userId: string): MessageRow[] {
    return this.sql
      .exec<MessageRow>(
        "SELECT * FROM messages WHERE sender_id = ? AND deleted_at IS NULL ORDER BY seq",
        userId,
      )
      .toArray();
  }

  all(): MessageRow[] {
    return this.sql.exec<MessageRow>("SELECT * FROM messages ORDER BY seq").toArray();
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages").one().n;
  }

  /** The newest message that is not deleted. */
  newest(): { message: string; sent_at: string } | undefined {
    return this.sql
      .exec<{ message: string; sent_at: string }>(
        "SELECT message, sent_at FROM messages WHERE deleted_at IS NULL ORDER BY seq DESC LIMIT 1",
      )
      .toArray()[0];
  }

  /**
   * Keeps the row (its sequence number is never given again) without its text or attachment
   * (whose object the caller deletes).
   */
  markDeleted(messageId: string, deletedAt: string) {
    this.sql.exec(
      "UPDATE messages SET message = '', attachment = NULL, deleted_at = ? WHERE id = ?",
      deletedAt,
      messageId,
    );
    this.cached.unread.clear();
  }

  /**
   * Marks a view-once attachment opened, once: true when this call opened it (false when it was
   * opened already).
   */
  markOpened(messageId: string, openedAt: string): boolean {
    return (
      this.sql.exec(
        `UPDATE messages SET attachment = json_set(attachment, '$.opened_at', ?)
         WHERE id = ? AND attachment IS NOT NULL
           AND json_extract(attachment, '$.opened_at') IS NULL`,
        openedAt,
        messageId,
      ).rowsWritten > 0
    );
  }

  /** The R2 keys of every attachment still held here (to erase them with the conversation). */
  attachmentKeys(): string[] {
    return this.sql
      .exec<{ key: string }>(
        `SELECT json_extract(attachment, '$.key') AS key FROM messages
         WHERE attachment IS NOT NULL`,
      )
      .toArray()
      .map((r) => r.key)
      .filter(Boolean);
  }

  /**
   * Which of these R2 keys an attachment held here names (the housekeeping's orphan sweep). One
   * walk over the messages that carry an attachment, whatever the number of keys asked.
   */
  referencedKeys(keys: string[]): string[] {
    if (keys.length === 0) return [];
    return this.sql
      .exec<{ key: string }>(
        `SELECT json_extract(attachment, '$.key') AS key FROM messages
         WHERE attachment IS NOT NULL
           AND json_extract(attachment, '$.key') IN (SELECT value FROM json_each(?))`,
        JSON.stringify(keys),
      )
      .toArray()
      .map((r) => r.key);
  }

  // Calls

  /** The call that is not ended, if any (there is at most one). */
  openCall(): CallRow | null {
    return (
      this.sql.exec<CallRow>("SELECT * FROM calls WHERE state <> 'ended' LIMIT 1").toArray()[0] ??
      null
    );
  }

  call(callId: string): CallRow | null {
    return (
      this.sql.exec<CallRow>("SELECT * FROM calls WHERE call_id = ?", callId).toArray()[0] ?? null
    );
  }

  /** A new call, ringing; false when the id is taken. */
  ring(c: { callId: string; callerId: string; calleeId: string; video: boolean; at: string }) {
    return (
      this.sql.exec(
        `INSERT INTO calls (call_id, caller_id, callee_id, video, state, rang_at)
         VALUES (?, ?, ?, ?, 'ringing', ?) ON CONFLICT DO NOTHING`,
        c.callId,
        c.callerId,
        c.calleeId,
        c.video ? 1 : 0,
        c.at,
      ).rowsWritten > 0
    );
  }

  acceptCall(callId: string, at: string) {
    this.sql.exec(
      "UPDATE calls SET state = 'active', accepted_at = ? WHERE call_id = ? AND state = 'ringing'",
      at,
      callId,
    );
  }

  endCall(callId: string, at: string) {
    this.sql.exec(
      "UPDATE calls SET state = 'ended', ended_at = ? WHERE call_id = ? AND state <> 'ended'",
      at,
      callId,
    );
  }

  lastSeq(): number {
    this.cached.lastSeq ??= this.sql
      .exec<{ n: number }>("SELECT coalesce(max(seq), 0) AS n FROM messages")
      .one().n;
    return this.cached.lastSeq;
  }

  /** Whether the other member has written, and how many messages `me` wrote (up to the limit). */
  history(me: string, other: string) {
    const replied =
      this.cached.wrote.has(other) ||
      this.sql.exec("SELECT 1 FROM messages WHERE sender_id = ? LIMIT 1", other).toArray().length >
        0;
    if (replied) this.cached.wrote.add(other);
    const sentBeforeReply = replied
      ? 0
      : this.sql
          .exec<{ n: number }>(
            "SELECT count(*) AS n FROM (SELECT 1 FROM messages WHERE sender_id = ? LIMIT ?)",
            me,
            UNANSWERED_MESSAGE_LIMIT,
          )
          .one().n;
    return { replied, sentBeforeReply };
  }

  // Read positions

  lastRead(userId: string): number {
    return (
      this.sql
        .exec<{ n: number }>("SELECT last_read_seq AS n FROM readers WHERE user_id = ?", userId)
        .toArray()[0]?.n ?? 0
    );
  }

  /** `userId`'s unread messages: counted once, then kept by the writes (O(1) a send). */
  unreadFor(userId: string, other: string): number {
    let n = this.cached.unread.get(userId);
    if (n === undefined) {
      n = this.sql
        .exec<{ n: number }>(
          "SELECT count(*) AS n FROM messages WHERE seq > ? AND +sender_id = ? AND deleted_at IS NULL",
          this.lastRead(userId),
          other,
        )
        .one().n;
      this.cached.unread.set(userId, n);
    }
    return n;
  }

  /**
   * Stamps `senderId`'s unread messages after `after` read (and delivered, when no device had
   * said so yet: what was read was received); returns how many changed.
   */
  stampRead(senderId: string, after: number, readAt: string): number {
    return this.sql.exec(
      `UPDATE messages SET read_at = ?, delivered_at = coalesce(delivered_at, ?)
       WHERE seq > ? AND +sender_id = ? AND read_at IS NULL`,
      readAt,
      readAt,
      after,
      senderId,
    ).rowsWritten;
  }

  // Delivery

  /**
   * Stamps the messages of `senderId` among `ids` delivered, those not stamped
   * yet; returns their ids. One statement, one write per message, once.
   */
  stampDelivered(senderId: string, ids: string[], at: string): string[] {
    if (ids.length === 1) {
      // The usual acknowledgement: one message, by its unique id.
      const { rowsWritten } = this.sql.exec(
        `UPDATE messages SET delivered_at = ?
         WHERE id = ? AND sender_id = ? AND delivered_at IS NULL AND deleted_at IS NULL`,
        at,
        ids[0],
        senderId,
      );
      return rowsWritten > 0 ? [ids[0]!] : [];
    }
    return this.sql
      .exec<{ id: string }>(STAMP_DELIVERED_LIST, at, JSON.stringify(ids), senderId)
      .toArray()
      .map((r) => r.id);
  }

  /** The same for the messages of `senderId` from `from` to `to` (a page the recipient fetched). */
  stampDeliveredBetween(senderId: string, from: number, to: number, at: string): string[] {
    return this.sql
      .exec<{ id: string }>(
        `UPDATE messages SET delivered_at = ?
         WHERE seq BETWEEN ? AND ? AND +sender_id = ? AND delivered_at IS NULL
           AND deleted_at IS NULL
         RETURNING id`,
        at,
        from,
        to,
        senderId,
      )
      .toArray()
      .map((r) => r.id);
  }

  // Reactions

  /** The reactions on the messages from `from` to `to`, oldest first. */
  reactionsBetween(from: number, to: number): ReactionRow[] {
    return this.sql
      .exec<ReactionRow>(
        `SELECT message_seq, user_id, emoji FROM reactions WHERE message_seq BETWEEN ? AND ?
         ORDER BY reacted_at, user_id`,
        from,
        to,
      )
      .toArray();
  }

  /** The newest reaction still there, kept in `meta` (one read per start of the room). */
  lastReaction(): LastReaction | null {
    if (this.cached.lastReaction === undefined) {
      const value = this.sql
        .exec<{ value: string }>("SELECT value FROM meta WHERE key = 'last_reaction'")
        .toArray()[0]?.value;
      this.cached.lastReaction = value ? (JSON.parse(value) as LastReaction) : null;
    }
    return this.cached.lastReaction;
  }

  private setLastReaction(reaction: LastReaction | null) {
    this.cached.lastReaction = reaction;
    if (reaction) {
      this.sql.exec(
        `INSERT INTO meta (key, value) VALUES ('last_reaction', ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        JSON.stringify(reaction),
      );
    } else {
      this.sql.exec("DELETE FROM meta WHERE key = 'last_reaction'");
    }
  }

  /** The newest reaction was taken back or its message deleted: the one before it, if any. */
  private refreshLastReaction() {
    const row = this.sql
      .exec<{ message_seq: number; user_id: string; emoji: string; reacted_at: string }>(
        `SELECT message_seq, user_id, emoji, reacted_at FROM reactions
         ORDER BY reacted_at DESC LIMIT 1`,
      )
      .toArray()[0];
    this.setLastReaction(
      row
        ? { seq: row.message_seq, user_id: row.user_id, emoji: row.emoji, at: row.reacted_at }
        : null,
    );
  }

  /** Sets `userId`'s reaction to a message (replacing theirs); false when it was that already. */
  react(seq: number, userId: string, emoji: string, at: string): boolean {
    const changed =
      this.sql.exec(
        `INSERT INTO reactions (message_seq, user_id, emoji, reacted_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (message_seq, user_id) DO UPDATE SET emoji = excluded.emoji,
           reacted_at = excluded.reacted_at
         WHERE reactions.emoji <> excluded.emoji`,
        seq,
        userId,
        emoji,
        at,
      ).rowsWritten > 0;
    if (changed) this.setLastReaction({ seq, user_id: userId, emoji, at });
    return changed;
  }

  /** Takes `userId`'s reaction back; false when there was none. */
  unreact(seq: number, userId: string): boolean {
    const changed =
      this.sql.exec("DELETE FROM reactions WHERE message_seq = ? AND user_id = ?", seq, userId)
        .rowsWritten > 0;
    const last = this.lastReaction();
    if (changed && last?.seq === seq && last.user_id === userId) this.refreshLastReaction();
    return changed;
  }

  /** The reactions `userId` gave here, oldest first (account export). */
  reactionsBy(userId: string): { message_id: string; emoji: string; reacted_at: string }[] {
    return this.sql
      .exec<{ message_id: string; emoji: string; reacted_at: string }>(
        `SELECT m.id AS message_id, r.emoji, r.reacted_at FROM reactions r
         JOIN messages m ON m.seq = r.message_seq WHERE r.user_id = ? ORDER BY r.reacted_at`,
        userId,
      )
      .toArray();
  }

  /** A deleted message keeps no reactions. */
  dropReactions(seq: number) {
    const { rowsWritten } = this.sql.exec("DELETE FROM reactions WHERE message_seq = ?", seq);
    if (rowsWritten > 0 && this.lastReaction()?.seq === seq) this.refreshLastReaction();
  }

  setLastRead(userId: string, seq: number) {
    this.sql.exec(
      `INSERT INTO readers (user_id, last_read_seq) VALUES (?, ?)
       ON CONFLICT (user_id) DO UPDATE SET last_read_seq = excluded.last_read_seq`,
      userId,
      seq,
    );
    this.cached.unread.delete(userId);
  }

  /** A read position as D1 held it: the furthest wins. */
  mergeLastRead(userId: string, seq: number) {
    this.sql.exec(
      `INSERT INTO readers (user_id, last_read_seq) VALUES (?, ?)
       ON CONFLICT (user_id) DO UPDATE SET last_read_seq = max(last_read_seq, excluded.last_read_seq)`,
      userId,
      seq,
    );
    this.cached.unread.delete(userId);
  }

  // Outbox

  queue(userId: string, version: number, seq: number | null) {
    this.sql.exec(
      `INSERT INTO outbox (user_id, version, message_seq) VALUES (?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET version = excluded.version,
         message_seq = coalesce(excluded.message_seq, outbox.message_seq)`,
      userId,
      version,
      seq,
    );
  }

  /** Both members' entries at one version, in one statement (a send, a deletion). */
  queuePair(low: string, high: string, version: number, seq: number | null) {
    this.sql.exec(
      `INSERT INTO outbox (user_id, version, message_seq) VALUES (?, ?, ?), (?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET version = excluded.version,
         message_seq = coalesce(excluded.message_seq, outbox.message_seq)`,
      low,
      version,
      seq,
      high,
      version,
      seq,
    );
  }

  queued(): OutboxRow[] {
    return this.sql.exec<OutboxRow>("SELECT * FROM outbox").toArray();
  }

  /** The hub has the entry at `version`: unless a newer one was queued since, it leaves. */
  delivered(userId: string, version: number) {
    this.sql.exec("DELETE FROM outbox WHERE user_id = ? AND version <= ?", userId, version);
  }

  // Meta

  imported(): boolean {
    return this.sql.exec("SELECT 1 FROM meta WHERE key = 'imported'").toArray().length > 0;
  }

  markImported() {
    this.sql.exec(
      "INSERT INTO meta (key, value) VALUES ('imported', '1') ON CONFLICT (key) DO NOTHING",
    );
  }

  facts(): ConversationFacts | null {
    if (this.cached.facts) return this.cached.facts;
    const rows = this.sql
      .exec<{ key: string; value: string }>(
        "SELECT key, value FROM meta WHERE key IN ('id', 'low', 'high', 'created_at')",
      )
      .toArray();
    const get = (key: string) => rows.find((r) => r.key === key)?.value;
    const id = get("id");
    const low = get("low");
    const high = get("high");
    const createdAt = get("created_at");
    if (!id || !low || !high || !createdAt) return null;
    this.cached.facts = { id, low, high, createdAt };
    return this.cached.facts;
  }

  /** Keeps the conversation's fixed facts (the members never change) for the outbox. */
  rememberFacts(conversationId: string, rules: RoomRules) {
    for (const [key, value] of [
      ["id", conversationId],
      ["low", rules.low],
      ["high", rules.high],
      ["created_at", rules.createdAt],
    ]) {
      this.sql.exec(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
        key,
        value,
      );
    }
  }

  /**
   * The next version of the list entries queued: the room's clock in microseconds (or one more
   * than the last version, when changes come faster), so that it grows across restarts without a
   * write per change. What is stored is a ceiling: no version handed out reaches it, and it is
   * raised by VERSION_HEADROOM (a minute of the clock) when a version would. After a restart the
   * versions start above it, so above every version handed out before, whatever this machine's
   * clock says against the last one's (rooms move between machines).
   */
  bumpVersion(): number {
    if (this.cached.version === undefined) {
      this.cached.versionCeiling = Number(
        this.sql
          .exec<{ value: string }>("SELECT value FROM meta WHERE key = 'version'")
          .toArray()[0]?.value ?? 0,
      );
      this.cached.version = this.cached.versionCeiling;
    }
    const version = Math.max(this.cached.version + 1, Date.now() * 1000);
    if (version >= this.cached.versionCeiling!) {
      this.cached.versionCeiling = version + VERSION_HEADROOM;
      this.sql.exec(
        `INSERT INTO meta (key, value) VALUES ('version', ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        String(this.cached.versionCeiling),
      );
    }
    this.cached.version = version;
    return version;
  }
}
