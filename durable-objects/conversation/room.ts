import { DurableObject } from "cloudflare:workers";
import {
  parseChatClientFrame,
  TYPING_THROTTLE_MS,
  type ChatMessageView,
  type ChatServerFrame,
} from "~/realtime/chat";
import { accessRefusal } from "~/server/chat-rules.server";
import { loggedAlarm } from "~/server/log.server";
import type { Env } from "~/server/env.server";
import type { ConversationRoomApi, SendRequest, StoredMessage } from "~/server/room-api.server";
import { RoomCalls } from "./calls";
import { ClientIdLeases } from "./client-ids";
import { importLegacy } from "./legacy-import";
import { Outbox } from "./outbox";
import type { RoomParts } from "./parts";
import { deleteMessage, openAttachment, page, react, read, received } from "./reading";
import { RoomRulesCache } from "./rules";
import { SendLeases } from "./send-leases";
import { send, sendFromSocket } from "./sending";
import { RoomSockets } from "./sockets";
import { ConversationStorage, messageView, storedMessage } from "./storage";
import { closeNormally } from "../socket-layer";
import { reportFailuresToTracker } from "~/server/error-tracker.server";

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
 *
 * Its parts (this folder): storage.ts (its tables and statements), rules.ts (the conversation's
 * rules), sockets.ts (accepting, fan-out in sequence order), sending.ts, reading.ts (pages,
 * receipts, deletion), outbox.ts (the members' list entries), client-ids.ts (the client-id
 * leases it holds) and legacy-import.ts.
 */
