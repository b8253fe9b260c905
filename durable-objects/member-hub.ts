import { DurableObject } from "cloudflare:workers";
import { SESSION_ENDED_CLOSE, type MemberServerFrame } from "~/realtime/member";
import type { Env } from "~/server/env.server";

/** Storage keys of the conversations the member opened a socket in, and how many are kept. */
const CONVERSATION_PREFIX = "conversation:";
const CONVERSATIONS_KEPT = 100;

/**
 * One hub per member, addressed by the member id: holds that member's sockets on every page (all
 * tabs) and delivers the frames the server publishes to them. Sockets hibernate between frames;
 * the keepalive ping is answered without waking the object.
 *
 * It also remembers the conversations the member most recently opened a socket in, so that when
 * their sessions end every socket of theirs can be closed: this hub's and those rooms'.
 */
export class MemberHub extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ctx.setWebSocketAutoResponse(
      new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'),
    );
  }

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade") !== "websocket") {
      return new Response("Expected a websocket upgrade", { status: 426 });
    }
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /** Sends one frame to every open socket of the member; returns how many received it. */
  async publish(frame: MemberServerFrame): Promise<number> {
    const text = JSON.stringify(frame);
    let delivered = 0;
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(text);
        delivered += 1;
      } catch {
        // A socket closing while we send: its close handler tidies up.
      }
    }
    return delivered;
  }

  /** The member opened a socket in this conversation's room. */
  async noteConversation(conversationId: string): Promise<void> {
    await this.ctx.storage.put(CONVERSATION_PREFIX + conversationId, Date.now());
    const noted = await this.ctx.storage.list<number>({ prefix: CONVERSATION_PREFIX });
    if (noted.size <= CONVERSATIONS_KEPT) return;
    const oldest = [...noted].sort((a, b) => a[1] - b[1]).slice(0, noted.size - CONVERSATIONS_KEPT);
    await this.ctx.storage.delete(oldest.map(([key]) => key));
  }

  /**
   * The member's sessions ended: closes every socket here, and returns the conversations whose
   * rooms may still hold a socket of theirs.
   */
  async endSessions(): Promise<string[]> {
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.close(SESSION_ENDED_CLOSE, "Signed out.");
      } catch {
        // Already closed.
      }
    }
    const noted = await this.ctx.storage.list<number>({ prefix: CONVERSATION_PREFIX });
    return [...noted.keys()].map((key) => key.slice(CONVERSATION_PREFIX.length));
  }

  async connectionCount(): Promise<number> {
    return this.ctx.getWebSockets().length;
  }

  override async webSocketMessage(): Promise<void> {
    // Clients only ping, which the auto-response answers; anything else is ignored.
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
}
