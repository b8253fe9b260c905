import { isPhotoWidth, PHOTO_WIDTHS, type PhotoUrls, type PhotoWidth } from "~/lib/photos";
import type { ProfilePhoto } from "~/schemas/profile";
import { hmacSign, timingSafeEqual } from "./crypto.server";
import type { Env } from "./env.server";

/**
 * Signed photo addresses (docs/decisions/043-signed-photo-urls.md). Every photo address the server
 * hands out is minted here: `/photos/{id}?w={width}&m={owner}&exp={expiry}&sig={signature}`. The
 * signature covers the photo, its owner (where it is stored), the width and the expiry, so a
 * request that carries a good one is served without the session or the database; anything else
 * is checked as before (worker/api/profile.ts).
 *
 * Expiries are bucketed: every address minted in the same half hour ends at the same moment, the
 * end of the next half hour, so a page loaded twice in a window asks for the same addresses (the
 * browser's cache answers) and an address lives between 30 and 60 minutes. A block or a deletion
 * stops the addresses minted before it within that time at most.
 */
export const PHOTO_URL_BUCKET_SECONDS = 30 * 60;

/** The longest an address lives: minted at the start of a bucket, it ends two buckets later. */
export const PHOTO_URL_MAX_LIFETIME_SECONDS = 2 * PHOTO_URL_BUCKET_SECONDS;

/** The signature's length: the first 132 bits of the HMAC-SHA256 (22 base64url characters). */
const SIGNATURE_LENGTH = 22;

/** When addresses minted at `now` (ms) expire, in seconds since the epoch. */
export function photoUrlExpiry(now: number): number {
  const bucket = Math.floor(now / 1000 / PHOTO_URL_BUCKET_SECONDS);
  return (bucket + 2) * PHOTO_URL_BUCKET_SECONDS;
}

/**
 * The key photo addresses are signed with: derived from APP_KEY for this one purpose, so that
 * nothing else signed with APP_KEY (or with another purpose's key) is ever a photo signature, and
 * so that this key alone could be given to a part that serves photos without giving it APP_KEY.
 */
let derived: { appKey: string; key: Promise<string> } | null = null;

function photoUrlKey(env: Pick<Env, "APP_KEY">): Promise<string> {
  if (derived?.appKey !== env.APP_KEY) {
    derived = { appKey: env.APP_KEY, key: hmacSign(env.APP_KEY, "derive-key:photo-urls:v1") };
  }
  return derived.key;
}

const signedPart = (id: string, owner: string, width: PhotoWidth, expires: number) =>
  `photo-url:${id}:${owner}:${width}:${expires}`;

async function signature(key: string, id: string, owner: string, width: PhotoWidth, exp: number) {
  return (await hmacSign(key, signedPart(id, owner, width, exp))).slice(0, SIGNATURE_LENGTH);
}

/** A photo to mint addresses for: its id and the member it belongs to. */
export interface PhotoRef {
  id: string;
  owner: string;
}

/** Each photo's signed addresses at every width, by photo id, good until the current bucket's end. */
export async function mintPhotoUrls(
  env: Pick<Env, "APP_KEY">,
  photos: readonly PhotoRef[],
  now = Date.now(),
): Promise<Map<string, PhotoUrls>> {
  const out = new Map<string, PhotoUrls>();
  if (photos.length === 0) return out;
  const key = await photoUrlKey(env);
  const expires = photoUrlExpiry(now);
  await Promise.all(
    photos.map(async ({ id, owner }) => {
      if (out.has(id)) return;
      const urls = {} as PhotoUrls;
      out.set(id, urls);
      for (const width of PHOTO_WIDTHS) {
        const sig = await signature(key, id, owner, width, expires);
        urls[width] =
          `/photos/${encodeURIComponent(id)}?w=${width}&m=${encodeURIComponent(owner)}` +
          `&exp=${expires}&sig=${sig}`;
      }
    }),
  );
  return out;
}

/** One photo's addresses (see mintPhotoUrls). */
export async function mintPhotoUrl(
  env: Pick<Env, "APP_KEY">,
  photo: PhotoRef,
  now = Date.now(),
): Promise<PhotoUrls> {
  return (await mintPhotoUrls(env, [photo], now)).get(photo.id)!;
}

/** A photo as profiles list it: `url` is its largest width's address, `urls` every width's. */
export const profilePhoto = (id: string, urls: PhotoUrls, position: number): ProfilePhoto => ({
  id,
  url: urls[720],
  urls,
  position,
});

/** What a good signed address names. */
export interface SignedPhoto {
  id: string;
  owner: string;
  width: PhotoWidth;
  /** Seconds since the epoch. */
  expires: number;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The photo a request's address names, when it carries this app's signature for exactly that
 * photo, owner, width and expiry and has not expired; null otherwise (no signature, a changed or
 * forged one, an expired one): the caller then checks the request as an unsigned one.
 */
export async function readSignedPhotoUrl(
  env: Pick<Env, "APP_KEY">,
  id: string,
  query: URLSearchParams,
  now = Date.now(),
): Promise<SignedPhoto | null> {
  const sig = query.get("sig");
  const owner = query.get("m");
  const w = query.get("w");
  const exp = query.get("exp");
  if (sig === null || owner === null || w === null || exp === null) return null;
  if (sig.length !== SIGNATURE_LENGTH || !ID.test(id) || !ID.test(owner)) return null;
  if (!/^[1-9]\d{0,11}$/.test(exp) || !/^[1-9]\d{0,4}$/.test(w)) return null;
  const width = Number(w);
  const expires = Number(exp);
  if (!isPhotoWidth(width) || expires * 1000 <= now) return null;
  const expected = await signature(await photoUrlKey(env), id, owner, width, expires);
  return timingSafeEqual(expected, sig) ? { id, owner, width, expires } : null;
}
