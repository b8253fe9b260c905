import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { searchFiltersSchema, SEARCH_TOTAL_CAP } from "~/schemas/search";
import { explainSearch } from "~/server/search.server";
import { buildContext, type SearchPlan } from "~/server/search/filters.server";
import { pageStatement } from "~/server/search/plans.server";
import { hmacSign } from "~/server/crypto.server";
import { statement } from "~/server/sql.server";
import { searchRequestSchema } from "~/schemas/search";
import { search, searcher, seedBulk, seedMember, setProfile, setUser, TEXAS, US } from "./fixtures";

/**
 * How the walk of a first page without keywords reads its keys: the partition of the narrowest
 * place, else of the gender, else the table, each in key order below the ceiling.
 */
function walkRead(place: { country?: string; state?: string; city?: string }, gender?: string) {
  if (place.city) {
    return "SEARCH s USING COVERING INDEX member_search_in_city (country=? AND state=? AND city=? AND rowid<?)";
  }
  if (place.state) {
    return "SEARCH s USING COVERING INDEX member_search_in_state (country=? AND state=? AND rowid<?)";
  }
  if (place.country) {
    return "SEARCH s USING COVERING INDEX member_search_in_country (country=? AND rowid<?)";
  }
  if (gender) return "SEARCH s USING COVERING INDEX member_search_of_gender (gender=? AND rowid<?)";
  return "SEARCH s USING INTEGER PRIMARY KEY (rowid<?)";
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();

/**
 * Pages through a search with the cursor, collecting every id in the order shown. `afterFirstPage`
 * changes members between the first and second pages; a search that ended on its first page
 * would never have seen those changes, so it fails.
 */
async function pageThrough(
  client: Awaited<ReturnType<typeof searcher>>["client"],
  body: { keywords?: string; filters?: Record<string, unknown> },
  perPage: number,
  afterFirstPage?: () => Promise<void>,
) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let page = 1;
  for (;;) {
    const res = await search(client, { ...body, per_page: perPage, page, cursor });
    if (res.status !== 200)
      throw new Error(`page ${page}: ${res.status} ${JSON.stringify(res.body)}`);
    expect(res.body.meta.page).toBe(page);
    expect(res.body.results.length).toBeLessThanOrEqual(perPage);
    ids.push(...res.body.results.map((r) => r.id));
    expect(res.body.meta.cursor === null).toBe(!res.body.meta.has_more);
    if (!res.body.meta.has_more) break;
    cursor = res.body.meta.cursor;
    if (page === 1) await afterFirstPage?.();
    page += 1;
  }
  if (afterFirstPage && page === 1) throw new Error("one page only: the changes were never seen");
  return ids;
}

