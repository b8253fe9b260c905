import { DurableObject } from "cloudflare:workers";
import {
  CHAT_CLOSE_FORBIDDEN,
  parseChatClientFrame,
  TYPING_THROTTLE_MS,
  type ChatServerFrame,
  type SendFrame,
} from "~/realtime/chat";
import { sendMessageSchema } from "~/schemas/chat";
import { markRead, sendMessage } from "~/server/chat.server";
import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import type { Env } from "~/server/env.server";
import { HttpError } from "~/server/errors.server";
import { parseInput } from "~/server/validation.server";

interface Attachment {
  userId: string;
  conversationId: string;
}

type MessageFrame = Extract<ChatServerFrame, { type: "message" }>;

/** How long a message waits for an earlier one that is still on its way before it goes anyway. */
export const REORDER_HOLD_MS = 250;

/**
 * One room per conversation, addressed by the conversation id: holds the hibernating sockets of
 * its two members (tagged with the member id) and fans out the frames the chat module publishes
 * after storing them. It owns ordering and fan-out, not business rules: the Worker checked the
 * member before forwarding the upgrade, and it stores nothing.
 *
 * Ordering: every message carries the sequence number D1 gave it. Two sends that finish close
 * together can reach the room in the other order; the room then holds the later one until the
 * earlier arrives (at most REORDER_HOLD_MS), so that sockets receive messages in sequence order.
 * The expected sequence lives in memory only: after an eviction the first message sets it again.
 * Clients order by `seq` too and catch up through the messages API, so a room that forgets loses
 * nothing.
 *
 * A member may also send over the socket (`{type: "send"}`) instead of the HTTP API, and say they
 * read the conversation (`{type: "read"}`): the room hands the frame to the chat module, which
 * applies every rule and writes D1, then fans the result out here without a round trip through
 * the Worker.
 */
export class ConversationRoom extends DurableObject<Env> {
  private nextSeq: number | null = null;
  private held = new Map<number, { frame: MessageFrame; done: (members: string[]) => void }>();
  private holdTimer: ReturnType<typeof setTimeout> | null = null;
  private lastTyping = new Map<string, number>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ctx.setWebSocketAutoResponse(
      new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'),
    );
  }

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("Expected a websocket upgrade", { status: 426 });
    }
    const userId = request.headers.get("X-Member-Id");
    const conversationId = request.headers.get("X-Conversation-Id");
    if (!userId || !conversationId) return new Response("Missing member", { status: 400 });
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1], [userId]);
    pair[1].serializeAttachment({ userId, conversationId } satisfies Attachment);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /**
   * Sends a frame to every open socket of the conversation (the sender's own included). A message
   * frame resolves once it went out, in sequence order; other frames go out at once. Returns the
   * members who had a socket open to receive it.
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
    // A later message than the one expected: wait (briefly) for the missing one.
    return new Promise<string[]>((resolve) => {
      this.held.set(seq, { frame, done: resolve });
      this.holdTimer ??= setTimeout(() => this.releaseAll(), REORDER_HOLD_MS);
    });
  }

  /** Closes every socket (a member blocked the other); clients must not reconnect. */
  async closeAll(reason = "This conversation is no longer available."): Promise<number> {
    const sockets = this.ctx.getWebSockets();
    for (const socket of sockets) {
      try {
        socket.close(CHAT_CLOSE_FORBIDDEN, reason);
      } catch {
        // Already closed.
      }
    }
    return sockets.length;
  }

  /** Closes one member's sockets (their sessions ended); they may reconnect if still signed in. */
  async closeMember(userId: string): Promise<number> {
    const sockets = this.ctx.getWebSockets(userId);
    for (const socket of sockets) {
      try {
        socket.close(SESSION_ENDED_CLOSE, "Signed out.");
      } catch {
        // Already closed.
      }
    }
    return sockets.length;
  }

  async connectionCount(): Promise<number> {
    return this.ctx.getWebSockets().length;
  }

  override async webSocketMessage(socket: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    const frame = parseChatClientFrame(typeof raw === "string" ? raw : null);
    const attachment = socket.deserializeAttachment() as Attachment | null;
    if (!frame || !attachment) return;
    if (frame.type === "send") return this.sendFromSocket(socket, attachment, frame);
    if (frame.type === "read") return this.readFromSocket(attachment);
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

  /** A message sent over the socket: the chat module decides and stores, the room fans out. */
  private async sendFromSocket(socket: WebSocket, a: Attachment, frame: SendFrame): Promise<void> {
    try {
      const input = parseInput(sendMessageSchema, {
        message: frame.message,
        client_id: frame.client_id,
        gift_id: frame.gift_id,
      });
      const { message, created } = await sendMessage(
        this.env,
        a.userId,
        a.conversationId,
        input,
        (work) => this.ctx.waitUntil(work),
        (published) => this.publish(published),
      );
      // The same client id again: only the sender needs the stored message back.
      if (!created) this.reply(socket, { type: "message", message });
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
      const retryAfter = error instanceof HttpError ? Number(error.headers?.["Retry-After"]) : NaN;
      this.reply(socket, {
        type: "send_error",
        client_id: frame.client_id,
        status: error instanceof HttpError ? error.status : 500,
        message: error instanceof HttpError ? error.message : "Server Error",
        retry_after: Number.isFinite(retryAfter) ? retryAfter : null,
      });
    }
  }

  /** The member read the conversation: the chat module records it, the room tells the sockets. */
  private async readFromSocket(a: Attachment): Promise<void> {
    try {
      await markRead(
        this.env,
        a.userId,
        a.conversationId,
        (work) => this.ctx.waitUntil(work),
        (frame) => this.publish(frame),
      );
    } catch (error) {
      // Refused (a block since the socket opened): nothing to record.
      if (!(error instanceof HttpError)) {
        console.error(
          JSON.stringify({
            level: "error",
            event: "chat_socket_read_failed",
            error: String(error),
          }),
        );
      }
    }
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
