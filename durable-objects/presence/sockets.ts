import type { PresenceServerFrame } from "~/realtime/presence";
import type { Attachment } from "./storage";

/**
 * A shard's open sockets by id, each with its attachment: the attachment in memory and on the
 * socket are changed together, so that a wake from hibernation finds what memory had.
 */
export class ShardSockets {
  private readonly sockets = new Map<string, { ws: WebSocket; a: Attachment }>();

  constructor(private readonly ctx: DurableObjectState) {}

  /** Accepts a member's socket (tagged with the member id) with its first attachment. */
  accept(ws: WebSocket, a: Attachment) {
    this.ctx.acceptWebSocket(ws, [a.userId]);
    this.save(ws, a);
  }

  /** Keeps a socket's attachment, on the socket and here. */
  save(ws: WebSocket, a: Attachment) {
    ws.serializeAttachment(a);
    this.sockets.set(a.sid, { ws, a });
  }

  /** The sockets that outlived hibernation, as the runtime holds them (load). */
  restore(): Attachment[] {
    const restored: Attachment[] = [];
    for (const ws of this.ctx.getWebSockets()) {
      const a = ws.deserializeAttachment() as Attachment | null;
      if (!a || a.ended || ws.readyState !== WebSocket.OPEN) continue;
      this.sockets.set(a.sid, { ws, a });
      restored.push(a);
    }
    return restored;
  }

  get(sid: string) {
    return this.sockets.get(sid);
  }

  has(sid: string) {
    return this.sockets.has(sid);
  }

  delete(sid: string) {
    this.sockets.delete(sid);
  }

  get size() {
    return this.sockets.size;
  }

  values() {
    return this.sockets.values();
  }

  /** The open sockets of a member. */
  of(userId: string): WebSocket[] {
    return this.ctx.getWebSockets(userId).filter((s) => {
      const a = s.deserializeAttachment() as Attachment | null;
      return a !== null && this.sockets.has(a.sid) && s.readyState === WebSocket.OPEN;
    });
  }

  /** How many sockets the runtime holds for this shard. */
  count() {
    return this.ctx.getWebSockets().length;
  }

  send(ws: WebSocket, frame: PresenceServerFrame) {
    this.sendText(ws, JSON.stringify(frame));
  }

  sendText(ws: WebSocket, text: string) {
    try {
      ws.send(text);
    } catch {
      // A socket closing while we send: its close handler tidies up.
    }
  }

  /** Sends a frame to every socket of the shard. */
  broadcast(frame: PresenceServerFrame) {
    const text = JSON.stringify(frame);
    for (const { ws } of this.sockets.values()) this.sendText(ws, text);
  }
}
