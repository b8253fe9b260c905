import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

/**
 * A stand-in for Cloudflare's TURN credentials API (it cannot run here), started once for the
 * workers tests. It checks what the real one does: POST
 * `/v1/turn/keys/{keyId}/credentials/generate-ice-servers` with `Authorization: Bearer <token>`
 * and a JSON body `{ttl}` (a positive number of seconds), and answers 201 with `iceServers` as
 * Cloudflare documents them; a wrong key or token gets 401. Tests point TURN_API_BASE here.
 */

declare module "vitest" {
  export interface ProvidedContext {
    turnStandInPort: number;
  }
}

/** The key and token the stand-in accepts (tests configure the Worker with them). */
export const TURN_TEST_KEY_ID = "turn-key-for-tests";
export const TURN_TEST_TOKEN = "turn-token-for-tests";

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

let server: Server | undefined;

export default async function setup(project: TestProject) {
  let issued = 0;
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const match = /^\/v1\/turn\/keys\/([^/]+)\/credentials\/generate-ice-servers$/.exec(
      url.pathname,
    );
    if (req.method !== "POST" || !match) {
      res.writeHead(404);
      return res.end();
    }
    const body = await readBody(req);
    if (
      decodeURIComponent(match[1]!) !== TURN_TEST_KEY_ID ||
      req.headers.authorization !== `Bearer ${TURN_TEST_TOKEN}`
    ) {
      res.writeHead(401, { "Content-Type": "application/json" });
      return res.end(JSON.stringify({ error: "unauthorized" }));
    }
    let ttl: unknown;
    try {
      ttl = (JSON.parse(body) as { ttl?: unknown }).ttl;
    } catch {
      ttl = undefined;
    }
    if (req.headers["content-type"] !== "application/json" || typeof ttl !== "number" || ttl <= 0) {
      res.writeHead(400, { "Content-Type": "application/json" });
      return res.end(JSON.stringify({ error: "a positive ttl is required" }));
    }
    issued += 1;
    res.writeHead(201, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        iceServers: [
          { urls: ["stun:stun.cloudflare.com:3478", "stun:stun.cloudflare.com:53"] },
          {
            urls: [
              "turn:turn.cloudflare.com:3478?transport=udp",
              "turn:turn.cloudflare.com:3478?transport=tcp",
              "turns:turn.cloudflare.com:5349?transport=tcp",
            ],
            username: `user-${issued}-ttl-${ttl}`,
            credential: `credential-${issued}`,
          },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  project.provide("turnStandInPort", (server.address() as AddressInfo).port);
  return async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  };
}
