import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { deviceCookie } from "~/server/device.server";
import { TestClient, type JsonResult } from "../helpers/client";
import {
  authStatus,
  cloneClient,
  CSRF_COOKIE,
  DAY,
  setCookieLine,
  signInAs,
} from "../helpers/auth";
import { countEmailsTo, firstLink, latestEmailTo, verifiedMember } from "../helpers/members";
import { fetchWith, PRODUCTION } from "../helpers/worker";

/**
 * Security finding: twenty failed sign-ins spread over four networks exhausted an account's
 * backstop (login_account_global) and locked its owner out everywhere for the better part of an
 * hour. A browser the owner signed in from before carries a signed device cookie, and its sign-ins
 * count in that device's own bucket (login_device), which strangers cannot reach
 * (docs/decisions/021 "An owner's known device").
 */

/** The device cookie outside production (production prefixes it with `__Host-`). */
const DEVICE_COOKIE = "heartline_device";

/** wrangler.toml [vars.RATE_LIMITS]: failures per window of seconds. */
const LIMITS = {
  login_account: [5, 300],
  login_account_global: [20, 3600],
  login_device: [10, 900],
} as const;

const STRANGERS_GUESS = "a stranger's guess";

/**
 * Windows start at multiples of their length, and 300, 900 and 3600 s all align to 300 s: a test
 * that begins in the last minute of a 300 s window waits for the next one, so that its attempts
 * are not split across two windows (a sliding window weighs the previous one a little less).
 */
beforeEach(async () => {
  const intoWindow = (Date.now() / 1000) % 300;
  if (intoWindow > 240) await new Promise((r) => setTimeout(r, (301 - intoWindow) * 1000));
}, 90_000);

let networks = 0;

/** An address in a network no test used yet: IPv4 /24s and IPv6 /64s in turn. */
function freshNetwork(host = 1): string {
  networks += 1;
  return networks % 2
    ? `198.18.${networks}.${host}`
    : `2001:db8:0:${networks.toString(16)}::${host.toString(16)}`;
}

function attempt(client: TestClient, email: string, password: string) {
  return client.json("POST", "/login", { email, password });
}

/**
 * `perNetwork` wrong passwords for `email` from each of `count` fresh networks, a new browser in
 * each. Returns every answer's status, in order.
 */
async function strangersGuess(email: string, count: number, perNetwork = 5): Promise<number[]> {
  const statuses: number[] = [];
  for (let n = 0; n < count; n++) {
    const stranger = new TestClient(freshNetwork(n + 2));
    for (let i = 0; i < perNetwork; i++) {
      statuses.push((await attempt(stranger, email, STRANGERS_GUESS)).status);
    }
  }
  return statuses;
}

function expectTooMany(res: JsonResult, windowSeconds: number, why?: string) {
  expect(res.status, why).toBe(429);
  expect(res.body, why).toEqual({ message: "Too many attempts. Please try again later." });
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(retryAfter, why).toBeGreaterThanOrEqual(1);
  expect(retryAfter, why).toBeLessThanOrEqual(2 * windowSeconds);
}

/**
 * A browser the member signed in from and then signed out of: it keeps the device cookie, and a
 * page's fresh CSRF token.
 */
async function knownBrowser(email: string, password: string, ip = freshNetwork()) {
  const { client, res } = await signInAs(email, password, { client: new TestClient(ip) });
  expect(setCookieLine(res.headers, DEVICE_COOKIE)).toBeDefined();
  expect((await client.json("POST", "/logout")).status).toBe(204);
  expect(client.cookies.has(DEVICE_COOKIE)).toBe(true);
  await client.loadCsrfFromPage();
  return client;
}

/** A copy of a browser holding `value` as its device cookie, from another network. */
function withDeviceCookie(client: TestClient, value: string) {
  const copy = cloneClient(client, freshNetwork());
  copy.cookies.set(DEVICE_COOKIE, value);
  return copy;
}

const cookieValue = (setCookie: string) => setCookie.split(";")[0]!.split("=")[1]!;

