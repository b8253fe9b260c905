import { describe, expect, it } from "vitest";
import { safeRedirect } from "~/server/guards.server";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";

/**
 * Issue 12, finding 1 (and the newline of finding 7): after signing in or confirming the password,
 * a member only ever goes to a path of this site. Browsers strip tab, CR and LF from URLs and read
 * a backslash as a slash, so `/\t/evil.example` would become `//evil.example`.
 */
const HOSTILE = [
  "//evil.example/",
  "https://evil.example/",
  "/\\evil.example",
  "\\\\evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/\r/evil.example",
  "\t//evil.example",
  " //evil.example",
  "/ /evil.example",
  "/\u0000/evil.example",
  "/\u000b/evil.example",
  "/\u00a0/evil.example",
  "/\u2028/evil.example",
  "/\u3000/evil.example",
  "/\ufeff/evil.example",
  "/%09/evil.example",
  "/%0a/evil.example",
  "/%5cevil.example",
  "/\\/evil.example",
  "/.//evil.example",
  "/dashboard\r\nSet-Cookie: x=1",
  "javascript:alert(1)",
  "/dashboard\u202e",
  "",
  "dashboard",
  `/${"a".repeat(3000)}`,
];

describe("safeRedirect", () => {
  it("keeps a same-site path with its query and fragment", () => {
    expect(safeRedirect("/settings/appearance")).toBe("/settings/appearance");
    expect(safeRedirect("/my/matches/search?keywords=tea&page=2#top")).toBe(
      "/my/matches/search?keywords=tea&page=2#top",
    );
    expect(safeRedirect("/members/anna_b")).toBe("/members/anna_b");
  });

  it.each(HOSTILE)("refuses %j", (to) => {
    expect(safeRedirect(to)).toBe("/dashboard");
    expect(safeRedirect(to, "/settings")).toBe("/settings");
  });

  it("refuses what is not a string", () => {
    expect(safeRedirect(undefined)).toBe("/dashboard");
    expect(safeRedirect(null)).toBe("/dashboard");
  });
});

describe("signing in with a hostile redirectTo", () => {
  it("lands on the dashboard, never on another site, and never answers 500", async () => {
    const member = await verifiedMember();
    for (const redirectTo of ["/%09/evil.example", "/\t/evil.example", "/\r\n/evil.example"]) {
      const client = new TestClient();
      // The page as a browser without JavaScript gets it (the query string decoded into the form).
      const res = await client.form("/login", {
        email: member.details.email,
        password: member.details.password,
        redirectTo: decodeURIComponent(redirectTo),
      });
      expect(res.status, JSON.stringify(redirectTo)).toBe(302);
      expect(res.headers.get("Location"), JSON.stringify(redirectTo)).toBe("/dashboard");
    }
  });

  it("confirm-password goes back only to a same-site path", async () => {
    const member = await verifiedMember();
    for (const redirectTo of ["/\t/evil.example", "/\n/evil.example", "/\\evil.example"]) {
      const res = await member.client.form("/confirm-password", {
        password: member.details.password,
        redirectTo,
      });
      expect(res.status, JSON.stringify(redirectTo)).toBe(302);
      expect(res.headers.get("Location"), JSON.stringify(redirectTo)).toBe("/settings");
    }
  });
});
