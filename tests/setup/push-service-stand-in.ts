import { execFileSync } from "node:child_process";
import {
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  verify,
  type JsonWebKey,
  type KeyObject,
} from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

/**
 * A stand-in for a browser's push service (RFC 8030), started once for the workers tests. It
 * serves https (a certificate made here, which the test pool's outbound network trusts:
 * vitest.config.ts), because push services do and the Worker sends to nothing else.
 *
 * A test subscribes as a browser would: it makes a P-256 key pair and an auth secret, and
 * registers the subscription here (`POST /__subscriptions {id, private_jwk, auth,
 * application_server_key}`), which gives it the endpoint `https://localhost:<port>/push/<id>`.
 * Every push to an endpoint is checked as a push service checks it:
 * - the subscription exists (404 otherwise);
 * - `Authorization: vapid t=<JWT>, k=<key>` (RFC 8292): an ES256 JWT whose signature is valid for
 *   `k`, `k` the key the browser subscribed with, `aud` this endpoint's origin, `exp` in the
 *   future and within 24 hours, `sub` a mailto: or https: contact (401 without it, 403 when wrong);
 * - `Content-Encoding: aes128gcm` (415 otherwise), a `TTL` (400 without), `Urgency` and `Topic`
 *   well formed when sent (Topic at most 32 URL-safe base64 characters), a body of at most 4096
 *   bytes (413);
 * - the body decrypts (RFC 8291 over RFC 8188) with the subscription's private key and auth secret:
 *   written here with node:crypto, independently of whatever encrypted it (400 otherwise).
 * An accepted push is answered 201 and kept, plaintext and headers, for tests to read
 * (`GET /__pushes?id=`); every attempt, refused or not, is listed by `GET /__attempts?id=`.
 * `POST /__answer {id, status, times?}` makes the next `times` pushes to that endpoint (every one
 * when `times` is left out) answer `status` once they passed the checks: 404 or 410 as for a
 * browser that unsubscribed, 429 or 500 as a service in trouble.
 */

declare module "vitest" {
  export interface ProvidedContext {
    pushServiceStandInPort: number;
    pushServiceStandInCertificate: string;
  }
}

interface Subscription {
  privateKey: KeyObject;
  /** The browser's public key, 65 bytes (the `p256dh` it gives the application). */
  publicKey: Buffer;
  auth: Buffer;
  applicationServerKey: string;
}

export interface ReceivedPush {
  id: string;
  received_at: number;
  headers: { ttl: string; urgency: string | null; topic: string | null; content_type: string };
  jwt: { aud: string; exp: number; sub: string };
  vapid_key: string;
  /** The decrypted plaintext. */
  plaintext: string;
  /** The size of the encrypted body, in bytes. */
  body_length: number;
}

export interface PushAttempt {
  id: string;
  status: number;
  problem?: string;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function answer(res: ServerResponse, status: number, body?: unknown) {
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

const b64u = (value: string) => Buffer.from(value, "base64url");

/** A P-256 public key from its 65-byte uncompressed point. */
function p256PublicKey(point: Buffer): KeyObject {
  if (point.length !== 65 || point[0] !== 4) throw new Error("not an uncompressed P-256 point");
  return createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33).toString("base64url"),
    },
    format: "jwk",
  });
}

/** RFC 8292: the VAPID JWT and key of a push's Authorization header; throws a Refusal. */
function checkVapid(header: string | undefined, origin: string, sub: Subscription) {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header?.trim() ?? "");
  if (!match) throw new Refusal(401, "no VAPID authorization");
  const [, token, key] = match as unknown as [string, string, string];
  const parts = token.split(".");
  if (parts.length !== 3) throw new Refusal(403, "the JWT is not three parts");
  const [head, claims, signature] = parts as [string, string, string];
  let header_: { alg?: string; typ?: string };
  let body: { aud?: unknown; exp?: unknown; sub?: unknown };
  try {
    header_ = JSON.parse(b64u(head).toString("utf8")) as typeof header_;
    body = JSON.parse(b64u(claims).toString("utf8")) as typeof body;
  } catch {
    throw new Refusal(403, "the JWT is not JSON");
  }
  if (header_.alg !== "ES256") throw new Refusal(403, `the JWT's alg is ${header_.alg}`);
  let publicKey: KeyObject;
  try {
    publicKey = p256PublicKey(b64u(key));
  } catch {
    throw new Refusal(403, "k is not a P-256 public key");
  }
  const valid = verify(
    "sha256",
    Buffer.from(`${head}.${claims}`),
    { key: publicKey, dsaEncoding: "ieee-p1363" },
    b64u(signature),
  );
  if (!valid) throw new Refusal(403, "the JWT's signature is not valid for k");
  if (key !== sub.applicationServerKey) {
    throw new Refusal(403, "k is not the key the browser subscribed with");
  }
  if (body.aud !== origin) throw new Refusal(403, `aud is ${String(body.aud)}, not ${origin}`);
  const now = Math.floor(Date.now() / 1000);
  if (typeof body.exp !== "number" || body.exp <= now) throw new Refusal(403, "the JWT expired");
  if (body.exp > now + 24 * 60 * 60) throw new Refusal(403, "exp is more than 24 hours away");
  if (typeof body.sub !== "string" || !/^(mailto:|https:)/.test(body.sub)) {
    throw new Refusal(403, "sub is not a mailto: or https: contact");
  }
  return { jwt: { aud: body.aud, exp: body.exp, sub: body.sub }, key };
}

