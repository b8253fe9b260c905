import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { nextIp, TestClient, type JsonResult } from "../helpers/client";
import { registerMember, uniqueMember, verifiedMember } from "../helpers/members";
import { cloneClient, emailsTo, signInAs } from "../helpers/auth";

/** wrangler.toml [vars.RATE_LIMITS]: requests per window of seconds. */
const LIMITS = {
  login_ip: [30, 300],
  login_account: [5, 300],
  register_ip: [10, 3600],
  forgot_password_ip: [10, 3600],
  forgot_password_account: [3, 3600],
  verification_resend_account: [3, 600],
  reset_password_ip: [20, 3600],
  confirm_password_account: [10, 300],
} as const;

/**
 * Fixed windows start at multiples of their length, and 300, 600 and 3600 s all align to 300 s: a
 * test that begins in the last minute of a window waits for the next one, so that its attempts are
 * never split across two windows.
 */
beforeEach(async () => {
  const intoWindow = (Date.now() / 1000) % 300;
  if (intoWindow > 240) await new Promise((r) => setTimeout(r, (301 - intoWindow) * 1000));
}, 90_000);

function expectTooMany(res: JsonResult, windowSeconds: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ message: "Too many attempts. Please try again later." });
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  // A sliding window: the attempts of this window still weigh in the next one.
  expect(retryAfter).toBeLessThanOrEqual(2 * windowSeconds);
}

function badLogin(email: string, client = new TestClient()) {
  return client.json("POST", "/login", { email, password: "definitely wrong" });
}

/**
 * Moves a counter two windows into the past, as if its window had ended and slid out of the
 * sliding window too.
 */
async function endWindow(key: string, windowSeconds: number) {
  const res = await env.DB.prepare(
    "UPDATE rate_limits SET window_start = window_start - ?1 WHERE key = ?2",
  )
    .bind(2 * windowSeconds, key)
    .run();
  expect(res.meta.changes).toBe(1);
}

async function counter(key: string) {
  return env.DB.prepare("SELECT window_start, count FROM rate_limits WHERE key = ?1")
    .bind(key)
    .first<{ window_start: number; count: number }>();
}

describe("login", () => {
  it("is limited per IP, whatever the account", async () => {
    const [max, seconds] = LIMITS.login_ip;
    const ip = nextIp();
    for (let i = 0; i < max; i++) {
      const res = await badLogin(`ip-flood-${i}@example.test`, new TestClient(ip));
      expect(res.status, `attempt ${i + 1}`).toBe(422);
    }
    expectTooMany(await badLogin("ip-flood-last@example.test", new TestClient(ip)), seconds);
    // Another address is not affected.
    expect((await badLogin("ip-flood-last@example.test")).status).toBe(422);
  });

  it("is limited per account across IPs, and then refuses even the right password", async () => {
    const [max, seconds] = LIMITS.login_account;
    const member = await verifiedMember();
    for (let i = 0; i < max; i++) expect((await badLogin(member.details.email)).status).toBe(422);
    expectTooMany(await badLogin(member.details.email), seconds);
    const right = await new TestClient().json("POST", "/login", {
      email: member.details.email,
      password: member.details.password,
    });
    expectTooMany(right, seconds);
    // The account's address in another case is the same account.
    expectTooMany(await badLogin(member.details.email.toUpperCase()), seconds);
  });

  it("never locks the real member out beyond the window, however long the flood", async () => {
    const [max, seconds] = LIMITS.login_account;
    const member = await verifiedMember();
    for (let i = 0; i < max; i++) await badLogin(member.details.email);
    // Counted per account and network (docs/decisions/009).
    const row = await env.DB.prepare("SELECT key FROM rate_limits WHERE key LIKE ?1")
      .bind(`login_account:${member.details.email.toLowerCase()}|%`)
      .first<{ key: string }>();
    const key = row!.key;
    const locked = await counter(key);

    // The flood goes on during the lockout: it does not move the window's end.
    for (let i = 0; i < 10; i++) expectTooMany(await badLogin(member.details.email), seconds);
    expect((await counter(key))?.window_start).toBe(locked?.window_start);

    // Once the window has passed, the member's own password works at once.
    await endWindow(key, seconds);
    await signInAs(member.details.email, member.details.password);
  });

  it("counts only failures against an account", async () => {
    const [max, seconds] = LIMITS.login_account;
    const member = await verifiedMember();
    for (let i = 0; i < max - 1; i++) await badLogin(member.details.email);
    for (let i = 0; i < 3; i++) await signInAs(member.details.email, member.details.password);
    expect((await badLogin(member.details.email)).status).toBe(422);
    expectTooMany(await badLogin(member.details.email), seconds);
  });

  it("lets no more guesses through than the limit when they arrive all at once", async () => {
    const [max, seconds] = LIMITS.login_account;
    const member = await verifiedMember();
    const results = await Promise.all(
      Array.from({ length: max + 10 }, () => badLogin(member.details.email)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 422)).toHaveLength(max);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    for (const res of results.filter((r) => r.status === 429)) expectTooMany(res, seconds);
  });
});

