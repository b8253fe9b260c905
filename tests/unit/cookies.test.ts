import { describe, expect, it } from "vitest";
import { cookieName, expireCookie, readCookie, serializeCookie } from "~/server/cookies.server";
import type { Env } from "~/server/env.server";

const local = { APP_ENV: "development" } as Env;
const production = { APP_ENV: "production" } as Env;

describe("cookies", () => {
  it("are HttpOnly, SameSite=Lax and site-wide, and Secure with __Host- only in production", () => {
    const dev = serializeCookie(local, cookieName(local, "s"), "v");
    expect(dev).toBe("s=v; Path=/; SameSite=Lax; HttpOnly");
    const prod = serializeCookie(production, cookieName(production, "s"), "v", { maxAge: 60 });
    expect(prod).toBe("__Host-s=v; Path=/; SameSite=Lax; HttpOnly; Secure; Max-Age=60");
  });

  it("expire with Max-Age=0", () => {
    expect(expireCookie(local, "s")).toMatch(/^s=; .*Max-Age=0$/);
  });

  it("are read by exact name", () => {
    const request = new Request("http://x/", {
      headers: { Cookie: "xs=1; s=two%20words; other=3" },
    });
    expect(readCookie(request, "s")).toBe("two words");
    expect(readCookie(request, "missing")).toBeNull();
    expect(readCookie(new Request("http://x/"), "s")).toBeNull();
  });
});
