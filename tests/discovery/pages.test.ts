import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { d1Statements } from "../helpers/d1-count";
import { conversationPair, sent } from "../chat/helpers";
import { titleOf } from "../helpers/auth";
import { registerMember, verifiedMember } from "../helpers/members";
import { SEARCH_TOTAL_CAP } from "~/schemas/search";
import { searcher, seedBulk, seedMember, TEXAS, US } from "./fixtures";

const html = async (client: TestClient, path: string) => {
  const res = await client.fetch(path, { headers: { Accept: "text/html" } });
  return { status: res.status, location: res.headers.get("Location"), text: await res.text() };
};

const word = () => `pg${Math.random().toString(36).slice(2, 10)}`;

describe("discovery pages", () => {
  it("the dashboard shows suggested members, likes waiting, matches and the nav", async () => {
    const me = await searcher();
    const fan = await verifiedMember();
    await fan.client.json("POST", "/my/likes", { user_id: me.id });
    const suggested = await seedMember({ firstName: "Suggestedperson" });
    const page = await html(me.client, "/dashboard");
    expect(page.status).toBe(200);
    expect(titleOf(page.text)).toBe("Dashboard - Heartline");
    expect(page.text).toContain("Suggested for you");
    expect(page.text).toContain("Suggestedperson");
    expect(page.text).toContain("Liked you");
    expect(page.text).toContain(fan.details.username);
    expect(page.text).toContain('href="/my/matches"');
    expect(page.text).toContain('href="/my/likes"');
    void suggested;
  });

  it("the lived-in dashboard reads D1 at most eleven times, the viewers once (issue #29)", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(bob.client, id, "Are you around?");
    const fan = await verifiedMember();
    await fan.client.json("POST", "/my/likes", { user_id: alice.id });
    await fan.client.fetch(`/members/${alice.details.username}`, {
      headers: { Accept: "application/json" },
    });
    let page!: { status: number; text: string };
    const { requests } = await d1Statements(async () => {
      page = await html(alice.client, "/dashboard");
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain(fan.details.username);
    // The session; likes received and matches (a page and a count each); the viewers (a page and
    // a count, once: they were read twice, 13 in all); the suggestions' walk; the cards of the
    // viewers, of the conversations waiting and of the suggestions (none when nobody is suggested).
    expect(requests.length).toBeLessThanOrEqual(11);
    // The viewers are read once: their page and their count.
    expect(requests.filter((q) => /from "profile_views"/.test(q))).toHaveLength(2);
  });

  it("the dashboard greets a member by first name once they gave one", async () => {
    const me = await searcher();
    // React puts a comment between "Hi " and the name in server HTML.
    const greeting = (text: string) => /<h1[^>]*>Hi (?:<!-- -->)?([^<]+)<\/h1>/.exec(text)?.[1];
    expect(greeting((await html(me.client, "/dashboard")).text)).toBe(me.details.username);
    await env.DB.prepare("UPDATE profiles SET first_name = 'Amelie' WHERE user_id = ?1")
      .bind(me.id)
      .run();
    expect(greeting((await html(me.client, "/dashboard")).text)).toBe("Amelie");
  });

  it("the matches page shows suggestions; …/search shows a search, without JavaScript", async () => {
    const me = await searcher();
    const w = word();
    await seedMember({
      firstName: "Findme",
      bio: `Loves ${w}`,
      country: US,
      state: TEXAS,
      city: "Austin",
    });
    const page = await html(me.client, "/my/matches");
    expect(page.status).toBe(200);
    expect(titleOf(page.text)).toBe("Discover - Heartline");
    expect(page.text).toContain('action="/my/matches/search"');

    for (const path of ["/my/matches/search", "/dashboard/search"]) {
      const found = await html(me.client, `${path}?keywords=${w}&country=US&state=TX&city=Austin`);
      expect(found.status).toBe(200);
      expect(found.text).toContain("Search results");
      expect(found.text).toContain("Findme");
      expect(found.text).toContain("1 member found for “");
      expect(found.text).toMatch(/Clear search/);
      const bad = await html(me.client, `${path}?age_min=10`);
      expect(bad.status).toBe(200);
      expect(bad.text).toContain("The minimum age must be between 18 and 100.");
    }
    // A plain form POST goes on to the GET page of the same search.
    const posted = await me.client.form("/my/matches/search", { keywords: w, gender: "" });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("Location")).toBe(`/my/matches/search?keywords=${w}&gender=`);
  });

  it("shows a total past the cap as “100+ members found”", async () => {
    const me = await searcher();
    const w = word();
    const rows = Array.from({ length: SEARCH_TOTAL_CAP + 3 }, (_, i) => ({
      id: `${w}${i}`,
      username: `${w}_${i}`,
      last_seen_at: new Date().toISOString(),
    }));
    await seedBulk(rows, { bio: `Into ${w}` });
    const found = await html(me.client, `/my/matches/search?keywords=${w}`);
    expect(found.status).toBe(200);
    expect(found.text).toContain(`${SEARCH_TOTAL_CAP}+ members found for “${w}”`);
  });

  it("the likes page lists matches, likes received and sent", async () => {
    const me = await searcher();
    const fan = await verifiedMember();
    const crush = await verifiedMember();
    await fan.client.json("POST", "/my/likes", { user_id: me.id });
    await me.client.json("POST", "/my/likes", { user_id: crush.id });
    const page = await html(me.client, "/my/likes");
    expect(page.status).toBe(200);
    expect(titleOf(page.text)).toBe("Likes - Heartline");
    for (const heading of ["Matches", "Liked you", "You liked"])
      expect(page.text).toContain(heading);
    expect(page.text).toContain(fan.details.username);
    expect(page.text).toContain(crush.details.username);
  });

  it("sends visitors to sign in and unverified members to verify", async () => {
    const visitor = new TestClient();
    const unverified = await registerMember();
    for (const path of [
      "/dashboard",
      "/my/matches",
      "/my/matches/search?keywords=a",
      "/my/likes",
    ]) {
      const anon = await html(visitor, path);
      expect(anon.status, path).toBe(302);
      expect(anon.location, path).toMatch(/^\/login\?redirectTo=/);
      const pending = await html(unverified.client, path);
      expect(pending.status, path).toBe(302);
      expect(pending.location, path).toBe("/verify-email");
    }
  });
});