describe("register", () => {
  it("is limited per IP", async () => {
    const [max, seconds] = LIMITS.register_ip;
    const ip = nextIp();
    for (let i = 0; i < max; i++) {
      const res = await new TestClient(ip).json("POST", "/register", uniqueMember("flood"));
      expect(res.status, `registration ${i + 1}`).toBe(201);
    }
    const details = uniqueMember("flood");
    expectTooMany(await new TestClient(ip).json("POST", "/register", details), seconds);
    expect(await emailsTo(details.email)).toHaveLength(0);
    expect((await new TestClient().json("POST", "/register", details)).status).toBe(201);
  });
});

describe("forgot password", () => {
  const forgot = (email: string, client = new TestClient()) =>
    client.json("POST", "/forgot-password", { email });

  it("is limited per IP", async () => {
    const [max, seconds] = LIMITS.forgot_password_ip;
    const ip = nextIp();
    for (let i = 0; i < max; i++) {
      expect((await forgot(`ip-${i}@example.test`, new TestClient(ip))).status).toBe(200);
    }
    expectTooMany(await forgot("ip-last@example.test", new TestClient(ip)), seconds);
    expect((await forgot("ip-last@example.test")).status).toBe(200);
  });

  it("is limited per account across IPs, the same for unknown addresses", async () => {
    const [max, seconds] = LIMITS.forgot_password_account;
    const member = await registerMember();
    const unknown = "not-a-member@example.test";
    for (let i = 0; i < max; i++) {
      expect((await forgot(member.details.email)).status).toBe(200);
      expect((await forgot(unknown)).status).toBe(200);
    }
    expectTooMany(await forgot(member.details.email.toUpperCase()), seconds);
    expectTooMany(await forgot(unknown), seconds);
    const resets = (await emailsTo(member.details.email, 1 + max)).filter(
      (e) => e.subject === "Reset your password",
    );
    expect(resets).toHaveLength(max);
  });
});

describe("reset password", () => {
  it("is limited per IP", async () => {
    const [max, seconds] = LIMITS.reset_password_ip;
    const ip = nextIp();
    const attempt = () =>
      new TestClient(ip).json("POST", "/reset-password", {
        token: "guessed-token",
        email: "someone@example.test",
        password: "new passphrase",
        password_confirmation: "new passphrase",
      });
    for (let i = 0; i < max; i++) expect((await attempt()).status).toBe(422);
    expectTooMany(await attempt(), seconds);
  });
});

describe("verification resend", () => {
  it("is limited per account, from any IP", async () => {
    const [max, seconds] = LIMITS.verification_resend_account;
    const member = await registerMember();
    for (let i = 0; i < max; i++) {
      const res = await member.client.json("POST", "/email/verification-notification");
      expect(res.status).toBe(202);
    }
    expectTooMany(await member.client.json("POST", "/email/verification-notification"), seconds);
    const elsewhere = cloneClient(member.client);
    expectTooMany(await elsewhere.json("POST", "/email/verification-notification"), seconds);
    // The registration's email and one per allowed resend, nothing more.
    expect(await emailsTo(member.details.email, 1 + max)).toHaveLength(1 + max);
  });
});

describe("confirm password", () => {
  it("is limited per account, and then refuses even the right password", async () => {
    const [max, seconds] = LIMITS.confirm_password_account;
    const member = await verifiedMember();
    for (let i = 0; i < max; i++) {
      const res = await member.client.json("POST", "/confirm-password", { password: "wrong one" });
      expect(res.status).toBe(422);
    }
    const right = await member.client.json("POST", "/confirm-password", {
      password: member.details.password,
    });
    expectTooMany(right, seconds);
  });
});
