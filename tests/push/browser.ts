import { env } from "cloudflare:test";
import type { PushPayload } from "~/schemas/push";
import type { PushAttempt, ReceivedPush } from "../setup/push-service-stand-in";

/**
 * A browser subscribing to pushes, against the push service's stand-in
 * (tests/setup/push-service-stand-in.ts): a P-256 key pair and an auth secret of its own, as
 * `PushManager.subscribe` makes them, registered with the push service, which then gives the
 * endpoint and decrypts what reaches it with the private key.
 */
export interface BrowserSubscription {
  /** The endpoint's id at the stand-in. */
  id: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

const base64Url = (bytes: ArrayBuffer | Uint8Array) => {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return btoa(String.fromCharCode(...view))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
};

export async function subscribeBrowser(
  applicationServerKey = env.VAPID_PUBLIC_KEY!,
): Promise<BrowserSubscription> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  const publicKey = (await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer;
  const privateJwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  const auth = base64Url(crypto.getRandomValues(new Uint8Array(16)));
  const id = crypto.randomUUID();
  const res = await fetch(new URL("/__subscriptions", env.PUSH_SERVICE_TEST_BASE), {
    method: "POST",
    body: JSON.stringify({
      id,
      private_jwk: privateJwk,
      auth,
      application_server_key: applicationServerKey,
    }),
  });
  const { endpoint } = (await res.json()) as { endpoint: string };
  return { id, endpoint, keys: { p256dh: base64Url(publicKey), auth } };
}

/** The push service answers the next `times` pushes to this browser (every one if left out). */
export async function pushServiceAnswers(sub: BrowserSubscription, status: number, times?: number) {
  const res = await fetch(new URL("/__answer", env.PUSH_SERVICE_TEST_BASE), {
    method: "POST",
    body: JSON.stringify({ id: sub.id, status, times }),
  });
  await res.body?.cancel();
}

/** Every push the stand-in accepted for this browser, decrypted. */
export async function pushesTo(sub: BrowserSubscription): Promise<ReceivedPush[]> {
  const url = new URL("/__pushes", env.PUSH_SERVICE_TEST_BASE);
  url.searchParams.set("id", sub.id);
  return (await (await fetch(url)).json()) as ReceivedPush[];
}

/** Every push that reached the stand-in for this browser, with the answer it got. */
export async function attemptsAt(sub: BrowserSubscription): Promise<PushAttempt[]> {
  const url = new URL("/__attempts", env.PUSH_SERVICE_TEST_BASE);
  url.searchParams.set("id", sub.id);
  return (await (await fetch(url)).json()) as PushAttempt[];
}

/** Waits (up to 5 s) until at least `count` pushes reached this browser's push service. */
export async function waitForAttempts(sub: BrowserSubscription, count = 1) {
  const deadline = Date.now() + 5000;
  let attempts = await attemptsAt(sub);
  while (attempts.length < count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    attempts = await attemptsAt(sub);
  }
  return attempts;
}

export const plaintextOf = (push: ReceivedPush) => JSON.parse(push.plaintext) as PushPayload;
