import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { searchRequestSchema } from "~/schemas/search";
import { FILL_PLACE_COORDINATES } from "~/server/places.server";
import { explainSearch } from "~/server/search.server";
import { END_LAPSED_TRAVEL } from "~/server/travel.server";
import { validProfile } from "../profile/fixtures";
import { foundIds, search, searcher, seedMember, setProfile, setUser, TEXAS, US } from "./fixtures";

/**
 * Near me (docs/api.md "Distance, travel and prompts", docs/decisions/040): coordinates per place,
 * radius and distance sort in both searches, distances on cards, travel. Members of one test live
 * in a region no other test of this file uses, so that a radius finds only theirs.
 */

const AUSTIN: [number, number] = [30.27, -97.74];
const ROUND_ROCK: [number, number] = [30.51, -97.68];
const SAN_ANTONIO: [number, number] = [29.42, -98.49];
const DALLAS: [number, number] = [32.78, -96.81];
const HOBART: [number, number] = [-42.88, 147.33];
const LAUNCESTON: [number, number] = [-41.44, 147.13];
const DEVONPORT: [number, number] = [-41.21, 146.32];
const BURNIE: [number, number] = [-41.2, 145.81];

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

async function searcherAt(at: [number, number], options: Parameters<typeof searcher>[0] = {}) {
  const me = await searcher(options);
  await setProfile(me.id, { latitude: at[0], longitude: at[1] });
  return me;
}

async function pageThrough(
  client: Awaited<ReturnType<typeof searcher>>["client"],
  filters: Record<string, unknown>,
  perPage: number,
  afterFirstPage?: () => Promise<void>,
) {
  const pages: { id: string; distance_km: number | null }[][] = [];
  let cursor: string | null = null;
  for (let page = 1; page < 50; page++) {
    const res = await search(client, { filters, per_page: perPage, cursor });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.meta.page).toBe(page);
    pages.push(res.body.results.map((r) => ({ id: r.id, distance_km: r.distance_km })));
    expect(res.body.meta.cursor === null).toBe(!res.body.meta.has_more);
    if (!res.body.meta.has_more) break;
    cursor = res.body.meta.cursor;
    if (page === 1) await afterFirstPage?.();
  }
  return pages.flat();
}