export class ConversationRoom extends DurableObject<Env> implements ConversationRoomApi {
  private readonly room: RoomParts;
  private readonly calls: RoomCalls;
  private lastTyping = new Map<string, number>();
  private importing: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    reportFailuresToTracker(env);
    const storage = new ConversationStorage(ctx.storage.sql);
    storage.create();
    const rules = new RoomRulesCache(env, storage, (id) => this.importLegacy(id));
    this.room = {
      ctx,
      env,
      storage,
      rules,
      sockets: new RoomSockets(ctx),
      outbox: new Outbox(ctx, env, storage, rules),
      clientIds: new ClientIdLeases(),
      sends: new SendLeases(),
    };
    this.calls = new RoomCalls(this.room);
  }

  // -------------------------------------------------------------------------------------------
  // Sockets

  override async fetch(request: Request): Promise<Response> {
    // The Worker checked the member against their hub's list (or D1). A room that already knows
    // the conversation's rules checks them too: a block or an unmatch pushed here a moment ago
    // may not have reached the hub's list yet.
    const refusal = this.socketRefusal(request);
    if (refusal) return Response.json({ message: refusal.message }, { status: refusal.status });
    const response = this.room.sockets.accept(request);
    // A member opening the conversation while a call for them rings hears it ring.
    const userId = request.headers.get("X-Member-Id");
    if (response.status === 101 && userId) this.calls.greet(userId);
    return response;
  }

  private socketRefusal(request: Request) {
    const rules = this.room.rules.current;
    const userId = request.headers.get("X-Member-Id");
    return rules && userId ? accessRefusal(rules, userId) : null;
  }

  /**
   * Sends a frame to every open socket of the conversation (the sender's own included), message
   * frames in sequence order. Returns the members who had a socket open to receive it.
   */
  async publish(frame: ChatServerFrame): Promise<string[]> {
    return this.room.sockets.publish(frame);
  }

  /** Closes one member's sockets (their sessions ended); they may reconnect if still signed in. */
  async closeMember(userId: string): Promise<number> {
    return this.room.sockets.closeMember(userId);
  }

  /** Closes every socket: the conversation may no longer be used; clients must not reconnect. */
  async closeAll(reason?: string): Promise<number> {
    return this.room.sockets.closeAll(reason);
  }

  async connectionCount(): Promise<number> {
    return this.room.sockets.count();
  }

  override async webSocketMessage(socket: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    const attachment = this.room.sockets.attachment(socket);
    // A socket the room closed (its session ended, a block, a suspension) is not heard, even if
    // its client ignored the close frame and keeps sending: its frames are not even parsed.
    if (!attachment || attachment.ended) return;
    // A socket past its frame rate is closed (FRAME_FLOOD_CLOSE) and heard no more.
    if (!this.room.sockets.layer.withinRate(socket)) return;
    const frame = parseChatClientFrame(typeof raw === "string" ? raw : null);
    if (!frame) return;
    if (frame.type === "send") return sendFromSocket(this.room, socket, attachment, frame);
    if (frame.type === "read") {
      await this.read(attachment.conversationId, attachment.userId);
      return;
    }
    if (frame.type === "react") {
      const { conversationId, userId } = attachment;
      const result = await react(this.room, conversationId, userId, frame.message_id, frame.emoji, {
        socket,
      });
      if (!result.ok) {
        this.room.sockets.reply(socket, {
          type: "react_error",
          message_id: frame.message_id,
          status: result.refusal.status,
          message: result.refusal.message,
        });
      }
      return;
    }
    if (frame.type === "call") return this.calls.onFrame(socket, attachment, frame);
    if (frame.type === "received") {
      await this.received(attachment.conversationId, attachment.userId, frame.ids);
      return;
    }
    if (frame.type !== "typing") return;
    const now = Date.now();
    const last = this.lastTyping.get(attachment.userId) ?? 0;
    if (now - last < TYPING_THROTTLE_MS) return;
    this.lastTyping.set(attachment.userId, now);
    // Typing is for the other member only, and never stored.
    this.room.sockets.fanOut({ type: "typing", user_id: attachment.userId }, attachment.userId);
  }

  override async webSocketClose(socket: WebSocket): Promise<void> {
    closeNormally(socket);
    // A member's last socket here closing ends their call (the other side hears `end`).
    const attachment = this.room.sockets.attachment(socket);
    if (attachment) this.calls.memberLeft(attachment.conversationId, attachment.userId);
  }

  override async webSocketError(socket: WebSocket): Promise<void> {
    await this.webSocketClose(socket);
  }

  // -------------------------------------------------------------------------------------------
  // Rules pushed by blocks and moderation

  /** One member blocked the other, or the last block between them went: pushed by blocks. */
  async setBlocked(conversationId: string, blocked: boolean): Promise<void> {
    this.room.rules.setBlocked(blocked);
    if (blocked) {
      this.calls.endAll(conversationId);
      this.room.sockets.closeAll();
    }
    await this.changedRules(conversationId);
  }

  /**
   * A member unmatched the other: the conversation ends for both (pushed by likes.server.ts).
   * Its sockets close, every later call is refused, and it leaves both lists; what was written
   * stays here for the moderators.
   */
  async end(conversationId: string): Promise<void> {
    this.room.rules.setEnded();
    this.calls.endAll(conversationId);
    this.room.sockets.closeAll();
    await this.changedRules(conversationId);
  }

  /** A member was suspended (or is active again): pushed by moderation. */
  async setMemberActive(conversationId: string, userId: string, active: boolean): Promise<void> {
    this.room.rules.setMemberActive(userId, active);
    if (!active) {
      this.calls.endAll(conversationId);
      this.room.sockets.closeAll();
    }
    await this.changedRules(conversationId);
  }

  private async changedRules(conversationId: string) {
    await this.room.rules.load(conversationId);
    this.room.outbox.queueBoth(null);
    await this.room.outbox.flushSoon();
  }

  // -------------------------------------------------------------------------------------------
  // Messages

  async send(req: SendRequest): ReturnType<typeof send> {
    return send(this.room, req);
  }

  async page(
    conversationId: string,
    me: string,
    position: { cursor?: number; after?: number },
  ): ReturnType<typeof page> {
    return page(this.room, conversationId, me, position);
  }

  async read(conversationId: string, me: string): ReturnType<typeof read> {
    return read(this.room, conversationId, me);
  }

  async deleteMessage(
    conversationId: string,
    me: string,
    messageId: string,
  ): ReturnType<typeof deleteMessage> {
    return deleteMessage(this.room, conversationId, me, messageId);
  }

  /** PUT or DELETE /chat/messages/{id}/reaction (`emoji` null takes it back). */
  async react(
    conversationId: string,
    me: string,
    messageId: string,
    emoji: string | null,
  ): ReturnType<typeof react> {
    return react(this.room, conversationId, me, messageId, emoji);
  }

  /** GET /chat/attachments/{id}: what `me` may open (reading.ts `openAttachment`). */
  async openAttachment(
    conversationId: string,
    me: string,
    messageId: string,
  ): ReturnType<typeof openAttachment> {
    return openAttachment(this.room, conversationId, me, messageId);
  }

  /** `me`'s device received these messages (a socket frame, or their member channel). */
  async received(conversationId: string, me: string, ids: string[]): ReturnType<typeof received> {
    return received(this.room, conversationId, me, ids);
  }

  /** One message as stored (reports copy the text of the message they point at). */
  async findMessage(conversationId: string, messageId: string): Promise<StoredMessage | null> {
    const row = this.room.storage.byId(messageId);
    return row ? storedMessage(conversationId, row) : null;
  }

  /** The messages `userId` sent here that are not deleted, oldest first (account export). */
  async sentBy(conversationId: string, userId: string): Promise<ChatMessageView[]> {
    return this.room.storage.sentBy(userId).map((r) => messageView(conversationId, r));
  }

  /** The reactions `userId` gave here, oldest first (account export). */
  async reactionsBy(
    _conversationId: string,
    userId: string,
  ): Promise<{ message_id: string; emoji: string; reacted_at: string }[]> {
    return this.room.storage.reactionsBy(userId);
  }

  /** Every message, deleted ones included (the migration's comparison, moderation tools). */
  async allMessages(conversationId: string): Promise<StoredMessage[]> {
    return this.room.storage.all().map((r) => storedMessage(conversationId, r));
  }

  /**
   * Which of these R2 keys (objects under this conversation) a message here still carries: the
   * others are orphans the housekeeping deletes (chat-attachments.server.ts, docs/decisions/045).
   */
  async referencedAttachments(keys: string[]): Promise<string[]> {
    return this.room.storage.referencedKeys(keys);
  }

  /** The conversation is gone (a member deleted their account): everything here goes too. */
  async erase(): Promise<void> {
    this.room.sockets.closeAll();
    // Its photos and voice notes leave R2 first (the keys are known only here).
    const keys = this.room.storage.attachmentKeys();
    for (let i = 0; i < keys.length; i += 1000) {
      await this.env.PHOTOS.delete(keys.slice(i, i + 1000));
    }
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.room.storage.create();
    this.room.rules.forget();
    this.room.outbox.forget();
    this.room.clientIds.forget();
    this.room.sends.forget();
  }

  /**
   * Moves the conversation's messages stored in D1 before the rooms held them into this room
   * (legacy-import.ts). Runs by itself before the room's first use; the migration step calls it
   * for every conversation. Returns how many messages the room holds.
   */
  async importLegacy(conversationId: string): Promise<number> {
    this.importing ??= importLegacy(this.room, conversationId).finally(() => {
      this.importing = null;
    });
    await this.importing;
    return this.room.storage.count();
  }

  /**
   * `senderId`'s hub takes back their client-id lease `epoch`: the client ids they stored here
   * since `since` (client-ids.ts). Nothing here awaits: a send that has not stored its message
   * yet asks the hub for its client id.
   */
  async surrenderClientIds(senderId: string, epoch: number, since: string): Promise<string[]> {
    this.room.clientIds.surrender(senderId, epoch);
    return this.room.storage.clientIdsSince(senderId, since);
  }

  /**
   * `senderId`'s hub takes back its grant `grantId` of sends (send-leases.ts): the sends unused,
   * or null when this room no longer holds it.
   */
  async returnSends(senderId: string, grantId: string): Promise<number | null> {
    return this.room.sends.giveBack(senderId, grantId);
  }

  override async alarm(): Promise<void> {
    await loggedAlarm("chat_room_alarm_failed", () => this.room.outbox.alarm());
  }
}
