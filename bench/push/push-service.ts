/**
 * bench/push's push service: a plain Node https server in the bench's own process that stands in
 * for the browsers' push services (RFC 8030), and the browsers' side of each subscription (a P-256
 * key pair and an auth secret, made here, whose public half the bench registers with the app).
 *
 * https, because the Worker's push library sends to https endpoints only (as the tests' stand-in,
 * tests/setup/push-service-stand-in.ts, serves): a certificate for 127.0.0.1 made for the run
 * (`trustCertificate`), which workerd trusts through NODE_EXTRA_CA_CERTS (Miniflare adds its
 * certificates to the trust of the Worker's outgoing requests when it is loaded, so it must be
 * set before wrangler is imported).
 *
 * Every push is answered 201 at once and recorded with the time its request arrived (when its
 * headers did, before the body is read: the moment the Worker's request reached the service), its
 * `Topic` header, and its plaintext, decrypted (RFC 8291 `aes128gcm` over RFC 8188) with the
 * subscription's private key, written here with node:crypto independently of the library that
 * encrypted it. What a push service would refuse is not refused (the bench measures, the tests
 * check) but noted on the push (`problems`): no or wrong VAPID authorization (RFC 8292: an ES256
 * JWT valid for `k`, `k` the application server key, `aud` this origin), no `TTL`, a `Topic` of
 * more than 32 URL-safe base64 characters, a body that does not decrypt.
 */
import {
  createDecipheriv,
  createHash,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  verify,
  type KeyObject,
} from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A browser's subscription, as the bench makes it and registers it with the app. */
export interface BenchSubscription {
  /** The path segment of its endpoint. */
  id: string;
  endpoint: string;
  /** What `PushSubscription.toJSON().keys` gives: base64url. */
  keys: { p256dh: string; auth: string };
  privateKey: KeyObject;
  publicKey: Buffer;
  auth: Buffer;
}

/** The plaintext of a push (docs/api.md "Away from the app"). */
export interface PushPlaintext {
  type: string;
  title: string;
  body: string;
  url: string;
  tag: string;
}

export interface ArrivedPush {
  /** The subscription it was sent to (its endpoint's id), or null for an unknown endpoint. */
  subscription: string | null;
  /** When its request arrived, in ms since the Unix epoch (sub-millisecond). */
  at: number;
  topic: string | null;
  ttl: string | null;
  urgency: string | null;
  /** The decrypted plaintext (null when it did not decrypt or was not JSON). */
  payload: PushPlaintext | null;
  /** What a push service would have refused it for (empty: nothing). */
  problems: string[];
}

/** RFC 8030 §5.4 Topic as app/server/push.server.ts derives it from a tag. */
export const topicOf = (tag: string) =>
  createHash("sha256").update(tag).digest().subarray(0, 24).toString("base64url");

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

