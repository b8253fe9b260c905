import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { recordProfileView } from "~/server/profile-views.server";
import { subscribeTo, verifiedMember, type Member } from "./helpers";

const today = () => new Date().toISOString().slice(0, 10);

/** Uses up `count` of the member's likes of today (as 50 earlier likes would have). */
async function likedToday(member: Member, count: number) {
  await env.DB.prepare(
    `INSERT INTO like_quota (user_id, day, count) VALUES (?1, ?2, ?3)
     ON CONFLICT (user_id, day) DO UPDATE SET count = ?3`,
  )
    .bind(member.id, today(), count)
    .run();
}

const like = (member: Member, other: Member) =>
  member.client.json("POST", "/my/likes", { user_id: other.id });

describe("perk: more likes a day", () => {
  it("a free member's 51st like of the day is refused; a subscriber's is allowed, up to the plan's", async () => {
    const free = await verifiedMember();
    const subscriber = await verifiedMember();
    const a = await verifiedMember();
    const b = await verifiedMember();
    await subscribeTo(subscriber.client, "plus");

    await likedToday(free, 50);
    const refused = await like(free, a);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: "You have reached your daily like limit." });
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);

    await likedToday(subscriber, 50);
    expect((await like(subscriber, a)).status).toBe(201);
    // Plus gives 150 a day.
    await likedToday(subscriber, 150);
    expect((await like(subscriber, b)).status).toBe(429);
  });

  it("a cancelled subscription keeps the perk to its period end; after it the free limit is back", async () => {
    const member = await verifiedMember();
    const a = await verifiedMember();
    const b = await verifiedMember();
    await subscribeTo(member.client, "plus");
    await member.client.json("DELETE", "/my/subscription", { reason: "Just trying" });
    await likedToday(member, 50);
    expect((await like(member, a)).status).toBe(201);
    await env.DB.prepare("UPDATE subscriptions SET current_period_end = ?2 WHERE user_id = ?1")
      .bind(member.id, new Date(Date.now() - 1000).toISOString())
      .run();
    expect((await like(member, b)).status).toBe(429);
  });
});

describe("perk: advanced search filters", () => {
  const search = (member: Member, filters: Record<string, unknown>) =>
    member.client.json<{ message?: string; results?: unknown[] }>("POST", "/my/matches/search", {
      keywords: "",
      filters,
    });

  it("interests, online now and with a photo are refused to free members (403), allowed to subscribers", async () => {
    const free = await verifiedMember();
    const subscriber = await verifiedMember();
    await subscribeTo(subscriber.client, "plus");
    const message = "Interests, online now and with a photo are search filters for subscribers.";

    for (const filters of [
      { online_only: true },
      { with_photo: true },
      { interests: ["Hiking"] },
    ]) {
      const refused = await search(free, filters);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ message });
      expect((await search(subscriber, filters)).status).toBe(200);
    }
    // The basic filters stay free.
    expect((await search(free, { age_min: 20, age_max: 40, gender: "woman" })).status).toBe(200);

    // The same rule on GET (load more) and on the page without JavaScript.
    const get = await free.client.json("GET", "/my/matches/search?online_only=1");
    expect(get.status).toBe(403);
    const page = await free.client.fetch("/my/matches/search?with_photo=1", {
      headers: { Accept: "text/html" },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(message);
  });
});

describe("perk: incognito browsing", () => {
  const viewsOf = async (viewed: Member) =>
    (
      await env.DB.prepare("SELECT viewer_id FROM profile_views WHERE viewed_id = ?1")
        .bind(viewed.id)
        .all<{ viewer_id: string }>()
    ).results.map((r) => r.viewer_id);

  const visit = (viewer: Member, viewed: Member) =>
    viewer.client.fetch(`/members/${viewed.details.username}`, {
      headers: {
        Accept: "application/json",
        "Sec-Fetch-Site": "same-origin",
        Referer: "http://localhost/dashboard",
      },
    });

  it("a Premium subscriber's visit records no profile view; a free or Plus member's does", async () => {
    const viewed = await verifiedMember();
    const incognito = await verifiedMember();
    const plus = await verifiedMember();
    const free = await verifiedMember();
    await subscribeTo(incognito.client, "premium");
    await subscribeTo(plus.client, "plus");

    expect((await visit(incognito, viewed)).status).toBe(200);
    await recordProfileView(env, incognito.id, viewed.id);
    expect(await viewsOf(viewed)).toEqual([]);

    expect((await visit(free, viewed)).status).toBe(200);
    expect((await visit(plus, viewed)).status).toBe(200);
    expect((await viewsOf(viewed)).sort()).toEqual([free.id, plus.id].sort());

    // Who viewed me stays visible to every member, subscribers included.
    await recordProfileView(env, viewed.id, incognito.id);
    const viewers = await incognito.client.json<{ total_count: number }>(
      "GET",
      "/my/profile-viewers",
    );
    expect(viewers.status).toBe(200);
    expect(viewers.body.total_count).toBe(1);
  });
});
