/**
 * The floor for bench/chat: a bare websocket relay in plain Node, with nothing in it but the relay
 * (no session, no database, no Durable Object). It speaks the same calls as Heartline's chat:
 * `GET /ws/{room}?member={id}` is the room's websocket, on which `{type: "send", client_id,
 * message}` pushes `{type: "message", message}` to every socket of the room; `POST /send/{room}`
 * with `{message, client_id, sender_id}` does the same over HTTP and answers 201 with the message.
 * The websocket protocol (RFC 6455, text frames) is written out here so that the floor depends on
 * nothing.
 *
 *   npx tsx bench/chat/relay.ts   → prints {"port": N} on its first line, then serves
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const rooms = new Map<string, Set<Duplex>>();
const seqs = new Map<string, number>();

/** One unmasked text frame, as a server sends it. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const length = payload.length;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([0x81, length]);
  } else if (length < 65536) {
    header = Buffer.alloc(4);
    header[0] = 0x81;
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x81;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

/** Gives a message the room's next number and pushes it to every socket of the room. */
function relay(room: string, body: { message: string; client_id: string; sender_id: string }) {
  const seq = (seqs.get(room) ?? 0) + 1;
  seqs.set(room, seq);
  const message = {
    id: randomBytes(10).toString("hex"),
    conversation_id: room,
    seq,
    sender_id: body.sender_id,
    client_id: body.client_id,
    message: body.message,
    sent_at: new Date().toISOString(),
    read_at: null,
    gift: null,
  };
  const frame = textFrame(JSON.stringify({ type: "message", message }));
  for (const socket of rooms.get(room) ?? []) socket.write(frame);
  return message;
}

/**
 * A room member's socket: reads the client's (masked) frames. A text frame `{type: "send"}` is
 * relayed, a ping answered, a close ends the connection.
 */
function join(room: string, memberId: string, socket: Duplex) {
  let members = rooms.get(room);
  if (!members) rooms.set(room, (members = new Set()));
  members.add(socket);
  const leave = () => members.delete(socket);
  socket.on("close", leave);
  socket.on("error", leave);
  let buffered = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      if (buffered.length < 2) return;
      const opcode = buffered[0]! & 0x0f;
      const masked = (buffered[1]! & 0x80) !== 0;
      let length = buffered[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffered.length < 4) return;
        length = buffered.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffered.length < 10) return;
        length = Number(buffered.readBigUInt64BE(2));
        offset = 10;
      }
      const maskAt = offset;
      if (masked) offset += 4;
      if (buffered.length < offset + length) return;
      const payload = Buffer.from(buffered.subarray(offset, offset + length));
      if (masked) {
        for (let i = 0; i < payload.length; i++)
          payload[i] = payload[i]! ^ buffered[maskAt + (i % 4)]!;
      }
      buffered = buffered.subarray(offset + length);
      if (opcode === 8) {
        socket.end(Buffer.from([0x88, 0]));
        leave();
        return;
      }
      if (opcode === 9) socket.write(Buffer.concat([Buffer.from([0x8a, payload.length]), payload]));
      if (opcode !== 1) continue;
      const frame = JSON.parse(payload.toString("utf8")) as {
        type?: string;
        message?: string;
        client_id?: string;
      };
      if (frame.type === "send" && frame.client_id) {
        relay(room, {
          message: frame.message ?? "",
          client_id: frame.client_id,
          sender_id: memberId,
        });
      }
    }
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const server = createServer(async (req, res) => {
  const match = req.method === "POST" ? req.url?.match(/^\/send\/([\w-]+)$/) : null;
  if (!match) {
    res.writeHead(404).end();
    return;
  }
  const body = JSON.parse(await readBody(req)) as {
    message: string;
    client_id: string;
    sender_id: string;
  };
  const message = relay(match[1]!, body);
  res.writeHead(201, { "Content-Type": "application/json" }).end(JSON.stringify({ message }));
});

server.on("upgrade", (req, socket) => {
  const match = req.url?.match(/^\/ws\/([\w-]+)\?member=([\w-]+)$/);
  const key = req.headers["sec-websocket-key"];
  if (!match || typeof key !== "string") {
    socket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
    return;
  }
  const accept = createHash("sha1")
    .update(key + GUID)
    .digest("base64");
  socket.write(
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  join(match[1]!, match[2]!, socket);
});

server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(JSON.stringify({ port }));
});
