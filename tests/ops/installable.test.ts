import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

/**
 * API.md "Away from the app": Heartline is installable. The manifest, its icons, the offline page
 * and the service worker are static files of the build, answered by the assets binding as in
 * production (tests/e2e/installable.e2e.test.ts checks them in Chromium).
 */
const asset = (path: string) => env.ASSETS.fetch(`http://localhost${path}`);

type Manifest = {
  name: string;
  short_name: string;
  start_url: string;
  scope: string;
  display: string;
  theme_color: string;
  background_color: string;
  icons: { src: string; sizes: string; type: string; purpose?: string }[];
  shortcuts: { name: string; url: string }[];
};

async function manifest(): Promise<Manifest> {
  const res = await asset("/manifest.webmanifest");
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toMatch(/^application\/manifest\+json/);
  return res.json();
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect([...bytes.slice(1, 4)]).toEqual([0x50, 0x4e, 0x47]); // "PNG"
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

describe("the web app manifest", () => {
  it("names the app, opens it standalone on the dashboard, in both colours", async () => {
    const m = await manifest();
    expect(m).toMatchObject({
      name: "Heartline",
      short_name: "Heartline",
      start_url: "/dashboard",
      scope: "/",
      display: "standalone",
    });
    expect(m.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
    expect(m.background_color).toMatch(/^#[0-9a-f]{6}$/i);
  });

  it("has icons of 192 and 512 px, one of them maskable, and each loads at its stated size", async () => {
    const m = await manifest();
    const png = m.icons.filter((icon) => icon.type === "image/png");
    expect(png.map((icon) => icon.sizes).sort()).toEqual(["192x192", "512x512", "512x512"]);
    expect(png.filter((icon) => icon.purpose === "maskable")).toHaveLength(1);
    for (const icon of m.icons) {
      const res = await asset(icon.src);
      expect(res.status, icon.src).toBe(200);
      expect(res.headers.get("Content-Type"), icon.src).toContain(icon.type);
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (icon.type !== "image/png") continue;
      const { width, height } = pngSize(bytes);
      expect(`${width}x${height}`, icon.src).toBe(icon.sizes);
    }
  });

  it("has shortcuts to Discover and Chat, pages of the app", async () => {
    const m = await manifest();
    expect(m.shortcuts.map((s) => [s.name, s.url])).toEqual([
      ["Discover", "/my/matches"],
      ["Chat", "/chat"],
    ]);
  });

  it("is linked from every page, the static welcome page included", async () => {
    for (const path of ["/", "/login", "/register", "/terms"]) {
      const html = await (
        await SELF.fetch(`http://localhost${path}`, { headers: { Accept: "text/html" } })
      ).text();
      expect(html, path).toContain('<link rel="manifest" href="/manifest.webmanifest"/>');
      expect(html, path).toContain('<link rel="apple-touch-icon" href="/icons/icon-192.png"/>');
    }
  });
});

describe("the service worker and the offline page", () => {
  it("is served at /sw.js, checked again on every update, with a policy that lets it fetch this origin", async () => {
    const res = await asset("/sw.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/javascript/);
    expect(res.headers.get("Cache-Control")).toBe("no-cache");
    // One policy (not the static files' `default-src 'none'` joined to it): a worker's fetches
    // are checked against connect-src.
    const policy = res.headers.get("Content-Security-Policy") ?? "";
    expect(policy).toBe("default-src 'none'; connect-src 'self'; img-src 'self'");
    const source = await res.text();
    expect(source).not.toContain("__VERSION__");
    expect(source).toMatch(/const VERSION = "[0-9a-f]{16}";/);
  });

  it("keeps only static files that are the same for everyone, and each of them loads", async () => {
    const source = await (await asset("/sw.js")).text();
    const list = source.match(/const KEPT = \[([^\]]*)\];/)?.[1] ?? "";
    const kept = [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
    expect(kept).toEqual(["/offline", "/offline.css", "/icons/icon-192.png", "/favicon.svg"]);
    for (const path of kept.slice(1)) expect((await asset(path)).status, path).toBe(200);
    // The offline page reads no cookie and says nothing about anyone.
    const page = await asset("/offline");
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Type")).toContain("text/html");
    expect(page.headers.get("Set-Cookie")).toBeNull();
    const html = await page.text();
    expect(html).toContain("You are offline");
    expect(html).toContain('<link rel="stylesheet" href="/offline.css" />');
  });
});

describe("a notification's address", () => {
  it("/chat/{id} opens that conversation on the chat page", async () => {
    const res = await SELF.fetch("http://localhost/chat/0f6b1c4e-1d2a-4b8e-9c3d-5e6f7a8b9c0d", {
      headers: { Accept: "text/html" },
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(
      "/chat?conversation=0f6b1c4e-1d2a-4b8e-9c3d-5e6f7a8b9c0d",
    );
  });
});
