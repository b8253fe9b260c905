/**
 * The in-platform floor for bench/chat: the simplest Durable Object chat room, run in workerd the
 * way the Worker is (its own script and config, bench/chat/room/wrangler.json). One room per
 * conversation; a message gets the room's next `seq`, is stored in the room's own SQLite storage
 * (`ctx.storage.sql`) and goes to every socket of the room. The socket's sends wait for the write
 * to be durable (the Durable Object's output gate), as Heartline's must. No session, no rules.
 *
 * It speaks the relay's calls (bench/chat/relay.ts): `GET /ws/{room}?member={id}` is the room's
 * websocket, on which `{type: "send", client_id, message}` pushes `{type: "message", message}` to
 * every socket of the room; `POST /send/{room}` with `{message, client_id, sender_id}` does the
 * same over HTTP and answers 201 with the message.
 */
import { DurableObject } from "cloudflare:workers";

interface RoomEnv {
  ROOM: DurableObjectNamespace<ChatRoom>;
}

interface Send {
  type?: string;
  message?: string;
  client_id?: string;
  sender_id?: string;
}

export class ChatRoom extends DurableObject<RoomEnv> {
  private seq: number;

  constructor(ctx: DurableObjectState, env: RoomEnv) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec(
      `CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY, id TEXT NOT NULL,
         sender_id TEXT NOT NULL, client_id TEXT, message TEXT NOT NULL, sent_at TEXT NOT NULL)`,
    );
    this.seq = sql
      .exec<{ seq: number }>("SELECT coalesce(max(seq), 0) AS seq FROM messages")
      .one().seq;
  }

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const room = url.pathname.split("/")[2] ?? "";
    if (request.headers.get("Upgrade")?.toLowerCase() === "websocket") {
      const member = url.searchParams.get("member") ?? "";
      const pair = new WebSocketPair();
      this.ctx.acceptWebSocket(pair[1], [member]);
      pair[1].serializeAttachment({ room, member });
      return new Response(null, { status: 101, webSocket: pair[0] });
    }
    const body = await request.json<Send>();
    const message = this.store(room, body.sender_id ?? "", body.client_id ?? null, body.message);
    return Response.json({ message }, { status: 201 });
  }

  override async webSocketMessage(socket: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    if (typeof raw !== "string") return;
    const frame = JSON.parse(raw) as Send;
    const { room, member } = socket.deserializeAttachment() as { room: string; member: string };
    if (frame.type === "send" && frame.client_id) {
      this.store(room, member, frame.client_id, frame.message);
    }
  }

  override async webSocketClose(socket: WebSocket): Promise<void> {
    try {
      socket.close(1000, "closing");
    } catch {
      // Already closed.
    }
  }

  /** Stamps the next seq, stores the message and sends it to every socket of the room. */
  private store(room: string, senderId: string, clientId: string | null, text = "") {
    const seq = ++this.seq;
    const message = {
      id: crypto.randomUUID(),
      conversation_id: room,
      seq,
      sender_id: senderId,
      client_id: clientId,
      message: text,
      sent_at: new Date().toISOString(),
      read_at: null,
      gift: null,
    };
    this.ctx.storage.sql.exec(
      "INSERT INTO messages (seq, id, sender_id, client_id, message, sent_at) VALUES (?, ?, ?, ?, ?, ?)",
      seq,
      message.id,
      senderId,
      clientId,
      text,
      message.sent_at,
    );
    const frame = JSON.stringify({ type: "message", message });
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(frame);
      } catch {
        // Closing meanwhile.
      }
    }
    return message;
  }
}

export default {
  fetch(request, env) {
    const match = /^\/(?:ws|send)\/([\w-]+)$/.exec(new URL(request.url).pathname);
    if (!match) return new Response("Not found", { status: 404 });
    return env.ROOM.get(env.ROOM.idFromName(match[1]!)).fetch(request);
  },
} satisfies ExportedHandler<RoomEnv>;
