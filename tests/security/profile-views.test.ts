import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifiedMember } from "../helpers/members";

/**
 * Issue 12, finding 3: a link to /members/{username} posted on another site must not tell its
 * author who followed it. A view is recorded only for a visit made inside the app: a same-origin
 * navigation or fetch (Sec-Fetch-Site: same-origin; without that header, a same-origin Referer or
 * a JSON request, which a cross-site page cannot send with the member's cookie).
 */
async function views(viewedId: string) {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM profile_views WHERE viewed_id = ?1")
    .bind(viewedId)
    .first<{ n: number }>();
  const notes = await env.DB.prepare(
    "SELECT count(*) AS n FROM notifications WHERE user_id = ?1 AND type = 'profile_view'",
  )
    .bind(viewedId)
    .first<{ n: number }>();
  return { views: row?.n ?? 0, notifications: notes?.n ?? 0 };
}

describe("profile views", () => {
  it("a cross-site link, an address typed or opened from another app, records nothing", async () => {
    const viewer = await verifiedMember();
    const author = await verifiedMember();
    const visits: Record<string, string>[] = [
      {
        "Sec-Fetch-Site": "cross-site",
        "Sec-Fetch-Mode": "navigate",
        Referer: "https://evil.example/",
      },
      { "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "navigate" },
      { "Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate" },
      { Referer: "https://evil.example/post" },
      {},
    ];
    for (const headers of visits) {
      const res = await viewer.client.fetch(`/members/${author.details.username}`, {
        headers: { Accept: "text/html", ...headers },
      });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      await res.body?.cancel();
    }
    expect(await views(author.id)).toEqual({ views: 0, notifications: 0 });
  });

  it("a visit inside the app records one view and one notification", async () => {
    const viewer = await verifiedMember();
    const other = await verifiedMember();
    const page = await viewer.client.fetch(`/members/${other.details.username}`, {
      headers: {
        Accept: "text/html",
        "Sec-Fetch-Site": "same-origin",
        "Sec-Fetch-Mode": "navigate",
      },
    });
    expect(page.status).toBe(200);
    await page.body?.cancel();
    expect(await views(other.id)).toEqual({ views: 1, notifications: 1 });

    // An older browser without Fetch Metadata, coming from a page of the app.
    const third = await verifiedMember();
    const old = await viewer.client.fetch(`/members/${third.details.username}`, {
      headers: { Accept: "text/html", Referer: "http://localhost/dashboard" },
    });
    await old.body?.cancel();
    expect((await views(third.id)).views).toBe(1);

    // The JSON API (a same-origin fetch).
    const fourth = await verifiedMember();
    expect((await viewer.client.json("GET", `/members/${fourth.details.username}`)).status).toBe(
      200,
    );
    expect((await views(fourth.id)).views).toBe(1);
    const crossJson = await verifiedMember();
    await viewer.client.json("GET", `/members/${crossJson.details.username}`, undefined, {
      headers: { "Sec-Fetch-Site": "cross-site" },
    });
    expect((await views(crossJson.id)).views).toBe(0);
  });
});
