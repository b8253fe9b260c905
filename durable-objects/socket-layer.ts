import { PING_FRAME, PONG_FRAME } from "~/realtime/presence";
import { FrameRate } from "./frame-rate";

/** What every socket's attachment may carry: the object ended the socket (docs/decisions/051). */
export interface SocketAttachment {
  /**
   * The object closed the socket (its session ended, a block, a flood of frames): from then on
   * nothing it sends acts and nothing reaches it, whatever its client does with the close frame,
   * and a wake from hibernation knows it too.
   */
  ended?: true;
}

/**
 * The hibernatable sockets of one Durable Object, one layer for the conversation room, the
 * presence shard and the member hub (docs/decisions/051): accepting a socket with its tags and
 * first attachment, the attachment kept on the socket and read once per socket object, the
 * keepalive ping answered without waking the object, a send that never throws, the frame rate,
 * and closing sockets marked ended. What each object does with its sockets (its fan-out, its
 * indexes) stays with the object.
 *
 * An attachment is written only through `save` (or `markEnded`), so that the one in memory and
 * the one on the socket never differ; a socket woken from hibernation is a new object, read again.
 */
export class SocketLayer<A extends SocketAttachment> {
  private readonly attachments = new WeakMap<WebSocket, A | null>();
  private readonly frames = new FrameRate();

  constructor(private readonly ctx: DurableObjectState) {
    // The clients' keepalive (app/realtime/client.ts) on every channel, answered by the runtime.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_FRAME, PONG_FRAME));
  }

  /**
   * Accepts a new socket, hibernatable, with its tags (`getWebSockets(tag)` finds it) and its
   * first attachment. Answers the socket and the 101 response that hands its other end over.
   */
  accept(attachment: A, tags?: string[]): { socket: WebSocket; response: Response } {
    const pair = new WebSocketPair();
    if (tags) this.ctx.acceptWebSocket(pair[1], tags);
    else this.ctx.acceptWebSocket(pair[1]);
    this.save(pair[1], attachment);
    return { socket: pair[1], response: new Response(null, { status: 101, webSocket: pair[0] }) };
  }

  /** The sockets the runtime holds (with `tag`: only those accepted with it). */
  sockets(tag?: string): WebSocket[] {
    return this.ctx.getWebSockets(tag);
  }

  /** How many sockets the runtime holds, ended ones that have not closed yet included. */
  count(): number {
    return this.ctx.getWebSockets().length;
  }

  /** What `socket` carries (null: nothing, or a socket gone so far that it cannot be read). */
  attachment(socket: WebSocket): A | null {
    let attachment = this.attachments.get(socket);
    if (attachment === undefined) {
      try {
        attachment = socket.deserializeAttachment() as A | null;
      } catch {
        return null;
      }
      this.attachments.set(socket, attachment);
    }
    return attachment;
  }

  /** Keeps a socket's attachment, on the socket (for after hibernation) and here. */
  save(socket: WebSocket, attachment: A) {
    socket.serializeAttachment(attachment);
    this.attachments.set(socket, attachment);
  }

  /** Whether frames from and to `socket` still count: it has an attachment and was not ended. */
  live(socket: WebSocket): boolean {
    const a = this.attachment(socket);
    return a !== null && a.ended !== true;
  }

  /** Marks a socket ended, on the socket too: nothing it sends acts, nothing reaches it. */
  markEnded(socket: WebSocket) {
    const a = this.attachment(socket);
    if (a?.ended) return;
    const ended = { ...a, ended: true } as A;
    try {
      socket.serializeAttachment(ended);
    } catch {
      // The socket is gone already.
    }
    this.attachments.set(socket, ended);
  }

  /**
   * Counts one frame of `socket` (FrameRate). Past the limit the socket is closed with
   * FRAME_FLOOD_CLOSE, marked ended, and the answer is false: the frame is dropped.
   */
  withinRate(socket: WebSocket): boolean {
    if (this.frames.allow(socket)) return true;
    this.markEnded(socket);
    return false;
  }

  /** Sends text to one socket; false when it was closing (its close handler tidies up). */
  send(socket: WebSocket, text: string): boolean {
    try {
      socket.send(text);
      return true;
    } catch {
      return false;
    }
  }

  /** Sends text to every live socket; answers how many received it. */
  broadcast(text: string): number {
    let delivered = 0;
    for (const socket of this.ctx.getWebSockets()) {
      if (this.live(socket) && this.send(socket, text)) delivered += 1;
    }
    return delivered;
  }

  /** Sockets open and not ended (`except`: one that is closing, not counted). */
  openCount(except?: WebSocket): number {
    let open = 0;
    for (const socket of this.ctx.getWebSockets()) {
      if (socket !== except && socket.readyState === WebSocket.OPEN && this.live(socket)) open += 1;
    }
    return open;
  }

  /**
   * Closes sockets with `code` and `reason`, marking each one ended first: a client that ignores
   * the close frame and keeps sending is not heard. Answers how many there were.
   */
  close(sockets: readonly WebSocket[], code: number, reason: string): number {
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
}

/** Whether a request asks for a websocket upgrade. */
export function isUpgrade(request: Request): boolean {
  return request.headers.get("Upgrade")?.toLowerCase() === "websocket";
}

/** The answer to a request that is not a websocket upgrade. */
export const notAnUpgrade = () => new Response("Expected a websocket upgrade", { status: 426 });

/**
 * Answers an upgrade with a socket closed at once with `code` and `reason` (not hibernatable, never
 * counted): the client learns why in the close frame.
 */
export function refuseSocket(code: number, reason: string): Response {
  const pair = new WebSocketPair();
  pair[1].accept();
  pair[1].close(code, reason);
  return new Response(null, { status: 101, webSocket: pair[0] });
}

/**
 * Answers a socket's close (or error) by closing it normally. The code a client closed with is
 * never echoed: 1005 and 1006 are not codes one may send, and closing with them throws.
 */
export function closeNormally(socket: WebSocket): void {
  try {
    socket.close(1000, "closing");
  } catch {
    // Already closed.
  }
}
