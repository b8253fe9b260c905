import { describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { fetchWith, PRODUCTION } from "../helpers/worker";

/**
 * Issue 12, finding 10: security headers on every response the Worker gives, and a nonce-based
 * Content-Security-Policy on pages (no 'unsafe-inline' script: only scripts carrying the
 * response's nonce run).
 */
const EVERY_RESPONSE = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "X-Frame-Options": "DENY",
};

function expectSecurityHeaders(res: Response, label: string) {
  for (const [name, value] of Object.entries(EVERY_RESPONSE)) {
    expect(res.headers.get(name), `${label} ${name}`).toBe(value);
  }
  // The camera and microphone are the page's own (calls, voice notes), never an embed's.
  expect(res.headers.get("Permissions-Policy"), label).toMatch(
    /camera=\(self\).*microphone=\(self\)/,
  );
  expect(res.headers.get("Permissions-Policy"), label).toMatch(/geolocation=\(\)/);
  const csp = res.headers.get("Content-Security-Policy") ?? "";
  expect(csp, label).toMatch(/frame-ancestors 'none'/);
  const script = /script-src ([^;]*)/.exec(csp)?.[1] ?? "";
  expect(script, label).not.toContain("'unsafe-inline'");
  expect(script, label).not.toContain("'unsafe-eval'");
}

function nonceOf(res: Response): string {
  const csp = res.headers.get("Content-Security-Policy") ?? "";
  const nonce = /script-src [^;]*'nonce-([^']+)'/.exec(csp)?.[1];
  if (!nonce) throw new Error(`no nonce in ${csp}`);
  return nonce;
}

describe("security headers", () => {
  it("pages carry a nonce policy, and every inline script has the nonce", async () => {
    const member = await verifiedMember();
    const visitor = new TestClient();
    const nonces = new Set<string>();
    // The welcome page is sent to a visitor without scripts (docs/decisions/029), to a member with.
    const pages: [string, TestClient, "scripts" | "none"][] = [
      ["/", visitor, "none"],
      ["/", member.client, "scripts"],
      ["/login", visitor, "scripts"],
      ["/dashboard", member.client, "scripts"],
      ["/settings/appearance", member.client, "scripts"],
      ["/no/such/page", member.client, "scripts"],
    ];
    for (const [path, client, expected] of pages) {
      const res = await client.fetch(path, { headers: { Accept: "text/html" } });
      expectSecurityHeaders(res, path);
      const nonce = nonceOf(res);
      nonces.add(nonce);
      const html = await res.text();
      const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
      if (expected === "none") expect(scripts, path).toEqual([]);
      else expect(scripts.length, path).toBeGreaterThan(0);
      for (const attrs of scripts)
        expect(attrs, `${path} <script${attrs}>`).toContain(`nonce="${nonce}"`);
      // The modules load after the stylesheets and first photos (entry.server.tsx).
      const preloads = [...html.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*>/g)].map(
        (m) => m[0],
      );
      expect(preloads.length > 0, path).toBe(expected === "scripts");
      for (const link of preloads) expect(link, path).toContain('fetchpriority="low"');
    }
    // A fresh nonce for every response.
    expect(nonces.size).toBe(pages.length);
  });

  it("JSON answers, errors, redirects and socket refusals carry them too", async () => {
    const member = await verifiedMember();
    const anon = new TestClient();
    const responses: [string, Response][] = [
      [
        "GET /csrf-token",
        await anon.fetch("/csrf-token", { headers: { Accept: "application/json" } }),
      ],
      ["401", await anon.fetch("/my/profile-viewers", { headers: { Accept: "application/json" } })],
      [
        "419",
        await anon.fetch("/logout", { method: "POST", headers: { Accept: "application/json" } }),
      ],
      ["404", await anon.fetch("/nope", { headers: { Accept: "application/json" } })],
      ["302", await anon.fetch("/dashboard", { headers: { Accept: "text/html" } })],
      ["ws 401", await anon.fetch("/ws/me", { headers: { Upgrade: "websocket" } })],
      [
        "200",
        await member.client.fetch("/my/profile", { headers: { Accept: "application/json" } }),
      ],
    ];
    for (const [label, res] of responses) {
      expectSecurityHeaders(res, label);
      await res.body?.cancel();
    }
    expect(responses[0]![1].headers.get("Content-Security-Policy")).toContain("default-src 'none'");
  });

  it("HSTS only in production", async () => {
    const local = await new TestClient().fetch("/login", { headers: { Accept: "text/html" } });
    expect(local.headers.get("Strict-Transport-Security")).toBeNull();
    await local.body?.cancel();
    const production = await fetchWith(PRODUCTION, "/login", { headers: { Accept: "text/html" } });
    expect(production.headers.get("Strict-Transport-Security")).toMatch(/max-age=\d{8,}/);
    expect(production.headers.get("Content-Security-Policy")).toContain(
      "upgrade-insecure-requests",
    );
    await production.body?.cancel();
  });
});
