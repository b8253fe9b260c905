import { CHAT_CLOSE_FORBIDDEN, CHAT_CLOSED_REASON, type ChatServerFrame } from "~/realtime/chat";
import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import type { RateLimitSpec } from "~/server/room-api.server";
import { log } from "~/server/log.server";
import { isUpgrade, notAnUpgrade, SocketLayer, type SocketAttachment } from "../socket-layer";

/**
 * What a conversation socket carries across hibernation (tagged with the member id); `ended`: the
 * room closed it (its session ended, a block, a suspension).
 */
export interface Attachment extends SocketAttachment {
  userId: string;
  conversationId: string;
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
 * The room's sockets (on the shared socket layer, docs/decisions/051): accepting one for a
 * member, fanning frames out to them (message frames in sequence order), answering one socket,
 * closing them.
 */
export class RoomSockets {
  private nextSeq: number | null = null;
  private held = new Map<number, { frame: MessageFrame; done: (members: string[]) => void }>();
  private holdTimer: ReturnType<typeof setTimeout> | null = null;
  /** The sockets, each with its attachment (read once per socket object: it never changes). */
  readonly layer: SocketLayer<Attachment>;

  constructor(ctx: DurableObjectState) {
    this.layer = new SocketLayer(ctx);
  }

  /** Accepts the socket of an upgrade request the Worker checked (member and conversation). */
  accept(request: Request): Response {
    if (!isUpgrade(request)) return notAnUpgrade();
    const userId = request.headers.get("X-Member-Id");
    const conversationId = request.headers.get("X-Conversation-Id");
    if (!userId || !conversationId) return new Response("Missing member", { status: 400 });
    const limit = parseLimit(request.headers.get("X-Send-Limit"));
    const requestId = request.headers.get("X-Request-Id") ?? undefined;
    const attachment: Attachment = { userId, conversationId, limit, requestId };
    const { response } = this.layer.accept(attachment, [userId]);
    log({
      event: "socket_opened",
      level: "info",
      request_id: requestId,
      user_id: userId,
      conversation_id: conversationId,
      channel: "chat",
    });
    return response;
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
    return this.layer.close(this.layer.sockets(userId), SESSION_ENDED_CLOSE, "Signed out.");
  }

  /** Closes every socket: the conversation may no longer be used; clients must not reconnect. */
  closeAll(reason = CHAT_CLOSED_REASON): number {
    return this.layer.close(this.layer.sockets(), CHAT_CLOSE_FORBIDDEN, reason);
  }

  count(): number {
    return this.layer.count();
  }

  /** Answers one socket (closed meanwhile: the client retries over HTTP with the same id). */
  reply(socket: WebSocket, frame: ChatServerFrame) {
    this.layer.send(socket, JSON.stringify(frame));
  }

  /** What `socket` carries (its member, conversation and send limit). */
  attachment(socket: WebSocket): Attachment | null {
    return this.layer.attachment(socket);
  }

  /**
   * Sends a frame to the live sockets that `to` picks (never `except`, the one it came from);
   * answers how many received it.
   */
  sendTo(
    frame: ChatServerFrame,
    to: (a: Attachment) => boolean,
    except?: WebSocket,
    sockets = this.layer.sockets(),
  ): number {
    const text = JSON.stringify(frame);
    let delivered = 0;
    for (const socket of sockets) {
      if (socket === except) continue;
      const a = this.layer.attachment(socket);
      if (!a || a.ended || !to(a)) continue;
      if (this.layer.send(socket, text)) delivered += 1;
    }
    return delivered;
  }

  /** The members with a live socket here (`open`: only sockets still open). */
  present(open = false): Set<string> {
    const members = new Set<string>();
    for (const socket of this.layer.sockets()) {
      const a = this.layer.attachment(socket);
      if (!a || a.ended || (open && socket.readyState !== WebSocket.OPEN)) continue;
      members.add(a.userId);
    }
    return members;
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
    for (const socket of this.layer.sockets()) {
      const a = this.layer.attachment(socket);
      if (a?.ended || (exceptUserId && a?.userId === exceptUserId)) continue;
      // A socket closing while we send: its close handler tidies up.
      if (this.layer.send(socket, a?.userId === sender ? senderText : text) && a) {
        members.add(a.userId);
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

function parseLimit(value: string | null): RateLimitSpec | undefined {
  const match = value ? /^(\d+)\/(\d+)$/.exec(value) : null;
  return match ? { max: Number(match[1]), windowSeconds: Number(match[2]) } : undefined;
}
