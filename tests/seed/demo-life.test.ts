/**
 * The lived-in demo account (scripts/lib/seed-demo-life.ts), run against the real D1 through the
 * app's own like and view rules: the demo gets likes waiting for an answer, matches, likes it gave
 * and profile views, with the notifications and activities they make, dated over the last days;
 * running it again adds nothing.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "~/server/env.server";
import { DEMO_LIFE_MEMBERS, planDemoLife, seedDemoLife } from "../../scripts/lib/seed-demo-life";
import { verifiedMember } from "../helpers/members";

const DAY = 86_400_000;

describe("the demo account's life", () => {
  it("plans who likes, matches, is liked and views, from a fixed order of members", () => {
    const ids = Array.from({ length: DEMO_LIFE_MEMBERS }, (_, i) => `m${i}`);
    const plan = planDemoLife(ids);
    expect(plan.admirers.map((a) => a.id)).toEqual(["m0", "m1", "m2", "m3", "m4", "m5"]);
    expect(plan.matches.map((m) => m.id)).toEqual(["m6", "m7", "m8", "m9"]);
    expect(plan.liked.map((l) => l.id)).toEqual(["m10", "m11", "m12"]);
    expect(plan.viewers.map((v) => v.id)).toEqual([
      "m0",
      "m1",
      "m2",
      "m6",
      "m13",
      "m14",
      "m15",
      "m16",
    ]);
    // Nobody is both an admirer and a match, or liked by the demo without answering.
    const groups = [plan.admirers, plan.matches, plan.liked].map((g) => g.map((e) => e.id));
    expect(new Set(groups.flat()).size).toBe(groups.flat().length);
    // Fewer members, a smaller plan.
    expect(planDemoLife(ids.slice(0, 8))).toMatchObject({ liked: [], matches: [{}, {}] });
  });

  it(
    "seeds likes, matches, views, notifications and activities once, dated in the past",
    {
      timeout: 90_000,
    },
    async () => {
      const demo = await verifiedMember({ username: `demo_${crypto.randomUUID().slice(0, 8)}` });
      const members = await Promise.all(
        Array.from({ length: DEMO_LIFE_MEMBERS }, () => verifiedMember()),
      );
      const plan = planDemoLife(members.map((m) => m.id));
      const now = Date.now();

      const first = await seedDemoLife(env as unknown as Env, demo.id, plan, now);
      expect(first).toEqual({ likesReceived: 10, matches: 4, likesGiven: 3, views: 8 });

      const likes = await demo.client.json<{
        received: { id: string }[];
        sent: { id: string }[];
        matches: { id: string }[];
      }>("GET", "/my/likes");
      expect(likes.status).toBe(200);
      expect(new Set(likes.body.matches.map((m) => m.id))).toEqual(
        new Set(plan.matches.map((m) => m.id)),
      );
      expect(new Set(likes.body.received.map((m) => m.id))).toEqual(
        new Set(plan.admirers.map((m) => m.id)),
      );
      expect(new Set(likes.body.sent.map((m) => m.id))).toEqual(
        new Set(plan.liked.map((m) => m.id)),
      );
      const viewers = await demo.client.json<{ total_count: number }>("GET", "/my/profile-viewers");
      expect(viewers.body.total_count).toBe(8);

      // What the app's rules made: a notification per like, match and first view of a day, dated
      // when each happened, newest first.
      const notes = await demo.client.json<{
        notifications: { type: string; created_at: string }[];
      }>("GET", "/notifications?per_page=50");
      const types = notes.body.notifications.map((n) => n.type);
      expect(types.filter((t) => t === "like")).toHaveLength(10);
      expect(types.filter((t) => t === "match")).toHaveLength(4);
      expect(types.filter((t) => t === "profile_view")).toHaveLength(8);
      const times = notes.body.notifications.map((n) => Date.parse(n.created_at));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect(Math.min(...times)).toBeLessThan(now - 3 * DAY);
      expect(Math.max(...times)).toBeLessThan(now);
      const activities = await env.DB.prepare(
        "SELECT type, created_at FROM activities WHERE user_id = ?1",
      )
        .bind(demo.id)
        .all<{ type: string; created_at: string }>();
      expect(activities.results.filter((a) => a.type === "match")).toHaveLength(4);
      expect(activities.results.filter((a) => a.type === "like_received")).toHaveLength(10);
      expect(activities.results.filter((a) => a.type === "like_sent")).toHaveLength(7);
      expect(activities.results.every((a) => Date.parse(a.created_at) < now)).toBe(true);

      // Again: nothing new.
      const counts = async () =>
        env.DB.prepare(
          `SELECT (SELECT count(*) FROM likes WHERE liker_id = ?1 OR liked_id = ?1) AS likes,
                (SELECT count(*) FROM profile_views WHERE viewed_id = ?1) AS views,
                (SELECT count(*) FROM notifications WHERE user_id = ?1) AS notes,
                (SELECT count(*) FROM activities WHERE user_id = ?1) AS acts`,
        )
          .bind(demo.id)
          .first();
      const before = await counts();
      const again = await seedDemoLife(env as unknown as Env, demo.id, plan, now + DAY);
      expect(again).toEqual({ likesReceived: 0, matches: 0, likesGiven: 0, views: 0 });
      expect(await counts()).toEqual(before);
    },
  );
});
