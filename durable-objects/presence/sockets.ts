import type { PresenceServerFrame } from "~/realtime/presence";
import { SocketLayer } from "../socket-layer";
import type { Attachment } from "./storage";

/**
 * A shard's open sockets by id, each with its attachment, on the shared socket layer
 * (docs/decisions/051): the attachment in memory and on the socket are changed together, so that
 * a wake from hibernation finds what memory had.
 */
export class ShardSockets {
  readonly layer: SocketLayer<Attachment>;
  private readonly sockets = new Map<string, { ws: WebSocket; a: Attachment }>();

  constructor(ctx: DurableObjectState) {
    this.layer = new SocketLayer(ctx);
  }

  /**
   * Accepts a member's socket (tagged with the member id) with its first attachment; answers the
   * socket and the 101 response.
   */
  accept(a: Attachment): { ws: WebSocket; response: Response } {
    const { socket, response } = this.layer.accept(a, [a.userId]);
    this.sockets.set(a.sid, { ws: socket, a });
    return { ws: socket, response };
  }

  /** Keeps a socket's attachment, on the socket and here. */
  save(ws: WebSocket, a: Attachment) {
    this.layer.save(ws, a);
    this.sockets.set(a.sid, { ws, a });
  }

  /** What a socket carries (read once per socket object). */
  attachment(ws: WebSocket): Attachment | null {
    return this.layer.attachment(ws);
  }

  /** The sockets that outlived hibernation, as the runtime holds them (load). */
  restore(): Attachment[] {
    const restored: Attachment[] = [];
    for (const ws of this.layer.sockets()) {
      const a = this.layer.attachment(ws);
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
    return this.layer.sockets(userId).filter((s) => {
      const a = this.layer.attachment(s);
      return a !== null && this.sockets.has(a.sid) && s.readyState === WebSocket.OPEN;
    });
  }

  /** How many sockets the runtime holds for this shard. */
  count() {
    return this.layer.count();
  }

  send(ws: WebSocket, frame: PresenceServerFrame) {
    this.layer.send(ws, JSON.stringify(frame));
  }

  /** Sends text to one socket (one closing meanwhile: its close handler tidies up). */
  sendText(ws: WebSocket, text: string) {
    this.layer.send(ws, text);
  }

  /** Sends a frame to every socket of the shard. */
  broadcast(frame: PresenceServerFrame) {
    const text = JSON.stringify(frame);
    for (const { ws } of this.sockets.values()) this.layer.send(ws, text);
  }
}
