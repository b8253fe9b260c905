import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

/**
 * Static files are answered by the assets binding before the Worker runs, so the Worker's
 * security-headers middleware never sees them: public/_headers (copied into build/client by the
 * build) gives them the same headers. These go through the ASSETS binding, as production does.
 */
const SECURITY = [
  "X-Content-Type-Options",
  "Referrer-Policy",
  "X-Frame-Options",
  "Permissions-Policy",
  "Cross-Origin-Opener-Policy",
  "Cross-Origin-Resource-Policy",
];

/** A script the login page loads: a content-hashed file of the current build. */
async function hashedAsset(): Promise<string> {
  const page = await SELF.fetch("http://localhost/login", { headers: { Accept: "text/html" } });
  const src = (await page.text()).match(/\/assets\/[\w.-]+\.js/)?.[0];
  if (!src) throw new Error("the login page names no /assets/ script");
  return src;
}

describe("static assets", () => {
  it("serves hashed files under /assets/ as immutable for a year", async () => {
    const res = await env.ASSETS.fetch(`http://localhost${await hashedAsset()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
  });

  it("revalidates files whose name does not change with their content", async () => {
    const res = await env.ASSETS.fetch("http://localhost/favicon.svg");
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).not.toContain("immutable");
  });

  it("gives every static response the security headers a page gets", async () => {
    const page = await SELF.fetch("http://localhost/login", { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    for (const path of ["/favicon.svg", await hashedAsset()]) {
      const res = await env.ASSETS.fetch(`http://localhost${path}`);
      for (const name of SECURITY) {
        expect(res.headers.get(name), `${name} on ${path}`).toBe(page.headers.get(name));
      }
      expect(res.headers.get("Content-Security-Policy")).toMatch(/default-src 'none'/);
      expect(res.headers.get("Content-Security-Policy")).toMatch(/frame-ancestors 'none'/);
    }
  });
});
