import { DurableObject } from "cloudflare:workers";
import {
  CHAT_CLOSE_FORBIDDEN,
  parseChatClientFrame,
  TYPING_THROTTLE_MS,
  type ChatMessageView,
  type ChatServerFrame,
  type SendFrame,
} from "~/realtime/chat";
import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import {
  MESSAGES_PAGE_SIZE,
  UNANSWERED_MESSAGE_LIMIT,
  sendMessageSchema,
  type Gift,
  type PageMeta,
} from "~/schemas/chat";
import { recordActivity } from "~/server/activities.server";
import {
  accessRefusal,
  CLIENT_ID_REUSED,
  CONVERSATION_NOT_FOUND,
  countSend,
  MESSAGE_NOT_FOUND,
  ONLY_OWN_MESSAGES,
  otherMember,
  sendRefusal,
  type Refusal,
  type RoomResult,
  type RoomRules,
  type SendCounter,
} from "~/server/chat-rules.server";
import {
  indexLegacyMessages,
  LEGACY_PAGE,
  legacyMemberStates,
  legacyMessages,
  type MessageRow,
} from "~/server/chat-migration.server";
import { memberHub } from "~/server/member-hub.server";
import { claimClientId, applyToMemberList, type ListUpdate } from "~/server/chat-lists.server";
import { INSUFFICIENT_CREDITS_MESSAGE } from "~/server/credits.server";
import { newId } from "~/server/crypto.server";
import { nowIso } from "~/server/db.server";
import type { Env } from "~/server/env.server";
import { HttpError } from "~/server/errors.server";
import {
  activeGift,
  GIFT_REQUIRED,
  giftMessageId,
  refundGift,
  spendForGift,
} from "~/server/gifts.server";
import { notify } from "~/server/notifications.server";
import type { RateLimitSpec } from "~/server/rate-limit.server";
import { readConfig } from "~/server/env.server";
import { parseInput } from "~/server/validation.server";

interface Attachment {
  userId: string;
  conversationId: string;
  /** The send limit of the Worker that accepted the socket (its configuration, API.md). */
  limit?: RateLimitSpec;
}

type MessageFrame = Extract<ChatServerFrame, { type: "message" }>;

/** How long a message waits for an earlier one that is still on its way before it goes anyway. */
export const REORDER_HOLD_MS = 250;
/** How soon a list update that failed to reach a member's hub is tried again. */
const OUTBOX_RETRY_MS = 2_000;

export interface SendRequest {
  conversationId: string;
  senderId: string;
  text: string;
  clientId: string | null;
  gift: Gift | null;
  limit: RateLimitSpec;
}

