import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ONLINE_WINDOW_MS } from "~/lib/online";
import { memberCards } from "~/server/members.server";
import { TestClient } from "../helpers/client";
import { registerMember, verifiedMember } from "../helpers/members";
import { expiryOf, listedPhoto, photoUrlsUntil } from "../helpers/photo-urls";
import { countRows, memberWithProfile } from "./fixtures";

type Card = {
  id: string;
  username: string;
  firstName: string | null;
  age: number;
  gender: string | null;
  location: { country: string | null; state: string | null; city: string | null };
  photo_url: string | null;
  photo_urls?: unknown;
  online: boolean;
  last_seen_at: string | null;
};
type Viewers = {
  viewers: (Card & { viewed_at: string })[];
  total_count: number;
  meta: { page: number; per_page: number; has_more: boolean };
};

const viewRows = (viewerId: string, viewedId: string) =>
  countRows(
    "SELECT COUNT(*) n FROM profile_views WHERE viewer_id = ? AND viewed_id = ?",
    viewerId,
    viewedId,
  );

async function setLastSeen(id: string, lastSeenAt: string | null, hideOnline = false) {
  await env.DB.prepare("UPDATE users SET last_seen_at = ?, hide_online = ? WHERE id = ?")
    .bind(lastSeenAt, hideOnline ? 1 : 0, id)
    .run();
}

