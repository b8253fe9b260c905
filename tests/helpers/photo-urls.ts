import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { PhotoUrls } from "~/lib/photos";
import {
  mintPhotoUrl,
  PHOTO_URL_BUCKET_SECONDS,
  PHOTO_URL_MAX_LIFETIME_SECONDS,
} from "~/server/photo-urls.server";

/**
 * The expiry a photo address carries (`exp`), checked to be what an address minted just now
 * carries: between one and two half-hour buckets away.
 */
export function expiryOf(url: string): number {
  const exp = Number(new URL(url, "http://localhost").searchParams.get("exp"));
  const left = exp - Date.now() / 1000;
  expect(left, url).toBeGreaterThan(PHOTO_URL_BUCKET_SECONDS - 60);
  expect(left, url).toBeLessThanOrEqual(PHOTO_URL_MAX_LIFETIME_SECONDS);
  return exp;
}

/**
 * A photo's signed addresses as the server mints them in the bucket that ends at `exp`
 * (`expiryOf` an address of the answer being checked): a test compares the answer's addresses
 * with these, exactly, whichever half hour it runs in.
 */
export const photoUrlsUntil = (id: string, owner: string, exp: number): Promise<PhotoUrls> =>
  mintPhotoUrl(env, { id, owner }, (exp - PHOTO_URL_MAX_LIFETIME_SECONDS) * 1000);

/** A profile's photo (`{id, url, urls, position}`) as the server lists it, minted until `exp`. */
export async function listedPhoto(id: string, owner: string, position: number, exp: number) {
  const urls = await photoUrlsUntil(id, owner, exp);
  return { id, url: urls[720], urls, position };
}
