import { fromBase64Url, timingSafeEqual, toBase64Url } from "./crypto.server";

/**
 * PBKDF2-HMAC-SHA256 with 100,000 iterations: the most that production Workers accept
 * (docs/decisions/001-password-hashing.md). The parameters are stored with each hash so that they
 * can be raised later and old hashes upgraded at the next sign-in.
 */
export const PASSWORD_HASH_ITERATIONS = 100_000;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
const PREFIX = "pbkdf2_sha256";

async function derive(
  password: string,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(password.normalize("NFKC")),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations },
    key,
    KEY_BYTES * 8,
  );
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, PASSWORD_HASH_ITERATIONS);
  return `${PREFIX}$${PASSWORD_HASH_ITERATIONS}$${toBase64Url(salt)}$${toBase64Url(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [prefix, iter, salt, hash] = stored.split("$");
  const iterations = Number(iter);
  if (prefix !== PREFIX || !salt || !hash || !Number.isInteger(iterations)) return false;
  if (iterations < 1 || iterations > PASSWORD_HASH_ITERATIONS) return false;
  const derived = await derive(password, fromBase64Url(salt), iterations);
  return timingSafeEqual(toBase64Url(derived), hash);
}

export function needsRehash(stored: string): boolean {
  return !stored.startsWith(`${PREFIX}$${PASSWORD_HASH_ITERATIONS}$`);
}

/** A hash of a random password, verified against when an account does not exist (equal timing). */
export const DUMMY_HASH =
  "pbkdf2_sha256$100000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