describe("GET /members/{username}", () => {
  it("answers the member card plus bio, interests, preferences, ageRange and photos", async () => {
    const target = await memberWithProfile(
      {
        firstName: "Ada",
        gender: "Woman",
        location: {
          country: { isoCode: "US", name: "United States" },
          state: { isoCode: "TX", name: "Texas", countryCode: "US" },
          city: { name: "Austin", countryCode: "US", stateCode: "TX" },
        },
      },
      { photos: 2 },
    );
    const viewer = await verifiedMember();
    const res = await viewer.client.json<{ member: Card & Record<string, unknown> }>(
      "GET",
      `/members/${target.details.username}`,
    );
    expect(res.status).toBe(200);
    const photos = (res.body.member.photos as { id: string }[]).map((p) => p.id);
    const exp = expiryOf(res.body.member.photo_url!);
    const main = await photoUrlsUntil(photos[0]!, target.id, exp);
    expect(res.body.member).toEqual({
      id: target.id,
      username: target.details.username,
      firstName: "Ada",
      age: 25,
      gender: "Woman",
      location: { country: "United States", state: "Texas", city: "Austin" },
      photo_url: main[720],
      photo_urls: main,
      online: false,
      last_seen_at: null,
      verified: false,
      bio: "I love long walks and short queues.",
      interests: ["Hiking", "Coffee"],
      preferences: ["Long-term relationship"],
      ageRange: { min: 25, max: 40 },
      prompts: [],
      distance_km: null,
      travelling: false,
      photos: await Promise.all(
        photos.map((id, position) => listedPhoto(id, target.id, position, exp)),
      ),
    });
    // Nothing private leaks into the card.
    expect(JSON.stringify(res.body)).not.toContain(target.details.email);
    expect(JSON.stringify(res.body)).not.toContain(target.details.dateOfBirth);
  });

  it("finds the username case-insensitively", async () => {
    const target = await memberWithProfile();
    const viewer = await verifiedMember();
    const res = await viewer.client.json(
      "GET",
      `/members/${target.details.username.toUpperCase()}`,
    );
    expect(res.status).toBe(200);
  });

  it("is online when seen within the online window (app/lib/online.ts) and not hiding it", async () => {
    const target = await memberWithProfile();
    const viewer = await verifiedMember();
    const fetchCard = async () =>
      (await viewer.client.json<{ member: Card }>("GET", `/members/${target.details.username}`))
        .body.member;

    const recent = new Date(Date.now() - ONLINE_WINDOW_MS + 60_000).toISOString();
    await setLastSeen(target.id, recent);
    expect(await fetchCard()).toMatchObject({ online: true, last_seen_at: recent });

    const stale = new Date(Date.now() - ONLINE_WINDOW_MS - 60_000).toISOString();
    await setLastSeen(target.id, stale);
    expect(await fetchCard()).toMatchObject({ online: false, last_seen_at: stale });

    await setLastSeen(target.id, new Date().toISOString(), true);
    expect(await fetchCard()).toMatchObject({ online: false, last_seen_at: null });
  });

  it("is 404 for unknown, unverified and suspended members", async () => {
    const viewer = await verifiedMember();
    expect((await viewer.client.json("GET", "/members/nobody_here")).status).toBe(404);
    const unverified = await registerMember();
    expect(
      (await viewer.client.json("GET", `/members/${unverified.details.username}`)).status,
    ).toBe(404);
    const suspended = await memberWithProfile();
    await env.DB.prepare("UPDATE users SET status = 'suspended' WHERE id = ?")
      .bind(suspended.id)
      .run();
    expect((await viewer.client.json("GET", `/members/${suspended.details.username}`)).status).toBe(
      404,
    );
    expect(
      await countRows("SELECT COUNT(*) n FROM profile_views WHERE viewer_id = ?", viewer.id),
    ).toBe(0);
  });

  it("needs a signed-in member with a verified email", async () => {
    const target = await memberWithProfile();
    const visitor = new TestClient();
    expect((await visitor.json("GET", `/members/${target.details.username}`)).status).toBe(401);
    const unverified = await registerMember();
    const res = await unverified.client.json<{ message: string }>(
      "GET",
      `/members/${target.details.username}`,
    );
    expect(res.status).toBe(403);
    expect(res.body.message).toBe("Your email address is not verified.");
    const page = await unverified.client.fetch(`/members/${target.details.username}`, {
      headers: { Accept: "text/html" },
    });
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toBe("/verify-email");
  });

  it("renders the public profile page", async () => {
    const target = await memberWithProfile({ firstName: "Ada", gender: "Woman" }, { photos: 1 });
    const viewer = await verifiedMember();
    const res = await viewer.client.fetch(`/members/${target.details.username}`, {
      headers: { Accept: "text/html" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    const html = await res.text();
    expect(html).toContain("<title>Ada - Heartline</title>");
    expect(html).toContain("I love long walks and short queues.");
    expect(html).toContain("Hiking");
    expect(html).toContain("Long-term relationship");
    // The main photo, at the width a profile shows it.
    // The main photo at 720, by its signed address (docs/decisions/043).
    expect(html).toMatch(
      /src="\/photos\/[a-z0-9]+\?w=720&amp;m=[a-z0-9]+&amp;exp=\d+&amp;sig=[\w-]{22}"/,
    );

    const missing = await viewer.client.fetch("/members/nobody_here", {
      headers: { Accept: "text/html" },
    });
    expect(missing.status).toBe(404);
  });
});

describe("memberCards", () => {
  it("answers cards in the order asked, skipping unknown ids, past D1's 100-value limit", async () => {
    const a = await memberWithProfile({ firstName: "A" });
    const b = await memberWithProfile({ firstName: "B" });
    const unknown = Array.from({ length: 150 }, (_, i) => `unknown${i}`);
    const cards = await memberCards(env, [b.id, ...unknown, a.id, b.id]);
    expect(cards.map((c) => c.firstName)).toEqual(["B", "A", "B"]);
  });
});

describe("profile views", () => {
  it("records one view per viewer and day, through the page and the JSON alike", async () => {
    const target = await memberWithProfile();
    const viewer = await verifiedMember();
    const path = `/members/${target.details.username}`;
    await viewer.client.json("GET", path);
    await viewer.client.fetch(path, { headers: { Accept: "text/html" } });
    await viewer.client.json("GET", path);
    expect(await viewRows(viewer.id, target.id)).toBe(1);
    const row = await env.DB.prepare("SELECT day, viewed_at FROM profile_views WHERE viewer_id = ?")
      .bind(viewer.id)
      .first<{ day: string; viewed_at: string }>();
    expect(row!.day).toBe(new Date().toISOString().slice(0, 10));
    expect(row!.viewed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("records nothing when a member views themself, or for a link prefetch", async () => {
    const me = await memberWithProfile();
    expect((await me.client.json("GET", `/members/${me.details.username}`)).status).toBe(200);
    expect(await viewRows(me.id, me.id)).toBe(0);

    const target = await memberWithProfile();
    await me.client.fetch(`/members/${target.details.username}`, {
      headers: { Accept: "text/html", "Sec-Purpose": "prefetch" },
    });
    expect(await viewRows(me.id, target.id)).toBe(0);
  });

  it("lists viewers newest first with total_count of distinct viewers", async () => {
    const target = await memberWithProfile();
    const first = await memberWithProfile({ firstName: "First" });
    const second = await memberWithProfile({ firstName: "Second" });
    await first.client.json("GET", `/members/${target.details.username}`);
    await second.client.json("GET", `/members/${target.details.username}`);
    // An earlier day's view of the first viewer adds a row but not a viewer.
    await env.DB.prepare(
      "INSERT INTO profile_views (viewer_id, viewed_id, day, viewed_at) VALUES (?, ?, '2020-01-01', '2020-01-01T10:00:00.000Z')",
    )
      .bind(first.id, target.id)
      .run();
    await env.DB.prepare(
      "UPDATE profile_views SET viewed_at = '2030-01-01T00:00:00.000Z' WHERE viewer_id = ? AND day <> '2020-01-01'",
    )
      .bind(second.id)
      .run();

    const res = await target.client.json<Viewers>("GET", "/my/profile-viewers");
    expect(res.status).toBe(200);
    expect(res.body.total_count).toBe(2);
    expect(res.body.viewers.map((v) => v.firstName)).toEqual(["Second", "First"]);
    expect(res.body.viewers[0]).toMatchObject({
      id: second.id,
      username: second.details.username,
      age: 25,
      photo_url: null,
      online: false,
      viewed_at: "2030-01-01T00:00:00.000Z",
    });
    expect(res.body.meta).toEqual({ page: 1, per_page: 20, has_more: false });

    // Revisiting moves the viewer to the top.
    await env.DB.prepare(
      "UPDATE profile_views SET viewed_at = '2031-01-01T00:00:00.000Z' WHERE viewer_id = ? AND day <> '2020-01-01'",
    )
      .bind(first.id)
      .run();
    const again = await target.client.json<Viewers>("GET", "/my/profile-viewers");
    expect(again.body.viewers.map((v) => v.firstName)).toEqual(["First", "Second"]);
  });

  it("pages the viewers", async () => {
    const target = await memberWithProfile();
    const viewers = [];
    for (let i = 0; i < 3; i++) viewers.push(await verifiedMember());
    for (const v of viewers) await v.client.json("GET", `/members/${target.details.username}`);
    const page1 = await target.client.json<Viewers>("GET", "/my/profile-viewers?per_page=2");
    expect(page1.body.viewers).toHaveLength(2);
    expect(page1.body.meta).toEqual({ page: 1, per_page: 2, has_more: true });
    expect(page1.body.total_count).toBe(3);
    const page2 = await target.client.json<Viewers>("GET", "/my/profile-viewers?per_page=2&page=2");
    expect(page2.body.viewers).toHaveLength(1);
    expect(page2.body.meta.has_more).toBe(false);
    const ids = [...page1.body.viewers, ...page2.body.viewers].map((v) => v.id).sort();
    expect(ids).toEqual(viewers.map((v) => v.id).sort());
    // Nonsense paging falls back to the first page of the default size.
    const odd = await target.client.json<Viewers>("GET", "/my/profile-viewers?page=-4&per_page=x");
    expect(odd.body.meta).toEqual({ page: 1, per_page: 20, has_more: false });
  });

  it("leaves out viewers who can no longer be seen", async () => {
    const target = await memberWithProfile();
    const viewer = await memberWithProfile();
    await viewer.client.json("GET", `/members/${target.details.username}`);
    await env.DB.prepare("UPDATE users SET status = 'suspended' WHERE id = ?")
      .bind(viewer.id)
      .run();
    const res = await target.client.json<Viewers>("GET", "/my/profile-viewers");
    expect(res.body).toMatchObject({ viewers: [], total_count: 0 });
  });

  it("needs a verified email", async () => {
    const unverified = await registerMember();
    expect((await unverified.client.json("GET", "/my/profile-viewers")).status).toBe(403);
    expect((await new TestClient().json("GET", "/my/profile-viewers")).status).toBe(401);
  });

  it("shows the viewers on the own-profile page", async () => {
    const target = await memberWithProfile();
    const viewer = await memberWithProfile({ firstName: "Visitor" });
    await viewer.client.json("GET", `/members/${target.details.username}`);
    const html = await (
      await target.client.fetch("/my/profile", { headers: { Accept: "text/html" } })
    ).text();
    expect(html).toContain("1 viewer");
    expect(html).toContain(`href="/members/${viewer.details.username}"`);
    expect(html).toContain("Visitor");
  });
});