/** RFC 8291 §3.4 and RFC 8188 §2: the plaintext of an aes128gcm push body; throws a Refusal. */
function decrypt(body: Buffer, sub: Subscription): string {
  if (body.length < 21) throw new Refusal(400, "the body has no aes128gcm header");
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  if (idLength !== 65) throw new Refusal(400, "the key id is not a P-256 public key");
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  // One record only: the whole payload must fit in it.
  if (recordSize < 18 || record.length > recordSize || record.length < 17) {
    throw new Refusal(400, "the payload is not one record");
  }
  let senderPublic: KeyObject;
  try {
    senderPublic = p256PublicKey(senderKey);
  } catch {
    throw new Refusal(400, "the sender key is not a P-256 public key");
  }
  const ecdhSecret = diffieHellman({ privateKey: sub.privateKey, publicKey: senderPublic });
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), sub.publicKey, senderKey]);
  const ikm = Buffer.from(hkdfSync("sha256", ecdhSecret, sub.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, "Content-Encoding: aes128gcm\0", 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, "Content-Encoding: nonce\0", 12));
  let padded: Buffer;
  try {
    const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    padded = Buffer.concat([
      decipher.update(record.subarray(0, record.length - 16)),
      decipher.final(),
    ]);
  } catch {
    throw new Refusal(400, "the payload does not decrypt with the subscription's keys");
  }
  // The last record ends with the delimiter 2, then only zeros (RFC 8188 §2).
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (end < 0 || padded[end] !== 2) throw new Refusal(400, "the last record's padding is wrong");
  return padded.subarray(0, end).toString("utf8");
}

/** A certificate for localhost and 127.0.0.1, made for this run. */
function makeCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), "push-stand-in-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "pipe" },
    );
    return {
      key: readFileSync(join(dir, "key.pem"), "utf8"),
      cert: readFileSync(join(dir, "cert.pem"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let server: Server | undefined;

export default async function setup(project: TestProject) {
  const subscriptions = new Map<string, Subscription>();
  const answers = new Map<string, { status: number; times?: number }>();
  const received: ReceivedPush[] = [];
  const attempts: PushAttempt[] = [];
  const { key, cert } = makeCertificate();

  server = createServer({ key, cert }, async (req, res) => {
    const url = new URL(req.url ?? "/", `https://${req.headers.host ?? "localhost"}`);
    if (req.method === "POST" && url.pathname === "/__subscriptions") {
      const body = JSON.parse((await readBody(req)).toString("utf8")) as {
        id: string;
        private_jwk: JsonWebKey;
        auth: string;
        application_server_key: string;
      };
      const privateKey = createPrivateKey({ key: body.private_jwk, format: "jwk" });
      const jwk = body.private_jwk;
      subscriptions.set(body.id, {
        privateKey,
        publicKey: Buffer.concat([Buffer.from([4]), b64u(jwk.x!), b64u(jwk.y!)]),
        auth: b64u(body.auth),
        applicationServerKey: body.application_server_key,
      });
      return answer(res, 201, { endpoint: `${url.origin}/push/${body.id}` });
    }
    if (req.method === "POST" && url.pathname === "/__answer") {
      const body = JSON.parse((await readBody(req)).toString("utf8")) as {
        id: string;
        status: number;
        times?: number;
      };
      answers.set(body.id, { status: body.status, times: body.times });
      return answer(res, 200, {});
    }
    if (req.method === "GET" && url.pathname === "/__pushes") {
      const id = url.searchParams.get("id");
      return answer(res, 200, id ? received.filter((p) => p.id === id) : received);
    }
    if (req.method === "GET" && url.pathname === "/__attempts") {
      const id = url.searchParams.get("id");
      return answer(res, 200, id ? attempts.filter((a) => a.id === id) : attempts);
    }

    const match = /^\/push\/([\w-]+)$/.exec(url.pathname);
    if (req.method !== "POST" || !match) return answer(res, 404);
    const id = match[1]!;
    const body = await readBody(req);
    try {
      const sub = subscriptions.get(id);
      if (!sub) throw new Refusal(404, "no such subscription");
      const { jwt, key: vapidKey } = checkVapid(req.headers.authorization, url.origin, sub);
      if (req.headers["content-encoding"] !== "aes128gcm") {
        throw new Refusal(415, `Content-Encoding is ${req.headers["content-encoding"]}`);
      }
      const ttl = req.headers.ttl;
      if (typeof ttl !== "string" || !/^\d+$/.test(ttl)) throw new Refusal(400, "no TTL");
      const urgency = req.headers.urgency;
      if (
        urgency !== undefined &&
        !["very-low", "low", "normal", "high"].includes(String(urgency))
      ) {
        throw new Refusal(400, `Urgency is ${String(urgency)}`);
      }
      const topic = req.headers.topic;
      if (topic !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(String(topic))) {
        throw new Refusal(400, `Topic is ${String(topic)}`);
      }
      if (body.length > 4096) throw new Refusal(413, "the body is over 4096 bytes");
      const plaintext = decrypt(body, sub);

      const told = answers.get(id);
      if (told && (told.times === undefined || told.times > 0)) {
        if (told.times !== undefined) told.times -= 1;
        throw new Refusal(told.status, "as told");
      }
      received.push({
        id,
        received_at: Date.now(),
        headers: {
          ttl,
          urgency: typeof urgency === "string" ? urgency : null,
          topic: typeof topic === "string" ? topic : null,
          content_type: String(req.headers["content-type"]),
        },
        jwt,
        vapid_key: vapidKey,
        plaintext,
        body_length: body.length,
      });
      attempts.push({ id, status: 201 });
      res.writeHead(201, { Location: `/message/${crypto.randomUUID()}` });
      return res.end();
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      attempts.push({ id, status: error.status, problem: error.message });
      return answer(res, error.status, { code: error.status, message: error.message });
    }
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  project.provide("pushServiceStandInPort", (server.address() as AddressInfo).port);
  project.provide("pushServiceStandInCertificate", cert);
  return async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  };
}
