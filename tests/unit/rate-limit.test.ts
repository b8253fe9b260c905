import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hit, peek, release } from "~/server/rate-limit.server";

// login_account is 5 per 300 seconds (wrangler.toml [vars.RATE_LIMITS]).
const WINDOW_MS = 300_000;
/** A moment 10 seconds into a fixed window. */
const start = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 10_000;
let n = 0;
const subject = () => `unit-${++n}@example.test`;

describe("sliding-window rate limits", () => {
  it("allows the configured number of hits per window and tells when it resets", async () => {
    const who = subject();
    for (let i = 1; i <= 5; i++) {
      const r = await hit(env, "login_account", who, start);
      expect(r).toMatchObject({ allowed: true, remaining: 5 - i });
    }
    const over = await hit(env, "login_account", who, start + 1000);
    expect(over.allowed).toBe(false);
    // The rest of this window, then until 6 hits of it weigh little enough in the next.
    expect(over.retryAfter).toBe(389);
  });

  it("starts over in the next window", async () => {
    const who = subject();
    for (let i = 0; i < 6; i++) await hit(env, "login_account", who, start);
    expect((await peek(env, "login_account", who, start)).allowed).toBe(false);
    // Sliding: the full window before still weighs at the start of the next one…
    expect((await peek(env, "login_account", who, start + WINDOW_MS)).allowed).toBe(false);
    // …and nothing two windows on.
    expect((await peek(env, "login_account", who, start + 2 * WINDOW_MS)).allowed).toBe(true);
    expect((await hit(env, "login_account", who, start + 2 * WINDOW_MS)).remaining).toBe(4);
  });

  it("treats a subject the same whatever its case", async () => {
    const who = subject();
    await hit(env, "login_account", who, start);
    expect((await hit(env, "login_account", who.toUpperCase(), start)).remaining).toBe(3);
  });

  it("gives back a hit within its window, and never below zero", async () => {
    const who = subject();
    await hit(env, "login_account", who, start);
    await hit(env, "login_account", who, start);
    await release(env, "login_account", who, start);
    expect((await peek(env, "login_account", who, start)).remaining).toBe(4);
    await release(env, "login_account", who, start);
    await release(env, "login_account", who, start);
    expect((await peek(env, "login_account", who, start)).remaining).toBe(5);
  });

  it("does not give back a hit into a later window", async () => {
    const who = subject();
    await hit(env, "login_account", who, start);
    await hit(env, "login_account", who, start + WINDOW_MS);
    // Releasing the first window's hit must not touch the new window's count (the first
    // window's hit still weighs in the sliding estimate: 5 - 1 - 0.97).
    await release(env, "login_account", who, start);
    expect((await peek(env, "login_account", who, start + WINDOW_MS)).remaining).toBe(3);
  });

  it("keeps separate counters per limit", async () => {
    const who = subject();
    for (let i = 0; i < 6; i++) await hit(env, "login_account", who, start);
    expect((await peek(env, "forgot_password_account", who, start)).allowed).toBe(true);
  });
});
