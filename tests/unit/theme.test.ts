import { describe, expect, it } from "vitest";
import {
  APPEARANCE_COOKIE,
  APPEARANCE_MAX_AGE_SECONDS,
  appearanceCookie,
  appearanceFromCookieHeader,
  APPEARANCES,
  DEFAULT_APPEARANCE,
  parseAppearance,
  resolveTheme,
} from "~/lib/theme";

describe("appearance (docs/domain.md: client state, appearance)", () => {
  it("offers dark, light and system, and defaults to dark", () => {
    expect([...APPEARANCES]).toEqual(["dark", "light", "system"]);
    expect(DEFAULT_APPEARANCE).toBe("dark");
  });

  it("parses a known value and falls back to dark for anything else", () => {
    expect(parseAppearance("light")).toBe("light");
    expect(parseAppearance("system")).toBe("system");
    expect(parseAppearance("dark")).toBe("dark");
    for (const value of [null, undefined, "", "Light", "blue", "dark "]) {
      expect(parseAppearance(value)).toBe("dark");
    }
  });

  it("resolves system from the operating system's preference, and keeps explicit choices", () => {
    expect(resolveTheme("system", true)).toBe("dark");
    expect(resolveTheme("system", false)).toBe("light");
    expect(resolveTheme("dark", false)).toBe("dark");
    expect(resolveTheme("light", true)).toBe("light");
  });

  it("keeps the choice in a cookie for 365 days, readable by the page's script", () => {
    expect(APPEARANCE_MAX_AGE_SECONDS).toBe(365 * 24 * 60 * 60);
    const cookie = appearanceCookie("light");
    expect(cookie.startsWith(`${APPEARANCE_COOKIE}=light;`)).toBe(true);
    expect(cookie).toMatch(/;\s*Max-Age=31536000(;|$)/);
    expect(cookie).toMatch(/;\s*Path=\/(;|$)/);
    expect(cookie).toMatch(/;\s*SameSite=Lax/);
    expect(cookie).not.toMatch(/HttpOnly/i);
  });

  it("reads the choice from a Cookie header among other cookies", () => {
    expect(appearanceFromCookieHeader("a=1; appearance=light; b=2")).toBe("light");
    expect(appearanceFromCookieHeader("appearance=system")).toBe("system");
    expect(appearanceFromCookieHeader("xappearance=light")).toBe("dark");
    expect(appearanceFromCookieHeader("appearance=neon")).toBe("dark");
    expect(appearanceFromCookieHeader("")).toBe("dark");
    expect(appearanceFromCookieHeader(null)).toBe("dark");
  });
});