describe("coordinates per place", () => {
  it("are the dataset's when a place is saved, and reach the search index", async () => {
    const me = await searcher();
    const res = await me.client.json("PUT", "/my/profile", {
      ...validProfile,
      location: {
        country: { isoCode: "US", name: "United States" },
        state: { isoCode: "TX", name: "Texas", countryCode: "US" },
        city: { name: "Round Rock", countryCode: "US", stateCode: "TX" },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const row = await env.DB.prepare(
      "SELECT p.latitude, p.longitude, s.x, s.cell FROM profiles p JOIN member_search s ON s.user_id = p.user_id AND s.valid_to IS NULL WHERE p.user_id = ?1",
    )
      .bind(me.id)
      .first<{ latitude: number; longitude: number; x: number; cell: number }>();
    expect([row!.latitude, row!.longitude]).toEqual(ROUND_ROCK);
    expect(row!.x).toBeCloseTo(
      Math.cos((30.51 * Math.PI) / 180) * Math.cos((-97.68 * Math.PI) / 180),
      9,
    );
    expect(row!.cell).toBe(120 * 360 + 82);

    // A state without a city takes the state's coordinates; no place, none.
    await me.client.json("PUT", "/my/profile", {
      location: {
        country: { isoCode: "US", name: "United States" },
        state: { isoCode: "TX", name: "Texas", countryCode: "US" },
        city: null,
      },
    });
    const state = await env.DB.prepare("SELECT latitude FROM profiles WHERE user_id = ?1")
      .bind(me.id)
      .first<{ latitude: number }>();
    expect(state!.latitude).not.toBeNull();
    expect(state!.latitude).not.toBe(ROUND_ROCK[0]);
    await me.client.json("PUT", "/my/profile", { location: null });
    const none = await env.DB.prepare("SELECT latitude, longitude FROM profiles WHERE user_id = ?1")
      .bind(me.id)
      .first();
    expect(none).toEqual({ latitude: null, longitude: null });
  });

  it("are filled for members who saved their place before, by a resumable step", async () => {
    const me = await searcherAt(AUSTIN);
    const earlier = await seedMember({ country: US, state: TEXAS, city: "Dallas" });
    expect(await foundIds(me.client, { filters: { distance_km: 500 } })).not.toContain(earlier.id);
    let result;
    do {
      result = await FILL_PLACE_COORDINATES.run(env, Date.now(), { batchSize: 50, maxBatches: 2 });
    } while (!result.done);
    const filled = await env.DB.prepare(
      "SELECT latitude, longitude FROM profiles WHERE user_id = ?1",
    )
      .bind(earlier.id)
      .first();
    expect(filled).toEqual({ latitude: DALLAS[0], longitude: DALLAS[1] });
    expect(await foundIds(me.client, { filters: { distance_km: 500 } })).toContain(earlier.id);
    // Finished: the next run reads nothing.
    expect(
      await FILL_PLACE_COORDINATES.run(env, Date.now(), { batchSize: 50, maxBatches: 2 }),
    ).toEqual({
      deleted: 0,
      batches: 0,
      done: true,
    });
  });
});

describe("search by distance", () => {
  it("finds members within the radius, with whole-kilometre distances on the cards", async () => {
    const me = await searcherAt(AUSTIN);
    const sameCity = await seedMember({ at: AUSTIN });
    const roundRock = await seedMember({ at: ROUND_ROCK });
    const sanAntonio = await seedMember({ at: SAN_ANTONIO });
    const dallas = await seedMember({ at: DALLAS });
    const nowhere = await seedMember({ bio: "nowhere" });

    const within50 = await foundIds(me.client, { filters: { distance_km: 50 } });
    expect(within50).toEqual(expect.arrayContaining([sameCity.id, roundRock.id]));
    expect(within50).not.toContain(sanAntonio.id);
    expect(within50).not.toContain(nowhere.id);
    const within150 = await foundIds(me.client, { filters: { distance_km: 150 } });
    expect(within150).toEqual(expect.arrayContaining([sameCity.id, roundRock.id, sanAntonio.id]));
    expect(within150).not.toContain(dallas.id);

    const res = await search(me.client, { filters: { distance_km: 500 }, per_page: 50 });
    const km = Object.fromEntries(res.body.results.map((r) => [r.id, r.distance_km]));
    expect(km[sameCity.id]).toBe(1);
    expect(Math.abs(km[roundRock.id]! - 27) / 27).toBeLessThan(0.1);
    expect(Math.abs(km[sanAntonio.id]! - 118) / 118).toBeLessThan(0.1);
    expect(Math.abs(km[dallas.id]! - 293) / 293).toBeLessThan(0.1);
    // Without a radius everyone is found; a member without a place has no distance.
    const all = await search(me.client, { keywords: "nowhere", per_page: 50 });
    const card = all.body.results.find((r) => r.id === nowhere.id);
    expect(card?.distance_km).toBeNull();
  });

  it("shows the distance on the public profile, and whether the member travels", async () => {
    const me = await searcherAt(AUSTIN);
    const near = await seedMember({ at: ROUND_ROCK });
    const nowhere = await seedMember({});
    const res = await me.client.json<{
      member: { distance_km: number | null; travelling: boolean };
    }>("GET", `/members/${near.username}`);
    expect(res.status).toBe(200);
    expect(Math.abs(res.body.member.distance_km! - 27) / 27).toBeLessThan(0.1);
    expect(res.body.member.travelling).toBe(false);
    const unknown = await me.client.json<{ member: { distance_km: number | null } }>(
      "GET",
      `/members/${nowhere.username}`,
    );
    expect(unknown.body.member.distance_km).toBeNull();
  });

  it("sorts by distance, nearest place first, and pages without repeats or gaps", async () => {
    const me = await searcherAt(HOBART);
    const hobart = [
      await seedMember({ at: HOBART, lastSeenAt: minutesAgo(1) }),
      await seedMember({ at: HOBART, lastSeenAt: minutesAgo(200) }),
      await seedMember({ at: HOBART, lastSeenAt: minutesAgo(4000) }),
    ];
    const launceston = [
      await seedMember({ at: LAUNCESTON, lastSeenAt: minutesAgo(2) }),
      await seedMember({ at: LAUNCESTON, lastSeenAt: minutesAgo(300) }),
    ];
    const devonport = [await seedMember({ at: DEVONPORT })];
    const burnie = [
      await seedMember({ at: BURNIE, lastSeenAt: minutesAgo(3) }),
      await seedMember({ at: BURNIE, lastSeenAt: minutesAgo(600) }),
    ];
    const mine = new Set([...hobart, ...launceston, ...devonport, ...burnie].map((m) => m.id));

    const filters = { distance_km: 400, sort: "distance" };
    const oneGo = (await pageThrough(me.client, filters, 50)).filter((r) => mine.has(r.id));
    expect(oneGo.map((r) => r.id)).toEqual(
      [...hobart, ...launceston, ...devonport, ...burnie].map((m) => m.id),
    );
    const distances = oneGo.map((r) => r.distance_km!);
    expect([...distances].sort((a, b) => a - b)).toEqual(distances);

    // Two at a time, while a member of the first place becomes active: nobody twice, nobody lost.
    const paged = await pageThrough(me.client, filters, 2, () =>
      setUser(hobart[2]!.id, { last_seen_at: new Date().toISOString() }),
    );
    const ids = paged.map((r) => r.id).filter((id) => mine.has(id));
    expect(ids).toEqual(oneGo.map((r) => r.id));
    expect(new Set(paged.map((r) => r.id)).size).toBe(paged.length);
  });

  it("sorted by distance with no radius looks as far as the largest radius", async () => {
    const me = await searcherAt(HOBART);
    const near = await seedMember({ at: LAUNCESTON });
    const far = await seedMember({ at: AUSTIN });
    const ids = (await pageThrough(me.client, { sort: "distance" }, 50)).map((r) => r.id);
    expect(ids).toContain(near.id);
    expect(ids).not.toContain(far.id);
  });

  it("keeps blocks, ages and hidden members exactly as every search does", async () => {
    const me = await searcherAt(BURNIE, { ageMin: 25, ageMax: 40 });
    const fine = await seedMember({ at: BURNIE, age: 30 });
    const tooOld = await seedMember({ at: BURNIE, age: 50 });
    const notMyAge = await seedMember({ at: BURNIE, age: 30, ageMin: 40, ageMax: 60 });
    const hidden = await seedMember({ at: BURNIE, age: 30 });
    await setUser(hidden.id, { hidden_by_reports: 1 });
    const blockedByMe = await seedMember({ at: BURNIE, age: 30 });
    const blocksMe = await seedMember({ at: BURNIE, age: 30 });
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO blocks (blocker_id, blocked_id, reason_type, created_at) VALUES (?1, ?2, 'spam', ?3)",
      ).bind(me.id, blockedByMe.id, new Date().toISOString()),
      env.DB.prepare(
        "INSERT INTO blocks (blocker_id, blocked_id, reason_type, created_at) VALUES (?1, ?2, 'spam', ?3)",
      ).bind(blocksMe.id, me.id, new Date().toISOString()),
    ]);
    for (const filters of [{ distance_km: 20 }, { distance_km: 20, sort: "distance" }]) {
      const ids = (await pageThrough(me.client, filters, 50)).map((r) => r.id);
      expect(ids, JSON.stringify(filters)).toContain(fine.id);
      for (const gone of [tooOld, notMyAge, hidden, blockedByMe, blocksMe, me]) {
        expect(ids, JSON.stringify(filters)).not.toContain(gone.id);
      }
    }
    // In the dashboard's search too.
    const dashboard = await search(
      me.client,
      { filters: { distance_km: 20 }, per_page: 50 },
      "dashboard",
    );
    expect(dashboard.body.results.map((r) => r.id)).toContain(fine.id);
  });

  it("sorts newest first and pages on", async () => {
    const me = await searcherAt(DEVONPORT);
    const made = [
      await seedMember({ at: DEVONPORT, joinedMinutesAgo: 5 }),
      await seedMember({ at: DEVONPORT, joinedMinutesAgo: 50 }),
      await seedMember({ at: DEVONPORT, joinedMinutesAgo: 500 }),
    ];
    const ids = (await pageThrough(me.client, { distance_km: 5, sort: "newest" }, 1))
      .map((r) => r.id)
      .filter((id) => made.some((m) => m.id === id));
    expect(ids).toEqual(made.map((m) => m.id));
  });

  it("answers 422 for a bad radius or sort, and without a place to search from", async () => {
    const me = await searcher();
    for (const distance_km of [0, 501, 2.5, "far"]) {
      const res = await search(me.client, { filters: { distance_km } });
      expect(res.status).toBe(422);
      expect(res.body.errors?.["filters.distance_km"] ?? res.body.errors?.distance_km).toEqual([
        "Choose a distance from 1 to 500 km.",
      ]);
    }
    const sort = await search(me.client, { filters: { sort: "random" } });
    expect(sort.status).toBe(422);
    const noPlace = await search(me.client, { filters: { distance_km: 30 } });
    expect(noPlace.status).toBe(422);
    expect(noPlace.body.errors?.distance_km).toEqual([
      "Add your location to your profile to search by distance.",
    ]);
    const noPlaceSort = await search(me.client, { filters: { sort: "distance" } });
    expect(noPlaceSort.body.errors?.sort).toEqual([
      "Add your location to your profile to search by distance.",
    ]);
    // GET takes them as query parameters, like every filter.
    const get = await me.client.json("GET", "/my/matches/search?distance_km=0");
    expect(get.status).toBe(422);
  });

  it("reads indexes for every radius and sort (query plans)", async () => {
    const me = await searcherAt(AUSTIN);
    for (const keywords of ["", "index"])
      for (const gender of [undefined, "woman"])
        for (const ages of [{}, { age_min: 20, age_max: 30 }])
          for (const sort of ["active", "distance", "newest"])
            for (const distance_km of [undefined, 30, 500]) {
              const request = searchRequestSchema.parse({
                keywords,
                filters: { gender, ...ages, sort, distance_km },
              });
              const plans = await explainSearch(env, me.id, request);
              const label = JSON.stringify(request);
              for (const [name, lines] of Object.entries(plans)) {
                for (const line of lines) {
                  expect(line, `${name} ${label}`).not.toMatch(/^SCAN s\b(?! VIRTUAL)/);
                  expect(line, `${name} ${label}`).not.toMatch(
                    /^SCAN (member_search|member_places|users|profiles|p)\b/,
                  );
                }
              }
              const radius = distance_km !== undefined || sort === "distance";
              if (radius) {
                expect(plans.cover!.join(" "), label).toMatch(
                  /SEARCH s USING COVERING INDEX member_search_by_cell \(cell=\?/,
                );
                expect(plans.fts?.[0] ?? null, label).toMatch(/^SCAN f VIRTUAL TABLE INDEX/);
              }
              if (sort === "distance") {
                expect(plans.nearPlaces!.join(" "), label).toMatch(
                  /SEARCH p USING COVERING INDEX member_places_by_cell \(cell=\?\)/,
                );
                expect(plans.nearMembers!.join(" "), label).toMatch(
                  /SEARCH s USING INDEX member_search_at_point \(x=\? AND y=\? AND z=\?/,
                );
                expect(plans.nearMembers!.join(" "), label).not.toMatch(/TEMP B-TREE/);
              }
              if (sort === "newest") {
                expect(plans.newest!.join(" "), label).toMatch(
                  /SCAN s USING INDEX member_search_newest|SEARCH s USING INDEX member_search_newest/,
                );
                expect(plans.newest!.join(" "), label).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
              }
            }
  });
});

describe("travel", () => {
  const TASMANIA = { country: "AU", state: "TAS", city: "Launceston" };

  it("is a perk: free members get 403 and nothing changes", async () => {
    const me = await searcherAt(AUSTIN, { subscribed: false });
    const res = await me.client.json("PUT", "/my/travel", TASMANIA);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "Travel is part of a subscription." });
    expect((await me.client.json("GET", "/my/travel")).body).toEqual({ travel: null });
  });

  it("validates the place against the dataset", async () => {
    const me = await searcherAt(AUSTIN);
    const unknown = await me.client.json("PUT", "/my/travel", {
      country: "AU",
      state: "TAS",
      city: "Atlantis",
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ city: ["Choose a city from the list."] });
    const noState = await me.client.json("PUT", "/my/travel", { country: "AU", city: "Hobart" });
    expect(noState.status).toBe(422);
    expect(noState.body.errors).toEqual({ city: ["Choose a state before a city."] });
    const country = await me.client.json("PUT", "/my/travel", { country: "XX" });
    expect(country.status).toBe(422);
  });

  it("moves where a subscriber searches from and is found, seen from both sides, until ended", async () => {
    const me = await searcherAt(AUSTIN);
    const local = await searcherAt(LAUNCESTON);
    const there = await seedMember({ at: LAUNCESTON, age: 30 });
    expect(await foundIds(local.client, { filters: { distance_km: 10 } })).not.toContain(me.id);

    const res = await me.client.json("PUT", "/my/travel", TASMANIA);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      travel: {
        country: { isoCode: "AU", name: "Australia" },
        state: { isoCode: "TAS", name: "Tasmania" },
        city: { name: "Launceston" },
        started_at: expect.stringMatching(/Z$/),
      },
    });
    // I search from there...
    const mine = await search(me.client, { filters: { distance_km: 10 }, per_page: 50 });
    const found = mine.body.results.find((r) => r.id === there.id);
    expect(found?.distance_km).toBe(1);
    // ...and members there find me, travelling, by radius and by place.
    const theirs = await search(local.client, { filters: { distance_km: 10 }, per_page: 50 });
    const meThere = theirs.body.results.find((r) => r.id === me.id);
    expect(meThere).toMatchObject({ travelling: true, distance_km: 1 });
    expect(
      await foundIds(local.client, {
        filters: { country: "AU", state: "TAS", city: "Launceston" },
      }),
    ).toContain(me.id);
    // Not at home any more.
    const home = await searcherAt(AUSTIN);
    expect(await foundIds(home.client, { filters: { distance_km: 10 } })).not.toContain(me.id);

    expect((await me.client.json("DELETE", "/my/travel")).status).toBe(204);
    expect(await foundIds(local.client, { filters: { distance_km: 10 } })).not.toContain(me.id);
    const back = await search(home.client, { filters: { distance_km: 10 }, per_page: 50 });
    expect(back.body.results.find((r) => r.id === me.id)).toMatchObject({ travelling: false });
    expect((await me.client.json("GET", "/my/travel")).body).toEqual({ travel: null });
  });

  it("ends when the subscription's perks end", async () => {
    const me = await searcherAt(AUSTIN);
    expect((await me.client.json("PUT", "/my/travel", TASMANIA)).status).toBe(200);
    await env.DB.prepare(
      "UPDATE subscriptions SET status = 'expired', current_period_end = ?2 WHERE user_id = ?1",
    )
      .bind(me.id, new Date(Date.now() - 86_400_000 * 30).toISOString())
      .run();
    await END_LAPSED_TRAVEL.run(env, Date.now(), { batchSize: 10, maxBatches: 10 });
    expect((await me.client.json("GET", "/my/travel")).body).toEqual({ travel: null });
    const local = await searcherAt(LAUNCESTON);
    expect(await foundIds(local.client, { filters: { distance_km: 10 } })).not.toContain(me.id);
  });
});
