import { DurableObject } from "cloudflare:workers";
import type { MemberServerFrame } from "~/realtime/member";
import type { Env } from "~/server/env.server";

/**
 * One hub per member, addressed by the member id: holds that member's sockets on every page (all
 * tabs) and delivers the frames the server publishes to them. Sockets hibernate between frames;
 * the keepalive ping is answered without waking the object.
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