export interface StoredMessage extends ChatMessageView {
  deleted_at: string | null;
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS messages (
     seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, sender_id TEXT NOT NULL, client_id TEXT,
     message TEXT NOT NULL, gift_id TEXT, gift_name TEXT, gift_icon TEXT, gift_price INTEGER,
     sent_at TEXT NOT NULL, read_at TEXT, deleted_at TEXT)`,
  "CREATE UNIQUE INDEX IF NOT EXISTS messages_sender_client ON messages (sender_id, client_id)",
  "CREATE INDEX IF NOT EXISTS messages_sender_seq ON messages (sender_id, seq)",
  // How far each member has read (by sequence).
  `CREATE TABLE IF NOT EXISTS readers (user_id TEXT PRIMARY KEY, last_read_seq INTEGER NOT NULL DEFAULT 0)`,
  // The members' list entries still to tell their hubs: at most one row a member, the newest.
  `CREATE TABLE IF NOT EXISTS outbox (user_id TEXT PRIMARY KEY, version INTEGER NOT NULL,
     message_seq INTEGER)`,
  // The conversation's fixed facts (id, members, creation time) and its change counter.
  "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
];

/**
 * One room per conversation, addressed by the conversation id: the home of its messages
 * (docs/decisions/012-chat-in-rooms.md). It stores and orders them in its own SQLite storage
 * (`seq` given by this one writer), makes a send idempotent by client id, keeps deletions (the row
 * without its text) and read receipts, serves the pages of GET …/messages, and fans every change
 * out to the hibernating sockets of its two members (tagged with the member id). After each change
 * it tells both members' hubs their list entry (an outbox in this storage, retried by alarm).
 *
 * The rules of a send need no database round trip: the members are fixed when the conversation is
 * created; blocks and suspensions are pushed here when they happen and read from D1 once when the
 * room starts; the unanswered-messages rule is counted from the stored messages and the rate limit
 * in memory. A gift's spend is one D1 batch before the message is stored.
 *
 * Durability: every write is synchronous SQLite in this object; its output gate holds the reply to
 * the sender and every socket frame until the write is durable, so nothing acknowledged or seen is
 * ever lost by a crash.
 */
export class ConversationRoom extends DurableObject<Env> {
  private nextSeq: number | null = null;
  private held = new Map<number, { frame: MessageFrame; done: (members: string[]) => void }>();
  private holdTimer: ReturnType<typeof setTimeout> | null = null;
  private lastTyping = new Map<string, number>();
  private rules: RoomRules | null = null;
  private rulesLoading: Promise<RoomRules | null> | null = null;
  /** Bumped by every pushed rule change: a load from D1 that started before it is not used. */
  private rulesGeneration = 0;
  private counters = new Map<string, SendCounter>();
  private flushing: Promise<void> | null = null;
  private flushAgain: Promise<void> | null = null;
  private importing: Promise<void> | null = null;
  private alarmSet = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ctx.setWebSocketAutoResponse(
      new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'),
    );
    for (const statement of SCHEMA) this.ctx.storage.sql.exec(statement);
  }

  // -------------------------------------------------------------------------------------------
  // Sockets

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("Expected a websocket upgrade", { status: 426 });
    }
    const userId = request.headers.get("X-Member-Id");
    const conversationId = request.headers.get("X-Conversation-Id");
    if (!userId || !conversationId) return new Response("Missing member", { status: 400 });
    const limit = parseLimit(request.headers.get("X-Send-Limit"));
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1], [userId]);
    pair[1].serializeAttachment({ userId, conversationId, limit } satisfies Attachment);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /**
   * Sends a frame to every open socket of the conversation (the sender's own included). A message
   * frame goes out in sequence order (a later one waits at most REORDER_HOLD_MS for an earlier
   * one); other frames go out at once. Returns the members who had a socket open to receive it.
   */
  async publish(frame: ChatServerFrame): Promise<string[]> {
    if (frame.type !== "message") return this.fanOut(frame);
    const seq = frame.message.seq;
    if (this.nextSeq === null || seq <= this.nextSeq) {
      const delivered = this.fanOut(frame);
      if (this.nextSeq === null || seq === this.nextSeq) this.nextSeq = seq + 1;
      this.releaseInOrder();
      return delivered;
    }
    return new Promise<string[]>((resolve) => {
      this.held.set(seq, { frame, done: resolve });
      this.holdTimer ??= setTimeout(() => this.releaseAll(), REORDER_HOLD_MS);
    });
  }

  /** Closes one member's sockets (their sessions ended); they may reconnect if still signed in. */
  async closeMember(userId: string): Promise<number> {
    return this.closeSockets(this.ctx.getWebSockets(userId), SESSION_ENDED_CLOSE, "Signed out.");
  }

  /** Closes every socket: the conversation may no longer be used; clients must not reconnect. */
  async closeAll(reason = "This conversation is no longer available."): Promise<number> {
    return this.closeSockets(this.ctx.getWebSockets(), CHAT_CLOSE_FORBIDDEN, reason);
  }

  async connectionCount(): Promise<number> {
    return this.ctx.getWebSockets().length;
  }

  override async webSocketMessage(socket: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    const frame = parseChatClientFrame(typeof raw === "string" ? raw : null);
    const attachment = socket.deserializeAttachment() as Attachment | null;
    if (!frame || !attachment) return;
    if (frame.type === "send") return this.sendFromSocket(socket, attachment, frame);
    if (frame.type === "read") {
      await this.read(attachment.conversationId, attachment.userId);
      return;
    }
    if (frame.type !== "typing") return;
    const now = Date.now();
    const last = this.lastTyping.get(attachment.userId) ?? 0;
    if (now - last < TYPING_THROTTLE_MS) return;
    this.lastTyping.set(attachment.userId, now);
    // Typing is for the other member only, and never stored.
    this.fanOut({ type: "typing", user_id: attachment.userId }, attachment.userId);
  }

  override async webSocketClose(socket: WebSocket): Promise<void> {
    // Never echo 1005/1006 back (it throws): close normally.
    try {
      socket.close(1000, "closing");
    } catch {
      // Already closed.
    }
  }

  override async webSocketError(socket: WebSocket): Promise<void> {
    await this.webSocketClose(socket);
  }

  // -------------------------------------------------------------------------------------------
  // Rules: fixed members, pushed blocks and suspensions, D1 once when the room starts

  /** The conversation's rules; null when it does not exist (any more). */
  private async loadRules(conversationId: string): Promise<RoomRules | null> {
    if (this.rules) return this.rules;
    // Before its first use, the room takes over the messages D1 held for it.
    if (!this.imported()) await this.importLegacy(conversationId);
    for (;;) {
      const generation = this.rulesGeneration;
      this.rulesLoading ??= this.readRules(conversationId);
      const loading = this.rulesLoading;
      const rules = await loading;
      if (this.rulesLoading === loading) this.rulesLoading = null;
      if (generation !== this.rulesGeneration) continue;
      if (rules) {
        this.rules = rules;
        this.rememberFacts(conversationId, rules);
      }
      return rules;
    }
  }

  private async readRules(conversationId: string): Promise<RoomRules | null> {
    const row = await this.env.DB.prepare(
      `SELECT c.user_low, c.user_high, c.created_at,
         EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = c.user_low AND b.blocked_id = c.user_high)
           OR (b.blocker_id = c.user_high AND b.blocked_id = c.user_low)) AS blocked,
         (SELECT status FROM users WHERE id = c.user_low) AS low_status,
         (SELECT status FROM users WHERE id = c.user_high) AS high_status
       FROM conversations c WHERE c.id = ?1`,
    )
      .bind(conversationId)
      .first<{
        user_low: string;
        user_high: string;
        created_at: string;
        blocked: number;
        low_status: string | null;
        high_status: string | null;
      }>();
    if (!row) return null;
    return {
      low: row.user_low,
      high: row.user_high,
      createdAt: row.created_at,
      blocked: row.blocked === 1,
      inactive: [
        ...(row.low_status === "active" ? [] : [row.user_low]),
        ...(row.high_status === "active" ? [] : [row.user_high]),
      ],
    };
  }

  /** One member blocked the other, or the last block between them went: pushed by blocks. */
  async setBlocked(conversationId: string, blocked: boolean): Promise<void> {
    this.rulesGeneration += 1;
    if (this.rules) this.rules = { ...this.rules, blocked };
    if (blocked) await this.closeAll();
    await this.loadRules(conversationId);
    this.queueBoth(null);
    await this.flushSoon();
  }

  /** A member was suspended (or is active again): pushed by moderation. */
  async setMemberActive(conversationId: string, userId: string, active: boolean): Promise<void> {
    this.rulesGeneration += 1;
    if (this.rules) {
      const inactive = this.rules.inactive.filter((id) => id !== userId);
      this.rules = { ...this.rules, inactive: active ? inactive : [...inactive, userId] };
    }
    if (!active) await this.closeAll();
    await this.loadRules(conversationId);
    this.queueBoth(null);
    await this.flushSoon();
  }

  // -------------------------------------------------------------------------------------------
  // Sending

  /**
   * Stores a message and fans it out. With a client id the send is idempotent: the same client id
   * again answers the stored message (`created: false`) and stores nothing; a client id the sender
   * used in another conversation is refused (409). A gift's price is spent first (one D1 batch
   * referenced by the message id, which a retry with the same client id finds rather than spends
   * again); a gift refused after its spend is refunded.
   */
  async send(
    req: SendRequest,
  ): Promise<RoomResult<{ message: ChatMessageView; created: boolean }>> {
    const rules = await this.loadRules(req.conversationId);
    if (!rules) return refused(404, CONVERSATION_NOT_FOUND);
    const me = req.senderId;
    const replay = () =>
      req.clientId ? this.byClientId(req.conversationId, me, req.clientId) : null;
    const check = () => {
      const again = replay();
      if (again) return { again };
      const refusal = sendRefusal(
        this.rules ?? rules,
        me,
        this.history(me, otherMember(rules, me)),
        req.limit,
        this.counters.get(me),
        Date.now(),
      );
      return { refusal };
    };

    const first = check();
    if (first.again) return { ok: true, value: { message: first.again, created: false } };
    if (first.refusal) return { ok: false, refusal: first.refusal };

    if (req.clientId) {
      const owner = await claimClientId(this.env, me, req.clientId, req.conversationId);
      if (owner !== req.conversationId) return refused(409, CLIENT_ID_REUSED);
    }

    const sentAt = nowIso();
    let id = `${req.conversationId}.${newId()}`;
    if (req.gift) {
      if (req.clientId) id = await giftMessageId(req.conversationId, me, req.clientId);
      const spent = replay()
        ? "found"
        : await spendForGift(this.env, {
            messageId: id,
            conversationId: req.conversationId,
            senderId: me,
            recipientId: otherMember(rules, me),
            gift: req.gift,
            sentAt,
          });
      if (spent === "short") return refused(402, INSUFFICIENT_CREDITS_MESSAGE);
      if (spent === "refunded") return refused(409, CLIENT_ID_REUSED);
    }

    // From here on nothing awaits until the message is stored: the rules are checked again as
    // they are now (a block pushed while the spend was on its way wins).
    const second = check();
    if (second.again) return { ok: true, value: { message: second.again, created: false } };
    if (second.refusal) {
      if (req.gift) await refundGift(this.env, { messageId: id, senderId: me, gift: req.gift });
      return { ok: false, refusal: second.refusal };
    }
    const now = Date.now();
    this.counters.set(me, countSend(req.limit, this.counters.get(me), now));
    const seq = this.lastSeq() + 1;
    this.ctx.storage.sql.exec(
      `INSERT INTO messages (seq, id, sender_id, client_id, message, gift_id, gift_name, gift_icon,
         gift_price, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      seq,
      id,
      me,
      req.clientId,
      req.text,
      req.gift?.id ?? null,
      req.gift?.name ?? null,
      req.gift?.icon ?? null,
      req.gift?.price_credits ?? null,
      sentAt,
    );
    this.queueBoth(seq);
    const message = this.view(req.conversationId, this.row(seq)!);
    const watching = this.publish({ type: "message", message });
    this.ctx.waitUntil(this.afterSend(rules, message, watching));
    // The sender's next read of the lists shows the message: answer once the hubs have it.
    await this.flushSoon();
    return { ok: true, value: { message, created: true } };
  }

  /** A message sent over the socket: the same send as POST …/messages. */
  private async sendFromSocket(socket: WebSocket, a: Attachment, frame: SendFrame): Promise<void> {
    let refusal: Refusal;
    try {
      const input = parseInput(sendMessageSchema, {
        message: frame.message,
        client_id: frame.client_id,
        gift_id: frame.gift_id,
      });
      const gift = input.gift_id ? await activeGift(this.env, input.gift_id) : null;
      if (input.gift_id && !gift) {
        refusal = { status: 422, message: GIFT_REQUIRED };
      } else {
        const result = await this.send({
          conversationId: a.conversationId,
          senderId: a.userId,
          text: input.message || (gift ? `${gift.icon} ${gift.name}` : ""),
          clientId: input.client_id ?? null,
          gift,
          limit: a.limit ?? readConfig(this.env).rateLimits.chat_send_account,
        });
        if (result.ok) {
          // The same client id again: only the sender needs the stored message back.
          if (!result.value.created)
            this.reply(socket, { type: "message", message: result.value.message });
          return;
        }
        refusal = result.refusal;
      }
    } catch (error) {
      if (!(error instanceof HttpError)) {
        console.error(
          JSON.stringify({
            level: "error",
            event: "chat_socket_send_failed",
            error: String(error),
          }),
        );
      }
      refusal =
        error instanceof HttpError
          ? { status: error.status, message: error.message }
          : { status: 500, message: "Server Error" };
    }
    this.reply(socket, {
      type: "send_error",
      client_id: frame.client_id,
      status: refusal.status,
      message: refusal.message,
      retry_after: refusal.retryAfter ?? null,
    });
  }

  /** What follows a stored message: a notification for the recipient, activities for a gift. */
  private async afterSend(rules: RoomRules, message: ChatMessageView, watching: Promise<string[]>) {
    const recipient = otherMember(rules, message.sender_id);
    try {
      const open = (await watching).includes(recipient);
      // Every gift, and the first unread message of a streak unless the recipient is looking.
      if (message.gift || (this.unreadFor(recipient, message.sender_id) === 1 && !open)) {
        await notify(this.env, {
          to: recipient,
          type: message.gift ? "gift" : "message",
          actorId: message.sender_id,
          data: {
            conversation_id: message.conversation_id,
            message_id: message.id,
            preview: message.message.slice(0, 140),
            ...(message.gift ? { gift: message.gift } : {}),
          },
        });
      }
      if (message.gift) {
        const data = { conversation_id: message.conversation_id, gift: message.gift };
        await recordActivity(
          this.env,
          { userId: message.sender_id, type: "gift_sent", otherUserId: recipient, data },
          { userId: recipient, type: "gift_received", otherUserId: message.sender_id, data },
        );
      }
    } catch (error) {
      console.error(
        JSON.stringify({ level: "error", event: "chat_after_send_failed", error: String(error) }),
      );
    }
  }

  // -------------------------------------------------------------------------------------------
  // Reading, receipts, deletion

  /**
   * A page of messages, oldest first (API.md): without `cursor` or `after` the newest page, which
   * marks the conversation read for `me`; `cursor` the page before it; `after` the messages after
   * that sequence number (catch-up), `next_cursor` being the `after` of the next page.
   */
  async page(
    conversationId: string,
    me: string,
    { cursor, after }: { cursor?: number; after?: number },
  ): Promise<RoomResult<{ messages: ChatMessageView[]; meta: PageMeta }>> {
    const rules = await this.loadRules(conversationId);
    if (!rules) return refused(404, CONVERSATION_NOT_FOUND);
    const refusal = accessRefusal(rules, me);
    if (refusal) return { ok: false, refusal };
    const limit = MESSAGES_PAGE_SIZE + 1;
    const sql = this.ctx.storage.sql;
    if (after !== undefined) {
      const rows = sql
        .exec<MessageRow>(
          "SELECT * FROM messages WHERE seq > ? AND deleted_at IS NULL ORDER BY seq ASC LIMIT ?",
          after,
          limit,
        )
        .toArray();
      const page = rows.slice(0, MESSAGES_PAGE_SIZE);
      const hasMore = rows.length > MESSAGES_PAGE_SIZE;
      return {
        ok: true,
        value: {
          messages: page.map((r) => this.view(conversationId, r)),
          meta: { has_more: hasMore, next_cursor: hasMore ? String(page.at(-1)!.seq) : null },
        },
      };
    }
    if (cursor === undefined && this.markRead(conversationId, rules, me)) await this.flushSoon();
    const rows = sql
      .exec<MessageRow>(
        "SELECT * FROM messages WHERE seq < ? AND deleted_at IS NULL ORDER BY seq DESC LIMIT ?",
        cursor ?? Number.MAX_SAFE_INTEGER,
        limit,
      )
      .toArray();
    const page = rows.slice(0, MESSAGES_PAGE_SIZE).reverse();
    const hasMore = rows.length > MESSAGES_PAGE_SIZE;
    return {
      ok: true,
      value: {
        messages: page.map((r) => this.view(conversationId, r)),
        meta: { has_more: hasMore, next_cursor: hasMore ? String(page[0]!.seq) : null },
      },
    };
  }

  /** POST …/read, or `{type: "read"}` over the socket. */
  async read(conversationId: string, me: string): Promise<RoomResult<null>> {
    const rules = await this.loadRules(conversationId);
    if (!rules) return refused(404, CONVERSATION_NOT_FOUND);
    const refusal = accessRefusal(rules, me);
    if (refusal) return { ok: false, refusal };
    if (this.markRead(conversationId, rules, me)) await this.flushSoon();
    return { ok: true, value: null };
  }

  /**
   * Marks every message read for `me`: the other member's unread messages get `read_at`, the open
   * sockets hear of it (the sender sees the read ticks), and `me`'s list entry clears its count.
   * Nothing is published when there was nothing new to read. Returns whether anything changed.
   */
  private markRead(conversationId: string, rules: RoomRules, me: string): boolean {
    const sql = this.ctx.storage.sql;
    const last = this.lastSeq();
    const readUpTo = this.lastRead(me);
    if (readUpTo >= last) return false;
    const readAt = nowIso();
    const changed = sql.exec(
      `UPDATE messages SET read_at = ? WHERE sender_id = ? AND read_at IS NULL AND seq > ?`,
      readAt,
      otherMember(rules, me),
      readUpTo,
    ).rowsWritten;
    sql.exec(
      `INSERT INTO readers (user_id, last_read_seq) VALUES (?, ?)
       ON CONFLICT (user_id) DO UPDATE SET last_read_seq = excluded.last_read_seq`,
      me,
      last,
    );
    this.queue(me, null);
    if (changed > 0) {
      void this.publish({
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
  async deleteMessage(
    conversationId: string,
    me: string,
    messageId: string,
  ): Promise<RoomResult<string | null>> {
    const rules = await this.loadRules(conversationId);
    const row = this.ctx.storage.sql
      .exec<MessageRow>("SELECT * FROM messages WHERE id = ?", messageId)
      .toArray()[0];
    if (!rules || !row || (rules.low !== me && rules.high !== me)) {
      return refused(404, MESSAGE_NOT_FOUND);
    }
    if (row.sender_id !== me) return refused(403, ONLY_OWN_MESSAGES);
    if (row.deleted_at) return { ok: true, value: null };
    this.ctx.storage.sql.exec(
      "UPDATE messages SET message = '', deleted_at = ? WHERE id = ?",
      nowIso(),
      messageId,
    );
    this.queueBoth(null);
    void this.publish({ type: "message_deleted", id: messageId, conversation_id: conversationId });
    await this.flushSoon();
    return { ok: true, value: otherMember(rules, me) };
  }

  /** One message as stored (reports copy the text of the message they point at). */
  async findMessage(conversationId: string, messageId: string): Promise<StoredMessage | null> {
    const row = this.ctx.storage.sql
      .exec<MessageRow>("SELECT * FROM messages WHERE id = ?", messageId)
      .toArray()[0];
    return row ? { ...this.view(conversationId, row), deleted_at: row.deleted_at } : null;
  }

  /** The messages `userId` sent here that are not deleted, oldest first (account export). */
  async sentBy(conversationId: string, userId: string): Promise<ChatMessageView[]> {
    return this.ctx.storage.sql
      .exec<MessageRow>(
        "SELECT * FROM messages WHERE sender_id = ? AND deleted_at IS NULL ORDER BY seq",
        userId,
      )
      .toArray()
      .map((r) => this.view(conversationId, r));
  }

  /** Every message, deleted ones included (the migration's comparison, moderation tools). */
  async allMessages(conversationId: string): Promise<StoredMessage[]> {
    return this.ctx.storage.sql
      .exec<MessageRow>("SELECT * FROM messages ORDER BY seq")
      .toArray()
      .map((r) => ({ ...this.view(conversationId, r), deleted_at: r.deleted_at }));
  }

  /** The conversation is gone (a member deleted their account): everything here goes too. */
  async erase(): Promise<void> {
    await this.closeAll();
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    for (const statement of SCHEMA) this.ctx.storage.sql.exec(statement);
    this.rules = null;
    this.rulesGeneration += 1;
    this.counters.clear();
  }

  /**
   * Moves the conversation's messages stored in D1 before the rooms held them into this room
   * (docs/decisions/012-chat-in-rooms.md "Migration"): the messages as they were (an id or seq
   * already here is skipped, so a rerun changes nothing), each member's read position (the
   * furthest wins) and list state, and D1's index of where they now live. Runs by itself before
   * the room's first use; the migration step calls it for every conversation. Returns how many
   * messages the room holds.
   */
  async importLegacy(conversationId: string): Promise<number> {
    this.importing ??= this.runImport(conversationId).finally(() => {
      this.importing = null;
    });
    await this.importing;
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages").one().n;
  }

  private async runImport(conversationId: string): Promise<void> {
    const rules = await this.readRules(conversationId);
    if (!rules) return;
    this.rememberFacts(conversationId, rules);
    const sql = this.ctx.storage.sql;
    const states = await legacyMemberStates(this.env, conversationId);
    let moved = 0;
    for (let after = 0; ;) {
      const page = await legacyMessages(this.env, conversationId, after);
      if (!page || page.length === 0) break;
      this.ctx.storage.transactionSync(() => {
        for (const m of page) {
          sql.exec(
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
        }
      });
      moved += page.length;
      after = page.at(-1)!.seq;
      if (page.length < LEGACY_PAGE) break;
    }
    if (states) {
      for (const state of states) {
        sql.exec(
          `INSERT INTO readers (user_id, last_read_seq) VALUES (?, ?)
           ON CONFLICT (user_id) DO UPDATE SET last_read_seq = max(last_read_seq, excluded.last_read_seq)`,
          state.user_id,
          state.last_read_seq,
        );
      }
      if (moved > 0) await indexLegacyMessages(this.env, conversationId);
      // The members' own list state first; the room's entries then fill in the rest.
      await Promise.all(
        states.map((state) =>
          memberHub(this.env, state.user_id).importListState(
            {
              conversation_id: conversationId,
              other_id: otherMember(rules, state.user_id),
              activity_at: rules.createdAt,
            },
            state.listed === 1,
            state.archived_at,
          ),
        ),
      );
    }
    sql.exec("INSERT INTO meta (key, value) VALUES ('imported', '1') ON CONFLICT (key) DO NOTHING");
    if (states) {
      this.queueBoth(null);
      await this.flushSoon();
    }
  }

  // -------------------------------------------------------------------------------------------
  // Members' lists: an outbox here, flushed to their hubs (retried by alarm until it lands)

  /** Queues both members' list entries (the sender's too); `seq` is the new message, if any. */
  private queueBoth(seq: number | null) {
    const facts = this.facts();
    if (!facts) return;
    this.queue(facts.low, seq);
    this.queue(facts.high, seq);
  }

  /** Queues one member's list entry (the alarm retries it if no flush lands it first). */
  private queue(userId: string, seq: number | null) {
    const sql = this.ctx.storage.sql;
    if (!this.alarmSet) {
      this.alarmSet = true;
      void this.ctx.storage.setAlarm(Date.now() + OUTBOX_RETRY_MS);
    }
    const version = this.bumpVersion();
    sql.exec(
      `INSERT INTO outbox (user_id, version, message_seq) VALUES (?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET version = excluded.version,
         message_seq = coalesce(excluded.message_seq, outbox.message_seq)`,
      userId,
      version,
      seq,
    );
  }

  /**
   * Flushes the outbox to the hubs; resolves once a flush that started after this call ended
   * (whether or not every hub was reached: what failed waits for the alarm).
   */
  private flushSoon(): Promise<void> {
    if (this.flushing) {
      this.flushAgain ??= this.flushing.then(() => {
        this.flushAgain = null;
        return this.flushSoon();
      });
      return this.flushAgain;
    }
    this.flushing = this.flush()
      .catch((error: unknown) => {
        console.error(
          JSON.stringify({ level: "error", event: "chat_outbox_failed", error: String(error) }),
        );
      })
      .finally(() => {
        this.flushing = null;
      });
    this.ctx.waitUntil(this.flushing);
    return this.flushing;
  }

  /** Sends each queued list entry, as it is now, to its member's hub. */
  private async flush(): Promise<void> {
    const sql = this.ctx.storage.sql;
    const queued = sql
      .exec<{ user_id: string; version: number; message_seq: number | null }>(
        "SELECT * FROM outbox",
      )
      .toArray();
    if (queued.length === 0) return;
    const facts = this.facts();
    if (!facts) return;
    const rules = this.rules ?? (await this.loadRules(facts.id));
    let failed = false;
    await Promise.all(
      queued.map(async (q) => {
        const update = this.listEntry(facts, rules, q.user_id, q.version, q.message_seq);
        try {
          await applyToMemberList(this.env, q.user_id, update);
          sql.exec("DELETE FROM outbox WHERE user_id = ? AND version = ?", q.user_id, q.version);
        } catch (error) {
          failed = true;
          console.error(
            JSON.stringify({
              level: "error",
              event: "chat_list_update_failed",
              error: String(error),
            }),
          );
        }
      }),
    );
    if (failed) {
      this.alarmSet = true;
      await this.ctx.storage.setAlarm(Date.now() + OUTBOX_RETRY_MS);
    }
  }

  override async alarm(): Promise<void> {
    this.alarmSet = false;
    await this.flushSoon();
  }

  /** Member `userId`'s entry for this conversation as it is now. */
  private listEntry(
    facts: ConversationFacts,
    rules: RoomRules | null,
    userId: string,
    version: number,
    messageSeq: number | null,
  ): ListUpdate {
    const other = otherMember(facts, userId);
    const last = this.ctx.storage.sql
      .exec<{ message: string; sent_at: string }>(
        "SELECT message, sent_at FROM messages WHERE deleted_at IS NULL ORDER BY seq DESC LIMIT 1",
      )
      .toArray()[0];
    const message = messageSeq === null ? null : this.row(messageSeq);
    return {
      conversation_id: facts.id,
      other_id: other,
      version,
      last_message: last?.message ?? null,
      last_message_time: last?.sent_at ?? null,
      activity_at: last?.sent_at ?? facts.createdAt,
      unread_count: this.unreadFor(userId, other),
      hidden: !rules || rules.blocked || rules.inactive.includes(other),
      message:
        message && !message.deleted_at
          ? {
              id: message.id,
              sender_id: message.sender_id,
              message: message.message,
              sent_at: message.sent_at,
            }
          : null,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Storage helpers

  private imported(): boolean {
    return (
      this.ctx.storage.sql.exec("SELECT 1 FROM meta WHERE key = 'imported'").toArray().length > 0
    );
  }

  private facts(): ConversationFacts | null {
    const rows = this.ctx.storage.sql
      .exec<{ key: string; value: string }>(
        "SELECT key, value FROM meta WHERE key IN ('id', 'low', 'high', 'created_at')",
      )
      .toArray();
    const get = (key: string) => rows.find((r) => r.key === key)?.value;
    const id = get("id");
    const low = get("low");
    const high = get("high");
    const createdAt = get("created_at");
    return id && low && high && createdAt ? { id, low, high, createdAt } : null;
  }

  /** Keeps the conversation's fixed facts (the members never change) for the outbox. */
  private rememberFacts(conversationId: string, rules: RoomRules) {
    const sql = this.ctx.storage.sql;
    for (const [key, value] of [
      ["id", conversationId],
      ["low", rules.low],
      ["high", rules.high],
      ["created_at", rules.createdAt],
    ]) {
      sql.exec(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
        key,
        value,
      );
    }
  }

  private bumpVersion(): number {
    const sql = this.ctx.storage.sql;
    sql.exec(
      `INSERT INTO meta (key, value) VALUES ('version', '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`,
    );
    return Number(
      sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'version'").one().value,
    );
  }

  private lastSeq(): number {
    return this.ctx.storage.sql
      .exec<{ n: number }>("SELECT coalesce(max(seq), 0) AS n FROM messages")
      .one().n;
  }

  private lastRead(userId: string): number {
    return (
      this.ctx.storage.sql
        .exec<{ n: number }>("SELECT last_read_seq AS n FROM readers WHERE user_id = ?", userId)
        .toArray()[0]?.n ?? 0
    );
  }

  private unreadFor(userId: string, other: string): number {
    return this.ctx.storage.sql
      .exec<{ n: number }>(
        "SELECT count(*) AS n FROM messages WHERE sender_id = ? AND deleted_at IS NULL AND seq > ?",
        other,
        this.lastRead(userId),
      )
      .one().n;
  }

  /** Whether the other member has written, and how many messages `me` wrote (up to the limit). */
  private history(me: string, other: string) {
    const sql = this.ctx.storage.sql;
    const replied =
      sql.exec("SELECT 1 FROM messages WHERE sender_id = ? LIMIT 1", other).toArray().length > 0;
    const sentBeforeReply = replied
      ? 0
      : sql
          .exec<{ n: number }>(
            "SELECT count(*) AS n FROM (SELECT 1 FROM messages WHERE sender_id = ? LIMIT ?)",
            me,
            UNANSWERED_MESSAGE_LIMIT,
          )
          .one().n;
    return { replied, sentBeforeReply };
  }

  private row(seq: number): MessageRow | null {
    return (
      this.ctx.storage.sql
        .exec<MessageRow>("SELECT * FROM messages WHERE seq = ?", seq)
        .toArray()[0] ?? null
    );
  }

  private byClientId(conversationId: string, me: string, clientId: string): ChatMessageView | null {
    const row = this.ctx.storage.sql
      .exec<MessageRow>(
        "SELECT * FROM messages WHERE sender_id = ? AND client_id = ?",
        me,
        clientId,
      )
      .toArray()[0];
    return row ? this.view(conversationId, row) : null;
  }

  private view(conversationId: string, row: MessageRow): ChatMessageView {
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
    };
  }

  // -------------------------------------------------------------------------------------------
  // Fan-out

  private closeSockets(sockets: WebSocket[], code: number, reason: string): number {
    for (const socket of sockets) {
      try {
        socket.close(code, reason);
      } catch {
        // Already closed.
      }
    }
    return sockets.length;
  }

  private reply(socket: WebSocket, frame: ChatServerFrame) {
    try {
      socket.send(JSON.stringify(frame));
    } catch {
      // The socket closed meanwhile; the client retries over HTTP with the same client id.
    }
  }

  /** Sends a frame to every socket (but those of `exceptUserId`); returns who received it. */
  private fanOut(frame: ChatServerFrame, exceptUserId?: string): string[] {
    const text = JSON.stringify(frame);
    const members = new Set<string>();
    for (const socket of this.ctx.getWebSockets()) {
      const a = socket.deserializeAttachment() as Attachment | null;
      if (exceptUserId && a?.userId === exceptUserId) continue;
      try {
        socket.send(text);
        if (a) members.add(a.userId);
      } catch {
        // A socket closing while we send: its close handler tidies up.
      }
    }
    return [...members];
  }

  /** Sends held messages that are now next in sequence. */
  private releaseInOrder() {
    while (this.nextSeq !== null && this.held.has(this.nextSeq)) {
      const entry = this.held.get(this.nextSeq)!;
      this.held.delete(this.nextSeq);
      entry.done(this.fanOut(entry.frame));
      this.nextSeq += 1;
    }
    if (this.held.size === 0 && this.holdTimer) {
      clearTimeout(this.holdTimer);
      this.holdTimer = null;
    }
  }

  /** The missing message did not come in time: send what is held, in sequence order. */
  private releaseAll() {
    this.holdTimer = null;
    const seqs = [...this.held.keys()].sort((a, b) => a - b);
    for (const seq of seqs) {
      const entry = this.held.get(seq)!;
      this.held.delete(seq);
      entry.done(this.fanOut(entry.frame));
      this.nextSeq = Math.max(this.nextSeq ?? 0, seq + 1);
    }
  }
}

interface ConversationFacts {
  id: string;
  low: string;
  high: string;
  createdAt: string;
}

function parseLimit(value: string | null): RateLimitSpec | undefined {
  const match = value ? /^(\d+)\/(\d+)$/.exec(value) : null;
  return match ? { max: Number(match[1]), windowSeconds: Number(match[2]) } : undefined;
}

const refused = (status: number, message: string): { ok: false; refusal: Refusal } => ({
  ok: false,
  refusal: { status, message },
});
