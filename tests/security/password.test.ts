import { describe, expect, it } from "vitest";
import {
  hashPassword,
  needsRehash,
  PASSWORD_HASH_ITERATIONS,
  verifyPassword,
} from "~/server/password.server";

describe("password hashing (ADR 001)", () => {
  it("uses exactly the PBKDF2 iteration count production Workers accept", async () => {
    expect(PASSWORD_HASH_ITERATIONS).toBe(100_000);
    const hash = await hashPassword("correct horse battery");
    expect(hash.split("$")[1]).toBe("100000");
  });

  it("salts every hash and verifies only the right password", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse battery", a)).toBe(true);
    expect(await verifyPassword("correct horse batterY", a)).toBe(false);
  });

  it("refuses stored hashes that production could not verify or that are malformed", async () => {
    const hash = await hashPassword("pw12345678");
    const tooMany = hash.replace("$100000$", "$200000$");
    expect(await verifyPassword("pw12345678", tooMany)).toBe(false);
    expect(await verifyPassword("pw12345678", "plain-text")).toBe(false);
    expect(needsRehash(hash)).toBe(false);
    expect(needsRehash(hash.replace("$100000$", "$50000$"))).toBe(true);
  });

  it("treats differently composed Unicode forms of a password as the same", async () => {
    const composed = "caf\u00e9-password";
    const decomposed = "cafe\u0301-password";
    expect(await verifyPassword(decomposed, await hashPassword(composed))).toBe(true);
  });
});
