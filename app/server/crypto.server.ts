const encoder = new TextEncoder();

export function toBase64Url(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (const b of view) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64Url(value: string): Uint8Array<ArrayBuffer> {
  const padded = value.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((value.length + 3) % 4);
  const binary = atob(padded);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return Array.from(view, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `n` bytes from the platform CSPRNG, base64url encoded (n = 32 gives 256 bits). */
export function randomToken(n = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(n)));
}

const ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** An opaque identifier: 20 random base32 characters (100 bits). */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  let id = "";
  for (const b of bytes) id += ID_ALPHABET[b & 31];
  return id;
}

export async function sha256Hex(value: string): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", encoder.encode(value)));
}

/**
 * HMAC keys by secret, imported once per isolate: a request signs and verifies several times (its
 * CSRF token, a paging cursor) with the same few secrets.
 */
const hmacKeys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey(
      "raw",
      encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    // Bounded: a secret that is not the app's own (tests use a few) never fills the isolate.
    if (hmacKeys.size >= 16) hmacKeys.clear();
    hmacKeys.set(secret, key);
    key.catch(() => hmacKeys.delete(secret));
  }
  return key;
}

export async function hmacSign(secret: string, message: string): Promise<string> {
  const key = await hmacKey(secret);
  return toBase64Url(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

/** Verifies an HMAC in constant time (crypto.subtle.verify compares without early exit). */
export async function hmacVerify(secret: string, message: string, mac: string): Promise<boolean> {
  let signature: Uint8Array<ArrayBuffer>;
  try {
    signature = fromBase64Url(mac);
  } catch {
    return false;
  }
  // Only the one canonical spelling of a signature counts (base64 ignores a last character's
  // spare bits, so several strings decode to the same bytes).
  if (toBase64Url(signature) !== mac) return false;
  const key = await hmacKey(secret);
  return crypto.subtle.verify("HMAC", key, signature, encoder.encode(message));
}

/** Compares two strings without an early exit on the first difference. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