describe("an owner's known device", () => {
  it("still signs in after 100 failures from 20 networks, while strangers stay throttled", async () => {
    const owner = await verifiedMember();
    const { email, password } = owner.details;
    const phone = await knownBrowser(email, password);

    // 100 wrong passwords: five from each of ten IPv4 /24s and ten IPv6 /64s.
    const statuses = await strangersGuess(email, 20);
    expect(statuses).toHaveLength(100);
    const [backstop, backstopSeconds] = LIMITS.login_account_global;
    expect(statuses.filter((s) => s === 422)).toHaveLength(backstop);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100 - backstop);

    // Strangers stay throttled, from a network of their own too.
    expectTooMany(
      await attempt(new TestClient(freshNetwork()), email, "one more"),
      backstopSeconds,
    );
    // A browser the owner never signed in from is a stranger: refused even the right password
    // while the backstop is exhausted (the owner's known devices and a reset still work).
    expectTooMany(await attempt(new TestClient(freshNetwork()), email, password), backstopSeconds);

    // The owner's phone signs in, from a network it never used and from its own.
    const away = cloneClient(phone, freshNetwork());
    const there = await attempt(away, email, password);
    expect(there.status).toBe(200);
    expect(await authStatus(away)).toBe(202);
    const home = await attempt(phone, email, password);
    expect(home.status).toBe(200);
    expect(await authStatus(phone)).toBe(202);
    // Each sign-in renews the device cookie.
    expect(setCookieLine(home.headers, DEVICE_COOKIE)).toMatch(/Max-Age=31536000/);

    // The owner's sign-ins gave nothing back to strangers.
    expectTooMany(await attempt(new TestClient(freshNetwork()), email, "again"), backstopSeconds);
  });

  it("a password reset lets the owner in from a new browser, which becomes a known device", async () => {
    const owner = await verifiedMember();
    const { email, password } = owner.details;
    const [, backstopSeconds] = LIMITS.login_account_global;
    expect((await strangersGuess(email, 4)).every((s) => s === 422)).toBe(true);
    // A browser the owner never used: refused even the right password.
    const laptop = new TestClient(freshNetwork());
    expectTooMany(await attempt(laptop, email, password), backstopSeconds);

    // From that browser, the owner resets the password through the emailed link.
    const before = await countEmailsTo(email);
    expect((await laptop.json("POST", "/forgot-password", { email })).status).toBe(200);
    const mail = await latestEmailTo(email, before);
    const link = new URL(firstLink(mail!.text), "http://localhost");
    const fresh = "a passphrase strangers never saw";
    const reset = await laptop.json("POST", "/reset-password", {
      token: link.pathname.split("/").pop(),
      email,
      password: fresh,
      password_confirmation: fresh,
    });
    expect(reset.status).toBe(200);
    expect(setCookieLine(reset.headers, DEVICE_COOKIE)).toMatch(/Max-Age=31536000/);

    // Signed in at once, and again after strangers exhaust the backstop anew: the laptop's
    // sign-ins count in its own bucket now.
    expect((await attempt(laptop, email, fresh)).status).toBe(200);
    expect((await laptop.json("POST", "/logout")).status).toBe(204);
    await laptop.loadCsrfFromPage();
    expect((await strangersGuess(email, 4)).every((s) => s === 422)).toBe(true);
    expectTooMany(await attempt(new TestClient(freshNetwork()), email, fresh), backstopSeconds);
    expect((await attempt(laptop, email, fresh)).status).toBe(200);
    expect(await authStatus(laptop)).toBe(202);
  });

  it("limits its own failures, so a copy of its cookie guesses no more than login_device", async () => {
    const owner = await verifiedMember();
    const { email, password } = owner.details;
    const phone = await knownBrowser(email, password);
    const laptop = await knownBrowser(email, password);

    const [max, seconds] = LIMITS.login_device;
    const copy = cloneClient(phone, freshNetwork());
    for (let i = 0; i < max; i++) {
      expect((await attempt(copy, email, `guess ${i}`)).status, `guess ${i + 1}`).toBe(422);
    }
    expectTooMany(await attempt(copy, email, "one more guess"), seconds);
    // The bucket is the device's: the phone itself is refused, even the right password.
    expectTooMany(await attempt(phone, email, password), seconds);

    // Those failures were not counted as a stranger's (a stranger's guess is still checked)...
    expect((await attempt(new TestClient(freshNetwork()), email, STRANGERS_GUESS)).status).toBe(
      422,
    );
    // ...and the owner's other device has a bucket of its own.
    expect((await attempt(laptop, email, password)).status).toBe(200);
  });

  it("lets no more guesses through than its limit when they arrive all at once", async () => {
    const owner = await verifiedMember();
    const phone = await knownBrowser(owner.details.email, owner.details.password);
    const [max, seconds] = LIMITS.login_device;
    const results = await Promise.all(
      Array.from({ length: max + 5 }, () => attempt(phone, owner.details.email, "a guess")),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 422)).toHaveLength(max);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    for (const res of results.filter((r) => r.status === 429)) expectTooMany(res, seconds);
  });

  it("counts for nobody when tampered with, another member's, too old or signed elsewhere", async () => {
    const owner = await verifiedMember();
    const other = await verifiedMember();
    const { email, password } = owner.details;
    const phone = await knownBrowser(email, password);
    const othersPhone = await knownBrowser(other.details.email, other.details.password);

    // Twenty failures from four networks exhaust the backstop (the finding's own numbers).
    const statuses = await strangersGuess(email, 4);
    expect(statuses.every((s) => s === 422)).toBe(true);
    const [, backstopSeconds] = LIMITS.login_account_global;
    expectTooMany(await attempt(new TestClient(freshNetwork()), email, password), backstopSeconds);

    const genuine = phone.cookies.get(DEVICE_COOKIE)!;
    const [memberId, deviceId, issuedAt, mac] = genuine.split(".") as [
      string,
      string,
      string,
      string,
    ];
    const [, othersDevice, othersIssuedAt, othersMac] = othersPhone.cookies
      .get(DEVICE_COOKIE)!
      .split(".");
    const flipped = `${mac[0] === "A" ? "B" : "A"}${mac.slice(1)}`;
    const yearAgo = Date.now() - 366 * DAY;
    const impostors: Record<string, string> = {
      "a changed signature": [memberId, deviceId, issuedAt, flipped].join("."),
      "another device id": [memberId, "0123456789abcdefghjk", issuedAt, mac].join("."),
      "a later date": [memberId, deviceId, Number(issuedAt) + 1, mac].join("."),
      "another member's cookie": othersPhone.cookies.get(DEVICE_COOKIE)!,
      "the owner's id on another member's cookie": [
        memberId,
        othersDevice,
        othersIssuedAt,
        othersMac,
      ].join("."),
      "a cookie signed over a year ago": cookieValue(await deviceCookie(env, memberId, yearAgo)),
      "a cookie signed with another key": cookieValue(
        await deviceCookie(
          { ...env, APP_KEY: "another-key-that-is-long-enough-for-hmac-0000" },
          memberId,
        ),
      ),
      "not a device cookie": "not-a-device-cookie",
    };
    for (const [what, value] of Object.entries(impostors)) {
      const browser = withDeviceCookie(phone, value);
      expectTooMany(await attempt(browser, email, password), backstopSeconds, what);
      expect(browser.cookies.has(DEVICE_COOKIE), what).toBe(true);
    }

    // The other member's own device is theirs only: it still signs them in.
    expect((await attempt(othersPhone, other.details.email, other.details.password)).status).toBe(
      200,
    );
    // The genuine cookie, from anywhere, does.
    expect((await attempt(withDeviceCookie(phone, genuine), email, password)).status).toBe(200);
  });

  it("is no session: the cookie alone signs nobody in", async () => {
    const owner = await verifiedMember();
    const phone = await knownBrowser(owner.details.email, owner.details.password);
    expect(await authStatus(phone)).toBe(401);
    const bare = new TestClient();
    bare.cookies.set(DEVICE_COOKIE, phone.cookies.get(DEVICE_COOKIE)!);
    expect(await authStatus(bare)).toBe(401);
  });

  it("comes with registration and with the sign-in page, whose form honours it", async () => {
    const owner = await verifiedMember();
    const { email, password } = owner.details;
    // The browser that registered is a known device.
    expect(owner.client.cookies.has(DEVICE_COOKIE)).toBe(true);
    expect((await owner.client.json("POST", "/logout")).status).toBe(204);
    await owner.client.loadCsrfFromPage();

    // The sign-in page's form marks its browser too.
    const browser = new TestClient(freshNetwork());
    const signedIn = await browser.form("/login", { email, password });
    expect(signedIn.status).toBe(302);
    const line = setCookieLine(signedIn, DEVICE_COOKIE);
    expect(line).toMatch(/;\s*HttpOnly/i);
    expect(line).toMatch(/;\s*SameSite=Lax/i);
    expect(line).toMatch(/;\s*Path=\/(;|$)/);
    expect(line).toMatch(/;\s*Max-Age=31536000/);
    await browser.loadCsrfFromPage("/dashboard");
    expect((await browser.form("/logout", {})).status).toBe(302);
    await browser.loadCsrfFromPage();

    await strangersGuess(email, 4);
    const stranger = await new TestClient(freshNetwork()).form("/login", { email, password });
    expect(stranger.status).toBe(429);
    const again = await browser.form("/login", { email, password });
    expect(again.status).toBe(302);
    expect(again.headers.get("Location")).toBe("/dashboard");
    expect((await attempt(owner.client, email, password)).status).toBe(200);
  });

  it("is Secure and __Host- prefixed in production", async () => {
    const member = await verifiedMember();
    const ip = freshNetwork();
    const json = { Accept: "application/json" };
    const tokenRes = await fetchWith(PRODUCTION, "/csrf-token", { headers: json, ip });
    const csrfCookie = setCookieLine(tokenRes, `__Host-${CSRF_COOKIE}`)!;
    const { token } = (await tokenRes.json()) as { token: string };
    const res = await fetchWith(PRODUCTION, "/login", {
      method: "POST",
      ip,
      headers: {
        ...json,
        "Content-Type": "application/json",
        "X-CSRF-Token": token,
        Cookie: csrfCookie.split(";")[0]!,
      },
      body: JSON.stringify({ email: member.details.email, password: member.details.password }),
    });
    expect(res.status).toBe(200);
    const line = setCookieLine(res, `__Host-${DEVICE_COOKIE}`);
    expect(line).toMatch(/;\s*Secure/i);
    expect(line).toMatch(/;\s*HttpOnly/i);
    expect(line).toMatch(/;\s*SameSite=Lax/i);
    expect(line).not.toMatch(/Domain=/i);
  });
});
