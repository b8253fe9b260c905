import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { networkOf } from "~/server/auth.server";
import { hit } from "~/server/rate-limit.server";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";

/**
 * Issue 12, finding 8: a fixed window let 101 chat messages through in 6 s against 60 a minute
 * (a burst at the end of one window and another at the start of the next); a sliding window
 * counts the first burst against the second. And five bad passwords for someone's email from
 * one network do not lock the owner out from another.
 */
describe("sliding windows", () => {
  it("a burst across a window boundary gets no more than the limit and a little", async () => {
    // chat_send_account is 60 per 60 s (wrangler.toml).
    const boundary = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    const who = `burst-${Math.random()}`;
    let allowed = 0;
    for (let i = 0; i < 60; i++) {
      if ((await hit(env, "chat_send_account", who, boundary - 3000 + i * 10)).allowed) allowed++;
    }
    for (let i = 0; i < 60; i++) {
      if ((await hit(env, "chat_send_account", who, boundary + 3000 + i * 10)).allowed) allowed++;
    }
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(66);
    const refused = await hit(env, "chat_send_account", who, boundary + 4000);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfter).toBeGreaterThan(1);
    // Once the burst has slid out of the window, sending works again.
    expect((await hit(env, "chat_send_account", `${who}-later`, boundary + 130_000)).allowed).toBe(
      true,
    );
  });
});

describe("the sign-in failure limit", () => {
  it("knows networks", () => {
    expect(networkOf("198.51.100.7")).toBe("198.51.100");
    expect(networkOf("2001:db8:0:1::5")).toBe("2001:db8:0:1");
    expect(networkOf("2001:0db8:0000:0001:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:0:1");
  });

  it("a stranger's failures do not lock the owner out from their own network", async () => {
    const owner = await verifiedMember();
    const stranger = () => new TestClient("203.0.113.50");
    for (let i = 0; i < 5; i++) {
      const res = await stranger().json("POST", "/login", {
        email: owner.details.email,
        password: "a wrong guess",
      });
      expect(res.status).toBe(422);
    }
    const blocked = await stranger().json("POST", "/login", {
      email: owner.details.email,
      password: owner.details.password,
    });
    expect(blocked.status).toBe(429);
    const home = await new TestClient("198.51.100.23").json("POST", "/login", {
      email: owner.details.email,
      password: owner.details.password,
    });
    expect(home.status).toBe(200);
  });

  it("failures spread over many networks meet the slower global limit", async () => {
    const owner = await verifiedMember();
    let last = 0;
    for (let i = 0; i < 21; i++) {
      const res = await new TestClient(`192.0.${i}.1`).json("POST", "/login", {
        email: owner.details.email,
        password: "a wrong guess",
      });
      last = res.status;
    }
    expect(last).toBe(429);
  });
});
