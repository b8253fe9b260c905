import { describe, expect, it } from "vitest";
import {
  fromBase64Url,
  hmacSign,
  hmacVerify,
  newId,
  randomToken,
  timingSafeEqual,
  toBase64Url,
} from "~/server/crypto.server";

const KEY = "unit-test-key-that-is-long-enough-0123456789";

describe("crypto helpers", () => {
  it("makes random tokens of the requested size, never twice the same", () => {
    const tokens = new Set(Array.from({ length: 50 }, () => randomToken(32)));
    expect(tokens.size).toBe(50);
    for (const t of tokens) {
      expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(fromBase64Url(t)).toHaveLength(32);
    }
  });

  it("makes opaque ids of 20 base32 characters", () => {
    const ids = new Set(Array.from({ length: 50 }, newId));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[0-9a-hjkmnp-tv-z]{20}$/);
  });

  it("round-trips base64url", () => {
    const bytes = crypto.getRandomValues(new Uint8Array(33));
    expect([...fromBase64Url(toBase64Url(bytes))]).toEqual([...bytes]);
  });

  it("verifies an HMAC only for the same key, message and spelling", async () => {
    const mac = await hmacSign(KEY, "message");
    expect(await hmacVerify(KEY, "message", mac)).toBe(true);
    expect(await hmacVerify(KEY, "messagE", mac)).toBe(false);
    expect(await hmacVerify(`${KEY}x`, "message", mac)).toBe(false);
    expect(await hmacVerify(KEY, "message", "%%%")).toBe(false);
    expect(await hmacVerify(KEY, "message", "")).toBe(false);
    // The same bytes spelled with the last character's spare bits set.
    const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const respelled = mac.slice(0, -1) + B64[B64.indexOf(mac.at(-1)!) | 1];
    expect([...fromBase64Url(respelled)]).toEqual([...fromBase64Url(mac)]);
    expect(await hmacVerify(KEY, "message", respelled)).toBe(false);
  });

  it("compares strings exactly", () => {
    expect(timingSafeEqual("abc", "abc")).toBe(true);
    expect(timingSafeEqual("abc", "abd")).toBe(false);
    expect(timingSafeEqual("abc", "abcd")).toBe(false);
    expect(timingSafeEqual("", "")).toBe(true);
  });
});
