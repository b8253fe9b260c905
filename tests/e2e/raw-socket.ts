/**
 * A websocket client written on a bare TCP connection, as an attacker's script would be: it does
 * the upgrade by hand, sends masked text frames, records what it receives, and never answers a
 * close frame (a browser and partysocket answer it at once, and the runtime's own client too). It
 * keeps sending after the server closed, which is what a revoked session's socket must survive.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";

export interface RawSocket {
  /** Text frames received, parsed as JSON. */
  frames: Record<string, unknown>[];
  /** Close codes the server sent (the client never answers them). */
  closeCodes: number[];
  /** Whether the TCP connection has ended (the server or the runtime dropped it). */
  ended: boolean;
  /** Sends one text frame; false once the connection is gone. */
  send(text: string): boolean;
  sendJson(frame: unknown): boolean;
  /** Resolves with the first close code the server sends (rejects after `timeoutMs`). */
  closed(timeoutMs?: number): Promise<number>;
  /** Ends the TCP connection from this side. */
  destroy(): void;
}

function encode(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  let header: Buffer;
  if (payload.length < 126) {
    header = Buffer.from([0x81, 0x80 | payload.length]);
  } else if (payload.length < 65536) {
    header = Buffer.alloc(4);
    header[0] = 0x81;
    header[1] = 0x80 | 126;
    header.writeUInt16BE(payload.length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x81;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  const body = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i += 1) body[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([header, mask, body]);
}

/** Opens `path` on the Worker at `baseUrl` with the given cookies; rejects unless it answers 101. */
export function openRawSocket(baseUrl: string, path: string, cookie: string): Promise<RawSocket> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const tcp = net.connect(Number(url.port), url.hostname);
    let buffer = Buffer.alloc(0);
    let upgraded = false;
    const closeWaiters: ((code: number) => void)[] = [];
    const socket: RawSocket = {
      frames: [],
      closeCodes: [],
      ended: false,
      send(text) {
        if (socket.ended || tcp.destroyed) return false;
        tcp.write(encode(text));
        return true;
      },
      sendJson(frame) {
        return socket.send(JSON.stringify(frame));
      },
      closed(timeoutMs = 5000) {
        if (socket.closeCodes.length) return Promise.resolve(socket.closeCodes[0]!);
        return new Promise((res, rej) => {
          const timer = setTimeout(() => rej(new Error(`no close frame on ${path}`)), timeoutMs);
          closeWaiters.push((code) => {
            clearTimeout(timer);
            res(code);
          });
        });
      },
      destroy() {
        tcp.destroy();
      },
    };
    const readFrames = () => {
      for (;;) {
        if (buffer.length < 2) return;
        const opcode = buffer[0]! & 0x0f;
        let length = buffer[1]! & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (buffer.length < 4) return;
          length = buffer.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (buffer.length < 10) return;
          length = Number(buffer.readBigUInt64BE(2));
          offset = 10;
        }
        if (buffer.length < offset + length) return;
        const payload = buffer.subarray(offset, offset + length);
        buffer = buffer.subarray(offset + length);
        if (opcode === 1) {
          socket.frames.push(JSON.parse(payload.toString("utf8")) as Record<string, unknown>);
        } else if (opcode === 8) {
          const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
          socket.closeCodes.push(code);
          for (const w of closeWaiters.splice(0)) w(code);
          // Deliberately no answer: the client ignores the close frame and keeps the connection.
        }
      }
    };
    tcp.on("connect", () => {
      tcp.write(
        [
          `GET ${url.pathname}${url.search} HTTP/1.1`,
          `Host: ${url.host}`,
          "Upgrade: websocket",
          "Connection: Upgrade",
          `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
          "Sec-WebSocket-Version: 13",
          `Origin: ${url.origin}`,
          `Cookie: ${cookie}`,
          "",
          "",
        ].join("\r\n"),
      );
    });
    tcp.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString("latin1");
        buffer = buffer.subarray(end + 4);
        if (!/^HTTP\/1\.1 101/.test(head)) {
          tcp.destroy();
          reject(new Error(`${path} refused: ${head.split("\r\n")[0]}`));
          return;
        }
        upgraded = true;
        resolve(socket);
      }
      readFrames();
    });
    tcp.on("close", () => {
      socket.ended = true;
      if (!upgraded) reject(new Error(`${path}: connection closed before the upgrade`));
    });
    tcp.on("error", () => {
      socket.ended = true;
    });
  });
}