describe("paging", () => {
  it("shows every member once, in order, while members join, come online and edit profiles", async () => {
    const me = await searcher();
    const city = "Pagingville";
    const members: { id: string; username: string }[] = [];
    // Different last-activity hours give a known order: most recently active first.
    for (let i = 0; i < 37; i++) {
      members.push(
        await seedMember({ country: US, state: TEXAS, city, lastSeenAt: hoursAgo(2 + i) }),
      );
    }
    const expected = members.map((m) => m.id);
    const query = { filters: { country: "US", state: "TX", city } };

    const ids = await pageThrough(me.client, query, 10, async () => {
      // New members join and one comes online: after the first page's time, so not shown.
      await seedMember({ country: US, state: TEXAS, city, lastSeenAt: new Date().toISOString() });
      await seedMember({ country: US, state: TEXAS, city });
      // Members not shown yet become active now (they move to the top of a fresh search)…
      await setUser(members[25]!.id, { last_seen_at: new Date().toISOString() });
      await setUser(members[30]!.id, { last_seen_at: new Date().toISOString() });
      // …a member already shown adds a photo and bio (a new key, further down)…
      await env.DB.prepare(
        "INSERT INTO photos (id, user_id, r2_key, content_type, size, position, etag) VALUES (?1, ?2, 'k', 'image/png', 1, 0, 'e')",
      )
        .bind(`photo-${members[3]!.id}`, members[3]!.id)
        .run();
      await setProfile(members[3]!.id, { bio: "Now with a bio" });
      // …and one not shown yet edits a field that does not change the order.
      await setProfile(members[20]!.id, { first_name: "Renamed" });
    });
    expect(ids).toEqual(expected);

    // A fresh search sees the new order: the members active now first, the new ones included.
    const fresh = await pageThrough(me.client, query, 50);
    expect(fresh).toHaveLength(39);
    expect(fresh.slice(0, 4)).toEqual(expect.arrayContaining([members[25]!.id, members[30]!.id]));
  });

  it("pages without repeats or gaps under churn when the first page walks the top rows (past the cap)", async () => {
    const me = await searcher();
    const city = "Walkford";
    const count = SEARCH_TOTAL_CAP + 30;
    // Each in an hour of their own: the expected order is the order of the rows.
    const rows = Array.from({ length: count }, (_, i) => ({
      id: `walk${String(i).padStart(4, "0")}`,
      username: `walk_${i}`,
      last_seen_at: hoursAgo(2 + i),
    }));
    await seedBulk(rows, { bio: "Walking the city", city });
    let expected = rows.map((r) => r.id);
    const place = { country: "US", state: "TX", city };
    // The partition of the city; the full-text matches; the full-text matches of the city (its
    // token in the query).
    const queries = [
      { filters: place },
      { keywords: "walking" },
      { keywords: "walk", filters: place },
    ];
    for (const [round, query] of queries.entries()) {
      const keywords = query.keywords ?? "";
      // Later rounds start from the order the earlier ones' changes made.
      if (round > 0) expected = await pageThrough(me.client, query, 50);
      expect(expected.length).toBeGreaterThan(SEARCH_TOTAL_CAP + 1);
      const first = await search(me.client, { ...query, per_page: 25 });
      expect(first.body.meta).toMatchObject({ total: SEARCH_TOTAL_CAP, total_capped: true });
      const changed = keywords ? 60 : 40;
      const ids = await pageThrough(me.client, query, 25, async () => {
        await seedMember({
          country: US,
          state: TEXAS,
          city,
          bio: "Walking in",
          lastSeenAt: new Date().toISOString(),
        });
        await setUser(expected[changed]!, { last_seen_at: new Date().toISOString() });
        await setUser(expected[3]!, { last_seen_at: new Date().toISOString() });
        await setProfile(expected[changed + 10]!, { first_name: "Renamed" });
      });
      expect(ids).toEqual(expected);
    }
  });

  it("hides members blocked or suspended between pages (never shows them again)", async () => {
    const me = await searcher();
    const city = "Blockburg";
    const members: { id: string; username: string }[] = [];
    for (let i = 0; i < 12; i++) {
      members.push(
        await seedMember({ country: US, state: TEXAS, city, lastSeenAt: hoursAgo(1 + i) }),
      );
    }
    const ids = await pageThrough(
      me.client,
      { filters: { country: "US", state: "TX", city } },
      5,
      async () => {
        await setUser(members[7]!.id, { status: "suspended" });
        await env.DB.prepare(
          "INSERT INTO blocks (blocker_id, blocked_id, reason_type) VALUES (?1, ?2, 'spam')",
        )
          .bind(members[9]!.id, me.id)
          .run();
      },
    );
    expect(ids).toEqual(members.map((m) => m.id).filter((_, i) => i !== 7 && i !== 9));
  });

  it("pages by page number alone (no cursor) on the current results", async () => {
    const me = await searcher();
    const city = "Offsetton";
    const members: { id: string; username: string }[] = [];
    for (let i = 0; i < 7; i++) {
      members.push(
        await seedMember({ country: US, state: TEXAS, city, lastSeenAt: hoursAgo(1 + i) }),
      );
    }
    const query = { filters: { country: "US", state: "TX", city }, per_page: 3 };
    const pages = [];
    for (const page of [1, 2, 3]) pages.push((await search(me.client, { ...query, page })).body);
    expect(pages.flatMap((p) => p.results.map((r) => r.id))).toEqual(members.map((m) => m.id));
    expect(pages.map((p) => p.meta.has_more)).toEqual([true, true, false]);
    expect(pages.map((p) => p.meta.total)).toEqual([7, 7, 7]);
    // A page past the last match is empty and still says how many there are, keywords or not.
    for (const keywords of ["", members[0]!.username]) {
      const past = (await search(me.client, { ...query, keywords, page: 4 })).body;
      expect(past.results).toEqual([]);
      expect(past.meta).toMatchObject({ page: 4, total: keywords ? 1 : 7, has_more: false });
      expect(past.meta.cursor).toBeNull();
      expect(Date.parse(past.meta.as_of)).toBeGreaterThan(Date.now() - 60_000);
    }
    // No match at all.
    const none = (await search(me.client, { ...query, keywords: "zzzqqq" })).body;
    expect(none.results).toEqual([]);
    expect(none.meta).toMatchObject({ total: 0, total_capped: false, has_more: false });
  });

  it("refuses a cursor from another search, a stale one, or a forged one", async () => {
    const me = await searcher();
    const city = "Cursorham";
    for (let i = 0; i < 4; i++) await seedMember({ country: US, state: TEXAS, city });
    const query = { filters: { country: "US", state: "TX", city }, per_page: 2 };
    const first = await search(me.client, query);
    const cursor = first.body.meta.cursor!;
    expect(cursor).toBeTruthy();
    const expired = { cursor: ["These results have expired. Please search again."] };
    const other = await search(me.client, { ...query, keywords: "other", cursor });
    expect(other).toMatchObject({ status: 422, body: { errors: expired } });
    const forged = await search(me.client, { ...query, cursor: "not-a-cursor" });
    expect(forged).toMatchObject({ status: 422, body: { errors: expired } });
    // Signed: a cursor changed by the client is refused…
    const [body] = cursor.split(".");
    const decoded = JSON.parse(atob(body!.replace(/-/g, "+").replace(/_/g, "/"))) as {
      t: number;
      age: number;
    };
    const encode = (value: unknown) =>
      btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    const tampered = `${encode({ ...decoded, age: 99 })}.${cursor.split(".")[1]}`;
    expect(await search(me.client, { ...query, cursor: tampered })).toMatchObject({ status: 422 });
    // …and so is one older than the snapshots the index keeps.
    const staleBody = encode({ ...decoded, t: decoded.t - 13 * 3_600_000 });
    const stale = `${staleBody}.${await hmacSign(env.APP_KEY, `search-cursor:${me.id}:${staleBody}`)}`;
    expect(await search(me.client, { ...query, cursor: stale })).toMatchObject({ status: 422 });
    // GET load more works with the cursor too.
    const more = await me.client.json<{ results: unknown[]; meta: { page: number } }>(
      "GET",
      `/my/matches/search?country=US&state=TX&city=${city}&per_page=2&cursor=${cursor}`,
    );
    expect(more.status).toBe(200);
    expect(more.body.meta.page).toBe(2);
    expect(more.body.results).toHaveLength(2);
  });
});