/** RFC 8291 §3.4 and RFC 8188 §2: the plaintext of a one-record aes128gcm body. */
export function decryptPush(
  body: Buffer,
  sub: Pick<BenchSubscription, "privateKey" | "publicKey" | "auth">,
): string {
  if (body.length < 21) throw new Error("no aes128gcm header");
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  if (idLength !== 65) throw new Error("the key id is not a P-256 public key");
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (recordSize < 18 || record.length > recordSize || record.length < 17) {
    throw new Error("the payload is not one record");
  }
  const ecdhSecret = diffieHellman({
    privateKey: sub.privateKey,
    publicKey: p256PublicKey(senderKey),
  });
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), sub.publicKey, senderKey]);
  const ikm = Buffer.from(hkdfSync("sha256", ecdhSecret, sub.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, "Content-Encoding: aes128gcm\0", 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, "Content-Encoding: nonce\0", 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([
    decipher.update(record.subarray(0, record.length - 16)),
    decipher.final(),
  ]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (end < 0 || padded[end] !== 2) throw new Error("the last record's padding is wrong");
  return padded.subarray(0, end).toString("utf8");
}

/** RFC 8292: what is wrong with a push's VAPID authorization (null: nothing). */
function vapidProblem(
  header: string | undefined,
  origin: string,
  applicationServerKey: string,
): string | null {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header?.trim() ?? "");
  if (!match) return "no VAPID authorization";
  const [, token, key] = match as unknown as [string, string, string];
  if (key !== applicationServerKey) return "k is not the application server key";
  const [head, claims, signature] = token.split(".");
  if (!head || !claims || !signature) return "the JWT is not three parts";
  try {
    const valid = verify(
      "sha256",
      Buffer.from(`${head}.${claims}`),
      { key: p256PublicKey(b64u(key)), dsaEncoding: "ieee-p1363" },
      b64u(signature),
    );
    if (!valid) return "the JWT's signature is not valid for k";
    const body = JSON.parse(b64u(claims).toString("utf8")) as { aud?: unknown; exp?: unknown };
    if (body.aud !== origin) return `aud is ${String(body.aud)}, not ${origin}`;
    if (typeof body.exp !== "number" || body.exp * 1000 <= Date.now()) return "the JWT expired";
  } catch {
    return "the JWT does not parse";
  }
  return null;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export interface Certificate {
  key: string;
  cert: string;
  /** The bundle NODE_EXTRA_CA_CERTS names (the certificate, after any it named before). */
  bundle: string;
  /** Removes the files. */
  remove(): void;
}

/**
 * A certificate for 127.0.0.1 and localhost (openssl, P-256, two days), and NODE_EXTRA_CA_CERTS
 * pointed at a bundle holding it, for Miniflare to read when it is loaded.
 */
export function trustCertificate(): Certificate {
  const dir = mkdtempSync(join(tmpdir(), "bench-push-"));
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
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdio: "pipe" },
  );
  const key = readFileSync(join(dir, "key.pem"), "utf8");
  const cert = readFileSync(join(dir, "cert.pem"), "utf8");
  const earlier = process.env.NODE_EXTRA_CA_CERTS;
  const bundle = join(dir, "bundle.pem");
  const before = earlier && existsSync(earlier) ? `${readFileSync(earlier, "utf8").trim()}\n` : "";
  writeFileSync(bundle, `${before}${cert}`);
  process.env.NODE_EXTRA_CA_CERTS = bundle;
  return {
    key,
    cert,
    bundle,
    remove: () => {
      if (!existsSync(dir)) return;
      if (earlier === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = earlier;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Epoch milliseconds, finer than Date.now(). */
export const epochNow = () => performance.timeOrigin + performance.now();

export class PushService {
  readonly pushes: ArrivedPush[] = [];
  /** TLS connections the Worker opened to the service (a push service sees as many handshakes). */
  connections = 0;
  private readonly subscriptions = new Map<string, BenchSubscription>();
  private listeners: ((push: ArrivedPush) => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    /** The VAPID public key the Worker signs with (base64url of the 65-byte point). */
    private readonly applicationServerKey: string,
  ) {}

  /** Starts the service on 127.0.0.1 at a free port, serving https with `tls`. */
  static async start(
    applicationServerKey: string,
    tls: Pick<Certificate, "key" | "cert">,
  ): Promise<PushService> {
    const started: { service?: PushService } = {};
    const server = createServer({ ...tls, keepAliveTimeout: 60_000 }, (req, res) => {
      const at = epochNow();
      void started.service!.receive(req, at).then(
        // An empty body of known length, as push services answer (a chunked empty body would
        // have the Worker cancel a body, which closes the connection).
        (status) => {
          res.writeHead(status, { "Content-Length": "0" });
          res.end();
        },
        () => {
          res.writeHead(500, { "Content-Length": "0" });
          res.end();
        },
      );
    });
    server.on("secureConnection", () => (started.service ? (started.service.connections += 1) : 0));
    await new Promise<void>((resolve) =>
      server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve),
    );
    const { port } = server.address() as AddressInfo;
    started.service = new PushService(server, `https://127.0.0.1:${port}`, applicationServerKey);
    return started.service;
  }

  /** A new browser subscription at this service (a P-256 key pair and an auth secret). */
  subscribe(): BenchSubscription {
    const id = randomBytes(12).toString("base64url");
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const point = Buffer.concat([Buffer.from([4]), b64u(jwk.x!), b64u(jwk.y!)]);
    const auth = randomBytes(16);
    const subscription: BenchSubscription = {
      id,
      endpoint: `${this.origin}/push/${id}`,
      keys: { p256dh: point.toString("base64url"), auth: auth.toString("base64url") },
      privateKey,
      publicKey: point,
      auth,
    };
    this.subscriptions.set(id, subscription);
    return subscription;
  }

  /** Calls `listener` with every push as it arrives; returns the call that stops it. */
  onPush(listener: (push: ArrivedPush) => void): () => void {
    this.listeners.push(listener);
    return () => (this.listeners = this.listeners.filter((l) => l !== listener));
  }

  private async receive(req: IncomingMessage, at: number): Promise<number> {
    const url = new URL(req.url ?? "/", this.origin);
    const match = /^\/push\/([\w-]+)$/.exec(url.pathname);
    const body = await readBody(req);
    if (req.method !== "POST" || !match) return 404;
    const sub = this.subscriptions.get(match[1]!);
    const header = (name: string) => {
      const value = req.headers[name];
      return typeof value === "string" ? value : null;
    };
    const push: ArrivedPush = {
      subscription: sub ? sub.id : null,
      at,
      topic: header("topic"),
      ttl: header("ttl"),
      urgency: header("urgency"),
      payload: null,
      problems: [],
    };
    if (!sub) push.problems.push("no such subscription");
    const vapid = vapidProblem(req.headers.authorization, this.origin, this.applicationServerKey);
    if (vapid) push.problems.push(vapid);
    if (req.headers["content-encoding"] !== "aes128gcm") {
      push.problems.push(`Content-Encoding ${String(req.headers["content-encoding"])}`);
    }
    if (!push.ttl || !/^\d+$/.test(push.ttl)) push.problems.push("no TTL");
    if (push.topic !== null && !/^[A-Za-z0-9_-]{1,32}$/.test(push.topic)) {
      push.problems.push(`Topic ${push.topic}`);
    }
    if (body.length > 4096) push.problems.push("body over 4096 bytes");
    if (sub) {
      try {
        push.payload = JSON.parse(decryptPush(body, sub)) as PushPlaintext;
      } catch (error) {
        push.problems.push(`payload: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    this.pushes.push(push);
    for (const listener of this.listeners) listener(push);
    return 201;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
