import { describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { registerMember } from "../helpers/members";
import { expiryOf, photoUrlsUntil } from "../helpers/photo-urls";
import {
  foundIds,
  OHIO,
  search,
  searcher,
  SE,
  seedMember,
  setProfile,
  setUser,
  TEXAS,
  US,
} from "./fixtures";

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

/** A word no other test uses (the database is shared by the tests of a file). */
const uniqueWord = () =>
  `w${Array.from({ length: 8 }, () => "abcdefghijklmnopqrstuvwxyz"[Math.floor(Math.random() * 26)]).join("")}`;

describe("search: who is never found", () => {
  it("leaves out the searcher, unverified and suspended members", async () => {
    const me = await searcher();
    const visible = await seedMember({ firstName: "Visible" });
    const unverified = await seedMember({ verified: false });
    const suspended = await seedMember({ status: "suspended" });
    const ids = await foundIds(me.client);
    expect(ids).toContain(visible.id);
    expect(ids).not.toContain(me.id);
    expect(ids).not.toContain(unverified.id);
    expect(ids).not.toContain(suspended.id);

    // Verifying makes a member searchable; suspending hides them at once.
    await setUser(unverified.id, { email_verified_at: new Date().toISOString() });
    await setUser(visible.id, { status: "suspended" });
    const after = await foundIds(me.client);
    expect(after).toContain(unverified.id);
    expect(after).not.toContain(visible.id);
  });

  it("leaves out members either side has blocked, and finds them again after unblocking", async () => {
    const me = await searcher();
    const iBlocked = await registerVerified();
    const blockedMe = await registerVerified();
    const other = await seedMember();
    expect(
      (await me.client.json("POST", "/my/block", { user_id: iBlocked.id, reason_type: "spam" }))
        .status,
    ).toBe(200);
    expect(
      (await blockedMe.client.json("POST", "/my/block", { user_id: me.id, reason_type: "other" }))
        .status,
    ).toBe(200);
    const ids = await foundIds(me.client);
    expect(ids).toContain(other.id);
    expect(ids).not.toContain(iBlocked.id);
    expect(ids).not.toContain(blockedMe.id);
    // Both ways: the blocked members do not find me either.
    expect(await foundIds(iBlocked.client)).not.toContain(me.id);
    expect(await foundIds(blockedMe.client)).not.toContain(me.id);

    await me.client.json("DELETE", `/my/block/${iBlocked.id}`);
    expect(await foundIds(me.client)).toContain(iBlocked.id);
  });
});

async function registerVerified() {
  const { verifiedMember } = await import("../helpers/members");
  return verifiedMember();
}

describe("search: ages both ways", () => {
  it("respects my desired range and theirs (mutual fit)", async () => {
    const me = await searcher({ age: 30, ageMin: 25, ageMax: 35 });
    const inRange = await seedMember({ age: 28, ageMin: 25, ageMax: 40 });
    const atMin = await seedMember({ age: 25 });
    const atMax = await seedMember({ age: 35 });
    const tooYoung = await seedMember({ age: 24 });
    const tooOld = await seedMember({ age: 36 });
    const wantsOlder = await seedMember({ age: 29, ageMin: 31, ageMax: 45 });
    const wantsYounger = await seedMember({ age: 29, ageMin: 18, ageMax: 29 });
    const ids = await foundIds(me.client);
    expect(ids).toEqual(expect.arrayContaining([inRange.id, atMin.id, atMax.id]));
    for (const m of [tooYoung, tooOld, wantsOlder, wantsYounger]) expect(ids).not.toContain(m.id);
  });

  it("lets the age filters replace my range, and still respects theirs", async () => {
    const me = await searcher({ age: 30, ageMin: 25, ageMax: 35 });
    const fifty = await seedMember({ age: 50 });
    const fiftyNotForMe = await seedMember({ age: 50, ageMin: 40, ageMax: 60 });
    const twentyEight = await seedMember({ age: 28 });
    const ids = await foundIds(me.client, { filters: { age_min: 45, age_max: 55 } });
    expect(ids).toContain(fifty.id);
    expect(ids).not.toContain(fiftyNotForMe.id);
    expect(ids).not.toContain(twentyEight.id);
    // One bound alone: the other is open.
    const older = await foundIds(me.client, { filters: { age_min: 45 } });
    expect(older).toContain(fifty.id);
    expect(older).not.toContain(twentyEight.id);
  });
});

describe("search: filters", () => {
  it("filters by gender, case-insensitively", async () => {
    const me = await searcher();
    const woman = await seedMember({ gender: "Woman" });
    const man = await seedMember({ gender: "man" });
    const ids = await foundIds(me.client, { filters: { gender: "woman" } });
    expect(ids).toContain(woman.id);
    expect(ids).not.toContain(man.id);
  });

  it("filters by country, state and city", async () => {
    const me = await searcher();
    const austin = await seedMember({ country: US, state: TEXAS, city: "Austin" });
    const dallas = await seedMember({ country: US, state: TEXAS, city: "Dallas" });
    const ohio = await seedMember({ country: US, state: OHIO, city: "Columbus" });
    const sweden = await seedMember({ country: SE });
    const country = await foundIds(me.client, { filters: { country: "us" } });
    expect(country).toEqual(expect.arrayContaining([austin.id, dallas.id, ohio.id]));
    expect(country).not.toContain(sweden.id);
    const state = await foundIds(me.client, { filters: { country: "US", state: "TX" } });
    expect(state).toEqual(expect.arrayContaining([austin.id, dallas.id]));
    expect(state).not.toContain(ohio.id);
    const city = await foundIds(me.client, {
      filters: { country: "US", state: "TX", city: "austin" },
    });
    expect(city).toContain(austin.id);
    expect(city).not.toContain(dallas.id);
  });

  it("filters by interests (any of, whole interests, any case)", async () => {
    const me = await searcher();
    const jazz = await seedMember({ interests: ["Jazz", "Hiking"] });
    const music = await seedMember({ interests: ["Live music"] });
    const jazzFusion = await seedMember({ interests: ["Jazz fusion"] });
    const cafe = await seedMember({ interests: ["Café culture"] });
    const ids = await foundIds(me.client, { filters: { interests: ["jazz", "LIVE MUSIC"] } });
    expect(ids).toEqual(expect.arrayContaining([jazz.id, music.id]));
    expect(ids).not.toContain(jazzFusion.id);
    expect(await foundIds(me.client, { filters: { interests: ["Café culture"] } })).toEqual([
      cafe.id,
    ]);
  });

  it("filters to members online now (not those who hide it)", async () => {
    const me = await searcher();
    const online = await seedMember({ lastSeenAt: minutesAgo(1) });
    const hidden = await seedMember({ lastSeenAt: minutesAgo(1), hideOnline: true });
    const away = await seedMember({ lastSeenAt: minutesAgo(30) });
    const never = await seedMember();
    const ids = await foundIds(me.client, { filters: { online_only: true } });
    expect(ids).toContain(online.id);
    for (const m of [hidden, away, never]) expect(ids).not.toContain(m.id);
    // A heartbeat brings a member back.
    await setUser(away.id, { last_seen_at: new Date().toISOString() });
    expect(await foundIds(me.client, { filters: { online_only: true } })).toContain(away.id);
  });

  it("filters to members with a photo", async () => {
    const me = await searcher();
    const withPhoto = await seedMember({ photo: true });
    const without = await seedMember();
    const ids = await foundIds(me.client, { filters: { with_photo: true } });
    expect(ids).toContain(withPhoto.id);
    expect(ids).not.toContain(without.id);
  });

  it("combines filters and keywords", async () => {
    const me = await searcher();
    const match = await seedMember({
      gender: "woman",
      country: US,
      state: TEXAS,
      city: "Austin",
      bio: "Sailing every weekend",
      photo: true,
      interests: ["Sailing"],
    });
    await seedMember({
      gender: "woman",
      country: US,
      state: TEXAS,
      city: "Austin",
      bio: "Cooking",
    });
    await seedMember({ gender: "man", country: US, state: TEXAS, city: "Austin", bio: "Sailing" });
    const ids = await foundIds(me.client, {
      keywords: "sail",
      filters: {
        gender: "Woman",
        country: "US",
        state: "TX",
        city: "Austin",
        with_photo: true,
        interests: ["sailing"],
        age_min: 25,
        age_max: 35,
      },
    });
    expect(ids).toEqual([match.id]);
  });

  it("finds a member by keywords or interests in the place they moved to, not the one they left", async () => {
    const me = await searcher();
    const mover = await seedMember({
      country: US,
      state: TEXAS,
      city: "Austin",
      bio: "Kayaking on weekends",
      interests: ["Kayaking"],
    });
    const inAustin = { country: "US", state: "TX", city: "Austin" };
    const inColumbus = { country: "US", state: "OH", city: "Columbus" };
    expect(await foundIds(me.client, { keywords: "kayak", filters: inAustin })).toEqual([mover.id]);
    await setProfile(mover.id, { state_code: "OH", city_name: "Columbus" });
    expect(await foundIds(me.client, { keywords: "kayak", filters: inAustin })).toEqual([]);
    expect(await foundIds(me.client, { keywords: "kayak", filters: inColumbus })).toEqual([
      mover.id,
    ]);
    expect(
      await foundIds(me.client, { filters: { ...inColumbus, interests: ["kayaking"] } }),
    ).toEqual([mover.id]);
    expect(
      await foundIds(me.client, { filters: { ...inAustin, interests: ["kayaking"] } }),
    ).toEqual([]);
  });
  it("finds a member by keywords with a gender and a place after they change their gender", async () => {
    const me = await searcher();
    const word = uniqueWord();
    const member = await seedMember({
      gender: "woman",
      country: US,
      state: TEXAS,
      city: "Austin",
      bio: `${word} at dawn`,
    });
    const asWoman = { gender: "woman", country: "US" };
    const asMan = { gender: "man", country: "US", state: "TX" };
    expect(await foundIds(me.client, { keywords: word, filters: asWoman })).toEqual([member.id]);
    expect(await foundIds(me.client, { keywords: word, filters: asMan })).toEqual([]);
    await setProfile(member.id, { gender: "Man" });
    expect(await foundIds(me.client, { keywords: word, filters: asWoman })).toEqual([]);
    expect(await foundIds(me.client, { keywords: word, filters: asMan })).toEqual([member.id]);
    expect(
      await foundIds(me.client, { keywords: word, filters: { ...asMan, city: "Austin" } }),
    ).toEqual([member.id]);
  });

  it("tells apart namesake places: a city of the same name in another state", async () => {
    const me = await searcher();
    const word = uniqueWord();
    const inOhio = await seedMember({
      country: US,
      state: OHIO,
      city: "Columbus",
      bio: `${word} on the river`,
      interests: [word],
    });
    const inTexas = await seedMember({
      country: US,
      state: TEXAS,
      city: "Columbus",
      bio: `${word} on the river`,
      interests: [word],
    });
    const ohio = { country: "US", state: "OH", city: "Columbus" };
    const texas = { country: "US", state: "TX", city: "Columbus" };
    expect(await foundIds(me.client, { keywords: word, filters: ohio })).toEqual([inOhio.id]);
    expect(await foundIds(me.client, { keywords: word, filters: texas })).toEqual([inTexas.id]);
    expect(await foundIds(me.client, { filters: { ...ohio, interests: [word] } })).toEqual([
      inOhio.id,
    ]);
    expect(
      await foundIds(me.client, { keywords: word, filters: { country: "US", state: "TX" } }),
    ).toEqual([inTexas.id]);
  });
});

describe("search: keywords", () => {
  it("match username, first name, bio and interests, by word start, all words required", async () => {
    const me = await searcher();
    const byUsername = await seedMember({ username: "zephyr_rider" });
    const byName = await seedMember({ firstName: "Quintessa" });
    const byBio = await seedMember({ bio: "I restore vintage motorcycles on weekends." });
    const byInterest = await seedMember({ interests: ["Origami"] });
    const both = await seedMember({ firstName: "Marlowe", bio: "Origami and tea" });
    await seedMember({ bio: "Nothing to see" });

    expect(await foundIds(me.client, { keywords: "zephyr" })).toEqual([byUsername.id]);
    expect(await foundIds(me.client, { keywords: "zephyr_rider" })).toEqual([byUsername.id]);
    expect(await foundIds(me.client, { keywords: "QUINTESSA" })).toEqual([byName.id]);
    expect(await foundIds(me.client, { keywords: "motorcyc" })).toEqual([byBio.id]);
    expect((await foundIds(me.client, { keywords: "origami" })).sort()).toEqual(
      [byInterest.id, both.id].sort(),
    );
    expect(await foundIds(me.client, { keywords: "origami marlowe" })).toEqual([both.id]);
    expect(await foundIds(me.client, { keywords: "origami nobodyhasthis" })).toEqual([]);
  });

  it("ignores accents and treats search syntax as plain words", async () => {
    const me = await searcher();
    const word = uniqueWord();
    const cafe = await seedMember({ bio: `Café crawls and crêpes ${word}` });
    expect(await foundIds(me.client, { keywords: `cafe ${word}` })).toEqual([cafe.id]);
    expect(await foundIds(me.client, { keywords: `CRÊPES ${word}` })).toEqual([cafe.id]);
    for (const keywords of ['"', "*", "cafe OR", "NEAR(cafe", "-cafe", "{bio}: cafe", "'; DROP"]) {
      const res = await search(me.client, { keywords });
      expect(res.status, keywords).toBe(200);
    }
    // Words only: punctuation is not search syntax.
    expect(await foundIds(me.client, { keywords: `(cafe) "${word}"` })).toEqual([cafe.id]);
  });

  it("matches a keyword longer than eight letters by its first eight (docs/decisions/016)", async () => {
    const me = await searcher();
    const stem = uniqueWord().slice(0, 8);
    const photographer = await seedMember({ bio: `Wedding ${stem}er by day` });
    const photography = await seedMember({ interests: [`${stem}y`] });
    await seedMember({ bio: `${stem.slice(0, 7)} only seven letters` });
    expect((await foundIds(me.client, { keywords: `${stem}y` })).sort()).toEqual(
      [photographer.id, photography.id].sort(),
    );
    expect(await foundIds(me.client, { keywords: `${stem}er wedding` })).toEqual([photographer.id]);
    // Up to eight letters, a keyword is the prefix it always was.
    expect(await foundIds(me.client, { keywords: stem.slice(0, 3) })).toEqual(
      expect.arrayContaining([photographer.id, photography.id]),
    );
  });

  it("answers any letters, marks, digits and scripts as words, never as an error", async () => {
    const me = await searcher();
    const word = uniqueWord();
    const ecole = await seedMember({ bio: `École ${word} İstanbul Straße 日本語 x² ١٢٣` });
    const inputs = [
      "e\u0301cole",
      "x²",
      "Ⅻ",
      "١٢٣",
      "日本語",
      "🙂",
      "ǅ",
      "ﬁsh",
      "İstanbul",
      "STRASSE straße",
      "a\u200db",
      "\u0345",
      "\u0301\u0301",
      "ab\u0300\u0301\u0302cd",
      "한국어",
      "ไทย",
    ];
    for (const keywords of inputs) {
      const res = await search(me.client, { keywords: `${keywords} ${word}` });
      expect(res.status, keywords).toBe(200);
    }
    expect(await foundIds(me.client, { keywords: `ecole ${word}` })).toEqual([ecole.id]);
    expect(await foundIds(me.client, { keywords: `日本語 ${word}` })).toEqual([ecole.id]);
  });
});

describe("search: validation and access", () => {
  it("answers 422 with the messages for bad filters", async () => {
    const me = await searcher();
    const bad = await search(me.client, {
      keywords: "x".repeat(101),
      filters: {
        age_min: 17,
        age_max: 101,
        country: "USA",
        city: "Austin",
        interests: Array(11)
          .fill("a")
          .map((a, i) => `${a}${i}`),
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toMatchObject({
      keywords: ["Keywords may not be longer than 100 characters."],
      "filters.age_min": ["The minimum age must be between 18 and 100."],
      "filters.age_max": ["The maximum age must be between 18 and 100."],
      "filters.country": ["Choose a country from the list."],
      "filters.interests": ["Choose at most 10 interests."],
    });
    const order = await search(me.client, { filters: { age_min: 40, age_max: 30 } });
    expect(order.body.errors).toEqual({
      "filters.age_min": ["The minimum age cannot be more than the maximum age."],
    });
    const cityAlone = await search(me.client, { filters: { city: "Austin" } });
    expect(cityAlone.body.errors).toEqual({ "filters.city": ["Choose a state before a city."] });
    const stateAlone = await search(me.client, { filters: { state: "TX" } });
    expect(stateAlone.body.errors).toEqual({
      "filters.state": ["Choose a country before a state."],
    });
  });

  it("needs a signed-in member with a verified email, and the CSRF token", async () => {
    const anonymous = new TestClient();
    expect((await anonymous.json("GET", "/my/matches/search?keywords=a")).status).toBe(401);
    const unverified = await registerMember();
    expect((await search(unverified.client)).status).toBe(403);
    expect((await unverified.client.json("GET", "/dashboard/search")).status).toBe(403);
    const me = await searcher();
    expect((await me.client.json("POST", "/my/matches/search", {}, { csrf: null })).status).toBe(
      419,
    );
  });

  it("answers GET with query parameters like POST, on both the dashboard and the matches page", async () => {
    const me = await searcher();
    const city = uniqueWord();
    const austin = await seedMember({
      country: US,
      state: TEXAS,
      city,
      interests: ["Chess", "Go"],
    });
    await seedMember({ country: US, state: TEXAS, city, interests: ["Chess"] });
    await seedMember({ country: US, state: TEXAS, city: "Dallas", interests: ["Go"] });
    const qs = `country=US&state=TX&city=${city}&interests=go&interests=poker&with_photo=0`;
    for (const path of ["/my/matches/search", "/dashboard/search"]) {
      const res = await me.client.json<{ results: { id: string }[] }>("GET", `${path}?${qs}`);
      expect(res.status).toBe(200);
      expect(res.body.results.map((r) => r.id)).toEqual([austin.id]);
    }
    const dashboard = await search(
      me.client,
      { filters: { city, state: "TX", country: "US", interests: ["GO"] } },
      "dashboard",
    );
    expect(dashboard.body.results.map((r) => r.id)).toEqual([austin.id]);
  });

  it("returns search cards: the member card plus bio, interests, liked, distance, prompts", async () => {
    const me = await searcher();
    const word = uniqueWord();
    const member = await seedMember({
      firstName: "Ada",
      gender: "woman",
      age: 31,
      country: US,
      state: TEXAS,
      city: "Austin",
      bio: `Engines ${word}`,
      interests: ["Maths"],
      photo: true,
      lastSeenAt: minutesAgo(2),
    });
    const res = await search(me.client, { keywords: word });
    const card = res.body.results.find((r) => r.id === member.id);
    const urls = await photoUrlsUntil(`p${member.id}`, member.id, expiryOf(card!.photo_url!));
    expect(card).toEqual({
      id: member.id,
      username: member.username,
      firstName: "Ada",
      age: 31,
      gender: "woman",
      location: { country: "United States", state: "Texas", city: "Austin" },
      photo_url: urls[720],
      photo_urls: urls,
      online: true,
      last_seen_at: expect.stringMatching(/Z$/),
      verified: false,
      bio: `Engines ${word}`,
      interests: ["Maths"],
      liked: false,
      // The searcher has no place: no distance.
      distance_km: null,
      travelling: false,
      prompts: [],
    });
    expect(res.body.meta).toMatchObject({
      page: 1,
      per_page: 20,
      total: 1,
      total_capped: false,
      has_more: false,
      cursor: null,
    });
    expect(res.body.meta.as_of).toMatch(/Z$/);
  });

  it("builds the same cards on a first page and on a page loaded with the cursor, liked included", async () => {
    const me = await searcher();
    const word = uniqueWord();
    const older = await seedMember({ bio: `Kites ${word}`, lastSeenAt: minutesAgo(90) });
    const newer = await seedMember({ bio: `Kites ${word}`, lastSeenAt: minutesAgo(2) });
    for (const id of [older.id, newer.id]) {
      expect((await me.client.json("POST", "/my/likes", { user_id: id })).status).toBe(201);
    }
    const both = (await search(me.client, { keywords: word })).body.results;
    expect(both.map((r) => r.id)).toEqual([newer.id, older.id]);
    const first = await search(me.client, { keywords: word, per_page: 1 });
    const second = await search(me.client, {
      keywords: word,
      per_page: 1,
      cursor: first.body.meta.cursor,
    });
    expect(first.body.results).toEqual([both[0]]);
    expect(second.body.results).toEqual([both[1]]);
    expect(second.body.results[0]).toMatchObject({ liked: true, bio: `Kites ${word}` });
  });
});
