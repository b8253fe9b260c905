import { CHAT_CLOSE_FORBIDDEN, CHAT_CLOSED_REASON, type ChatServerFrame } from "~/realtime/chat";
import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import type { RateLimitSpec } from "~/server/room-api.server";
import { log } from "~/server/log.server";

/** What a conversation socket carries across hibernation (tagged with the member id). */
export interface Attachment {
  userId: string;
  conversationId: string;
  /**
   * The room closed the socket (its session ended, a block, a suspension): from then on nothing
   * it sends acts and nothing reaches it, whatever the client does with the close frame.
   */
  ended?: true;
  /**
   * The send limit of the Worker that accepted the socket (its configuration, docs/api.md "Rate
   * limits").
   */
  limit?: RateLimitSpec;
  /** The request that opened the socket: the room's log lines about it carry it. */
  requestId?: string;
}

type MessageFrame = Extract<ChatServerFrame, { type: "message" }>;

/** How long a message waits for an earlier one that is still on its way before it goes anyway. */
export const REORDER_HOLD_MS = 250;

/**
 * The room's sockets: accepting one for a member, fanning frames out to them (message frames in
 * sequence order), answering one socket, closing them.
 */
export class RoomSockets {
  private nextSeq: number | null = null;
  private held = new Map<number, { frame: MessageFrame; done: (members: string[]) => void }>();
  private holdTimer: ReturnType<typeof setTimeout> | null = null;
  /**
   * Each socket's attachment, deserialized once (it never changes after `accept`): a fan-out
   * reads it for every socket. Sockets woken from hibernation are new objects, read again.
   */
  private attachments = new WeakMap<WebSocket, Attachment | null>();

  constructor(private readonly ctx: DurableObjectState) {}

  /** Accepts the socket of an upgrade request the Worker checked (member and conversation). */
  accept(request: Request): Response {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("Expected a websocket upgrade", { status: 426 });
    }
    const userId = request.headers.get("X-Member-Id");
    const conversationId = request.headers.get("X-Conversation-Id");
    if (!userId || !conversationId) return new Response("Missing member", { status: 400 });
    const limit = parseLimit(request.headers.get("X-Send-Limit"));
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1], [userId]);
    const requestId = request.headers.get("X-Request-Id") ?? undefined;
    const attachment: Attachment = { userId, conversationId, limit, requestId };
    log({
      event: "socket_opened",
      level: "info",
      request_id: requestId,
      user_id: userId,
      conversation_id: conversationId,
      channel: "chat",
    });
    pair[1].serializeAttachment(attachment);
    this.attachments.set(pair[1], attachment);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /**
   * Sends a frame to every open socket of the conversation (the sender's own included). A message
   * frame goes out in sequence order (a later one waits at most REORDER_HOLD_MS for an earlier
   * one); other frames go out at once. Returns the members who had a socket open to receive it.
   */
  publish(frame: ChatServerFrame): Promise<string[]> {
    if (frame.type !== "message") return Promise.resolve(this.fanOut(frame));
    const seq = frame.message.seq;
    if (this.nextSeq === null || seq <= this.nextSeq) {
      const delivered = this.fanOut(frame);
      if (this.nextSeq === null || seq === this.nextSeq) this.nextSeq = seq + 1;
      this.releaseInOrder();
      return Promise.resolve(delivered);
    }
    return new Promise<string[]>((resolve) => {
      this.held.set(seq, { frame, done: resolve });
      this.holdTimer ??= setTimeout(() => this.releaseAll(), REORDER_HOLD_MS);
    });
  }

  /** Closes one member's sockets (their sessions ended); they may reconnect if still signed in. */
  closeMember(userId: string): number {
    return this.close(this.ctx.getWebSockets(userId), SESSION_ENDED_CLOSE, "Signed out.");
  }

  /** Closes every socket: the conversation may no longer be used; clients must not reconnect. */
  closeAll(reason = CHAT_CLOSED_REASON): number {
    return this.close(this.ctx.getWebSockets(), CHAT_CLOSE_FORBIDDEN, reason);
  }

  count(): number {
    return this.ctx.getWebSockets().length;
  }

  reply(socket: WebSocket, frame: ChatServerFrame) {
    try {
      socket.send(JSON.stringify(frame));
    } catch {
      // The socket closed meanwhile; the client retries over HTTP with the same client id.
    }
  }

  /** What `socket` carries (its member, conversation and send limit). */
  attachment(socket: WebSocket): Attachment | null {
    let attachment = this.attachments.get(socket);
    if (attachment === undefined) {
      attachment = socket.deserializeAttachment() as Attachment | null;
      this.attachments.set(socket, attachment);
    }
    return attachment;
  }

  /** Sends a frame to every socket (but those of `exceptUserId`); returns who received it. */
  fanOut(frame: ChatServerFrame, exceptUserId?: string): string[] {
    const text = JSON.stringify(frame);
    // A message's safety note is for its recipient: its sender's sockets get it without the note.
    let sender: string | null = null;
    let senderText = text;
    if (frame.type === "message" && frame.message.safety) {
      sender = frame.message.sender_id;
      const { safety: _note, ...plain } = frame.message;
      senderText = JSON.stringify({ ...frame, message: plain });
    }
    const members = new Set<string>();
    for (const socket of this.ctx.getWebSockets()) {
      const a = this.attachment(socket);
      if (a?.ended || (exceptUserId && a?.userId === exceptUserId)) continue;
      try {
        socket.send(a?.userId === sender ? senderText : text);
        if (a) members.add(a.userId);
      } catch {
        // A socket closing while we send: its close handler tidies up.
      }
    }
    return [...members];
  }

  /** Marks a socket ended (on the socket too): nothing it sends acts, nothing reaches it. */
  markEnded(socket: WebSocket) {
    const a = this.attachment(socket);
    if (!a || a.ended) return;
    const ended: Attachment = { ...a, ended: true };
    try {
      socket.serializeAttachment(ended);
    } catch {
      // The socket is gone already.
    }
    this.attachments.set(socket, ended);
  }

  /**
   * Closes sockets, marking each one ended first (on the socket, so that a wake from hibernation
   * knows it too): a client that ignores the close frame and keeps sending is not heard.
   */
  private close(sockets: WebSocket[], code: number, reason: string): number {
    for (const socket of sockets) {
      this.markEnded(socket);
      try {
        socket.close(code, reason);
      } catch {
        // Already closed.
      }
    }
    return sockets.length;
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

function parseLimit(value: string | null): RateLimitSpec | undefined {
  const match = value ? /^(\d+)\/(\d+)$/.exec(value) : null;
  return match ? { max: Number(match[1]), windowSeconds: Number(match[2]) } : undefined;
}