describe("totals and query plans", () => {
  it("counts up to the cap, then pages the table in key order", async () => {
    const me = await searcher();
    const city = "Bigtown";
    const count = SEARCH_TOTAL_CAP + 5;
    // Straight into the tables in bulk (the triggers index each one).
    const rows = Array.from({ length: count }, (_, i) => ({
      id: `big${i}`,
      username: `big_${i}`,
      last_seen_at: hoursAgo(1 + (i % 50)),
    }));
    await seedBulk(rows, { bio: "Big town life", city });
    const query = { filters: { country: "US", state: "TX", city }, per_page: 50 };
    const first = await search(me.client, query);
    expect(first.body.meta).toMatchObject({
      total: SEARCH_TOTAL_CAP,
      total_capped: true,
      has_more: true,
    });
    const seen = new Set<string>();
    let res = first;
    let pages = 1;
    for (;;) {
      for (const r of res.body.results) {
        expect(seen.has(r.id)).toBe(false);
        seen.add(r.id);
      }
      if (!res.body.meta.has_more) break;
      res = await search(me.client, { ...query, cursor: res.body.meta.cursor });
      pages += 1;
    }
    expect(seen.size).toBe(count);
    expect(pages).toBe(Math.ceil(count / 50));
    // With keywords the full-text index drives the same paging.
    const words = await search(me.client, { ...query, keywords: "big town" });
    expect(words.body.meta).toMatchObject({ total: SEARCH_TOTAL_CAP, total_capped: true });
    expect(words.body.results.map((r) => r.id)).toEqual(first.body.results.map((r) => r.id));
  });

  it("gives the same results in the same order under every plan", async () => {
    const me = await searcher({ age: 30, ageMin: 20, ageMax: 50 });
    const city = "Planfield";
    for (let i = 0; i < 23; i++) {
      await seedMember({
        country: US,
        state: TEXAS,
        city,
        age: 22 + i,
        ageMin: i % 5 === 0 ? 40 : 18,
        bio: i % 3 === 0 ? "Sailing and chess" : "Chess",
        interests: i % 2 === 0 ? ["Chess"] : ["Go"],
        photo: i % 4 !== 0,
        lastSeenAt: hoursAgo(i % 6),
      });
    }
    const profile = await env.DB.prepare(
      "SELECT date_of_birth AS dob, age_min AS ageMin, age_max AS ageMax FROM profiles WHERE user_id = ?1",
    )
      .bind(me.id)
      .first<{ dob: string; ageMin: number; ageMax: number }>();
    const asOf = Date.now();
    const filters = searchFiltersSchema.parse({
      country: "US",
      state: "TX",
      city,
      interests: ["chess"],
    });
    const context = buildContext(me.id, profile!, filters, "chess", asOf);
    const runWith = async (ctx: typeof context, plan: SearchPlan) => {
      const out: string[] = [];
      let after = Number.MAX_SAFE_INTEGER;
      for (;;) {
        const { results } = await statement(env.DB, pageStatement(ctx, plan, after, 4)).all<{
          sortKey: number;
          userId: string;
        }>();
        out.push(...results.map((r) => r.userId));
        if (results.length < 4) break;
        after = results[results.length - 1]!.sortKey;
      }
      return out;
    };
    const run = (plan: SearchPlan) => runWith(context, plan);
    const cover = await run("cover");
    expect(cover.length).toBeGreaterThan(4);
    expect(await run("pk")).toEqual(cover);
    // The full-text plan reads the matches of the city through its token in the query.
    expect(context.match).toContain(`"y${Buffer.from(city.toLowerCase()).toString("hex")}"`);
    expect(await run("fts")).toEqual(cover);
    // Online now: the same, among the members online.
    const online = buildContext(me.id, profile!, { ...filters, online_only: true }, "chess", asOf);
    const onlineCover = await runWith(online, "cover");
    expect(onlineCover.length).toBeGreaterThan(0);
    expect(await runWith(online, "online")).toEqual(onlineCover);
    expect(await runWith(online, "pk")).toEqual(onlineCover);
    // A narrow age range: the cover plan reads by lower bound (member_search_by_age_min).
    const narrow = buildContext(
      me.id,
      profile!,
      searchFiltersSchema.parse({ age_min: 26, age_max: 33 }),
      "",
      asOf,
    );
    const narrowCover = await runWith(narrow, "cover");
    expect(narrowCover.length).toBeGreaterThan(4);
    expect(await runWith(narrow, "pk")).toEqual(narrowCover);
  });

  it("reads an index for every filter combination the search form can make", async () => {
    const me = await searcher();
    await seedMember({ country: US, state: TEXAS, city: "Austin", bio: "Index me" });
    const options = {
      keywords: ["", "index"],
      gender: [undefined, "woman"],
      place: [
        {},
        { country: "US" },
        { country: "US", state: "TX" },
        { country: "US", state: "TX", city: "Austin" },
      ],
      interests: [[], ["Chess"]],
      online_only: [false, true],
      with_photo: [false, true],
      ages: [{}, { age_min: 20, age_max: 30 }, { age_min: 33, age_max: 35 }],
    };
    let combinations = 0;
    let narrowWithoutPlace = 0;
    for (const keywords of options.keywords)
      for (const gender of options.gender)
        for (const place of options.place)
          for (const interests of options.interests)
            for (const online_only of options.online_only)
              for (const with_photo of options.with_photo)
                for (const ages of options.ages) {
                  const request = searchRequestSchema.parse({
                    keywords,
                    filters: { gender, ...place, interests, online_only, with_photo, ...ages },
                  });
                  const plans = await explainSearch(env, me.id, request);
                  const label = JSON.stringify(request);
                  for (const [name, lines] of Object.entries(plans)) {
                    // No statement reads member_search from end to end.
                    for (const line of lines) {
                      expect(line, `${name} ${label}`).not.toMatch(/^SCAN s\b(?! VIRTUAL)/);
                      expect(line, `${name} ${label}`).not.toMatch(
                        /^SCAN (member_search|users|profiles)\b/,
                      );
                    }
                  }
                  expect(plans.pk![0], label).toMatch(
                    /^SEARCH s USING INTEGER PRIMARY KEY \((rowid=\?|(rowid>\? AND )?rowid<\?)\)$/,
                  );
                  expect(plans.cover!.join(" "), label).toMatch(
                    /SEARCH s USING (COVERING )?INDEX member_search_by_/,
                  );
                  // Which statements there are follows from the request; each reads its index.
                  const online = online_only;
                  const words = Boolean(keywords) || interests.length > 0;
                  expect(plans.online?.slice(0, 2) ?? null, label).toEqual(
                    online
                      ? [
                          expect.stringMatching(
                            /^SEARCH u USING (COVERING )?INDEX users_online \(last_seen_at>\?\)$/,
                          ),
                          "SEARCH s USING INDEX member_search_user (user_id=?)",
                        ]
                      : null,
                  );
                  expect(plans.fts?.[0] ?? null, label).toEqual(
                    words ? expect.stringMatching(/^SCAN f VIRTUAL TABLE INDEX/) : null,
                  );
                  expect(
                    plans.fts?.includes("SEARCH s USING INTEGER PRIMARY KEY (rowid=?)") ?? null,
                    label,
                  ).toBe(words ? true : null);
                  // The walk of a first page: a co-routine (never materialized) over the top rows
                  // in key order (with "online now", from the last hours' keys), or the full-text
                  // matches in key order, each member's row then found by key.
                  // Keywords and interests with a place walk the full-text matches of that place
                  // (its tokens are part of the query); "online now" and age ranges under ten
                  // years do not walk.
                  const narrow = (ages.age_max ?? 100) - (ages.age_min ?? 18) < 10;
                  const walks = !online && !narrow;
                  expect(plans.walk ?? null, label).toEqual(
                    !walks
                      ? null
                      : expect.arrayContaining(
                          words
                            ? [
                                "CO-ROUTINE w",
                                expect.stringMatching(
                                  /^SCAN member_search_fts VIRTUAL TABLE INDEX \d+:M5<$/,
                                ),
                                "SCAN w",
                                "SEARCH s USING INTEGER PRIMARY KEY (rowid=?)",
                              ]
                            : [
                                "CO-ROUTINE w",
                                walkRead(place, gender),
                                "SCAN w",
                                "SEARCH s USING INTEGER PRIMARY KEY (rowid=?)",
                              ],
                        ),
                  );
                  expect(plans.walk?.join(" ") ?? "", label).not.toMatch(/MATERIALIZE|TEMP B-TREE/);
                  // A narrow age range without a place reads, for each lower bound that admits
                  // the searcher, the members born in the range (never all of them).
                  const byBirth =
                    "SEARCH s USING COVERING INDEX member_search_by_age_min (age_min=? AND birth>? AND birth<?)";
                  if (narrow && !place.country) {
                    expect(plans.cover!, label).toContain(byBirth);
                    narrowWithoutPlace += 1;
                  }
                  combinations += 1;
                }
    expect(combinations).toBe(384);
    // The narrow ages (33–35) without a place: a third of the ages, a quarter of the places.
    expect(narrowWithoutPlace).toBe(384 / 12);
  }, 240_000);

  it("keeps its triggers on users, profiles and photos", async () => {
    const { results } = await env.DB.prepare(
      "SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%search%' ORDER BY name",
    ).all<{ name: string; tbl_name: string }>();
    expect(results).toEqual([
      { name: "member_search_fts_delete", tbl_name: "member_search" },
      { name: "member_search_fts_insert", tbl_name: "member_search" },
      { name: "member_search_sync_run", tbl_name: "member_search_sync" },
      { name: "photos_search_delete", tbl_name: "photos" },
      { name: "photos_search_insert", tbl_name: "photos" },
      { name: "profiles_search_insert", tbl_name: "profiles" },
      { name: "profiles_search_update", tbl_name: "profiles" },
      { name: "users_search_update", tbl_name: "users" },
      // A change of photo verification rewrites the full-text rows (verified_only, migrations/0040).
      { name: "users_verified_search", tbl_name: "users" },
    ]);
  });
});
