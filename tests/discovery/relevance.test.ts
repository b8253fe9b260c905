import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { searchRequestSchema } from "~/schemas/search";
import { explainSearch } from "~/server/search.server";
import { search, searcher, seedMember, TEXAS, US } from "./fixtures";

/**
 * Keyword relevance (docs/decisions/041): an exact username or first name comes first, then the
 * rest in the search's order, on every way of paging.
 */

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
const word = () =>
  `q${Array.from({ length: 9 }, () => "abcdefghijklmnopqrstuvwxyz"[Math.floor(Math.random() * 26)]).join("")}`;

async function allPages(
  client: Awaited<ReturnType<typeof searcher>>["client"],
  keywords: string,
  perPage: number,
  filters: Record<string, unknown> = {},
) {
  const pages: string[][] = [];
  let cursor: string | null = null;
  for (let page = 1; page < 30; page++) {
    const res = await search(client, { keywords, filters, per_page: perPage, cursor });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push(res.body.results.map((r) => r.id));
    if (!res.body.meta.has_more) break;
    cursor = res.body.meta.cursor;
  }
  return pages;
}

describe("keyword relevance", () => {
  it("finds a member by their exact username first, though others share its first letters", async () => {
    const me = await searcher();
    const stem = word();
    const wanted = await seedMember({ username: `${stem}`, lastSeenAt: minutesAgo(3000 * 60) });
    // Twelve members whose usernames begin the same, all more recently active.
    const others = [];
    for (let i = 0; i < 12; i++) {
      others.push(await seedMember({ username: `${stem}${i}x`, lastSeenAt: minutesAgo(i * 90) }));
    }
    const pages = await allPages(me.client, stem.toUpperCase(), 5);
    expect(pages[0]![0]).toBe(wanted.id);
    // Every member once, the rest in the search's order.
    const flat = pages.flat();
    expect(flat).toHaveLength(13);
    expect(new Set(flat).size).toBe(13);
    expect(flat.slice(1)).toEqual(others.map((o) => o.id));

    // By page number (no cursor), the same members on the same pages.
    for (let page = 1; page <= pages.length; page++) {
      const res = await search(me.client, { keywords: stem, per_page: 5, page });
      expect(
        res.body.results.map((r) => r.id),
        `page ${page}`,
      ).toEqual(pages[page - 1]);
    }
  });

  it("puts exact first names first, and only those that pass every filter", async () => {
    const me = await searcher();
    const name = word();
    const exact = await seedMember({
      firstName: name.charAt(0).toUpperCase() + name.slice(1),
      country: US,
      state: TEXAS,
      city: "Austin",
      lastSeenAt: minutesAgo(5000),
    });
    const elsewhere = await seedMember({ firstName: name, lastSeenAt: minutesAgo(4000) });
    const longer = [];
    for (let i = 0; i < 6; i++) {
      longer.push(
        await seedMember({
          firstName: `${name}a${i}`,
          country: US,
          state: TEXAS,
          city: "Austin",
          lastSeenAt: minutesAgo(i),
        }),
      );
    }
    const all = (await allPages(me.client, name, 3)).flat();
    expect(all.slice(0, 2).sort()).toEqual([exact.id, elsewhere.id].sort());
    const inAustin = (
      await allPages(me.client, name, 3, { country: "US", state: "TX", city: "Austin" })
    ).flat();
    expect(inAustin[0]).toBe(exact.id);
    expect(inAustin).not.toContain(elsewhere.id);
    expect(inAustin).toHaveLength(7);
  });

  it("keeps the order asked for when the results are sorted by distance or newest", async () => {
    const me = await searcher();
    const stem = word();
    const wanted = await seedMember({ username: stem, joinedMinutesAgo: 500 });
    const newer = await seedMember({ username: `${stem}9x`, joinedMinutesAgo: 1 });
    const res = await search(me.client, { keywords: stem, filters: { sort: "newest" } });
    expect(res.body.results.map((r) => r.id)).toEqual([newer.id, wanted.id]);
  });

  it("finds exact names through the full-text index, newest key first, each row by key, once anybody has the name", async () => {
    const me = await searcher();
    for (const filters of [{}, { interests: ["Chess"] }, { country: "US", gender: "woman" }]) {
      const plans = await explainSearch(
        env,
        me.id,
        searchRequestSchema.parse({ keywords: "ada", filters }),
      );
      const exact = plans.exact!.join(" | ");
      // First whether anybody is named so, by two index probes (the limit: 0 reads nothing), then
      // the full-text index.
      expect(exact, JSON.stringify(filters)).toMatch(
        /^SCALAR SUBQUERY \d+ \| SEARCH users USING COVERING INDEX users_username_nocase \(username=\?\) \| SCALAR SUBQUERY \d+ \| SEARCH profiles USING INDEX profiles_first_name \(<expr>=\?\) \| SCAN f VIRTUAL TABLE INDEX \d+:M\d+/,
      );
      expect(exact).toContain("SEARCH s USING INTEGER PRIMARY KEY (rowid=?)");
      expect(exact).not.toMatch(/TEMP B-TREE|SCAN (s|u|p)\b(?! VIRTUAL)/);
    }
    // Several words are no name: no such statement.
    const words = await explainSearch(
      env,
      me.id,
      searchRequestSchema.parse({ keywords: "ada lovelace" }),
    );
    expect(words.exact).toBeUndefined();
  });
});
