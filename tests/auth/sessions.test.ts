import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { latestEmailTo, verifiedMember } from "../helpers/members";
import {
  allSessions,
  authStatus,
  CSRF_COOKIE,
  DAY,
  HOUR,
  isoAgo,
  MINUTE,
  SESSION_COOKIE,
  sessionRowOf,
  sessionsOf,
  setCookieLine,
  sha256Hex,
  signInAs,
} from "../helpers/auth";

let member: Awaited<ReturnType<typeof verifiedMember>>;

beforeAll(async () => {
  member = await verifiedMember();
});

const signIn = (remember?: boolean) =>
  signInAs(member.details.email, member.details.password, { remember });

async function setSession(client: TestClient, column: string, value: string) {
  const row = await sessionRowOf(client);
  if (!row) throw new Error("no session row");
  await env.DB.prepare(`UPDATE sessions SET ${column} = ?1 WHERE id_hash = ?2`)
    .bind(value, row.id_hash)
    .run();
  return row.id_hash;
}

async function sessionExists(idHash: string) {
  return Boolean(
    await env.DB.prepare("SELECT 1 FROM sessions WHERE id_hash = ?1").bind(idHash).first(),
  );
}

describe("session ids", () => {
  it("are at least 128 bits of random, never repeated", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const { client } = await signIn();
      const id = decodeURIComponent(client.cookies.get(SESSION_COOKIE)!);
      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      // base64url: 6 bits per character.
      expect(id.length * 6).toBeGreaterThanOrEqual(128);
      ids.add(id);
    }
    expect(ids.size).toBe(6);
  });

  it("are stored only as a hash: the cookie value is nowhere in the sessions table", async () => {
    const { client } = await signIn();
    const id = decodeURIComponent(client.cookies.get(SESSION_COOKIE)!);
    const rows = await allSessions();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      for (const value of Object.values(row)) expect(String(value)).not.toContain(id);
    }
    // The row is found by the cookie's SHA-256, so a stolen table yields no usable cookie.
    expect(rows.map((r) => r.id_hash)).toContain(await sha256Hex(id));
  });
});

describe("session cookie", () => {
  it("is HttpOnly, SameSite=Lax and scoped to the whole site", async () => {
    const { res } = await signIn();
    const session = setCookieLine(res.headers, SESSION_COOKIE)!;
    expect(session).toMatch(/;\s*HttpOnly/i);
    expect(session).toMatch(/;\s*SameSite=Lax/i);
    expect(session).toMatch(/;\s*Path=\/(;|$)/i);
  });

  it("keeps the CSRF secret in an HttpOnly, SameSite=Lax cookie too", async () => {
    const res = await new TestClient().fetch("/login");
    const csrf = setCookieLine(res.headers, CSRF_COOKIE)!;
    expect(csrf).toMatch(/;\s*HttpOnly/i);
    expect(csrf).toMatch(/;\s*SameSite=Lax/i);
  });
});

describe("session expiry", () => {
  it("ends a session idle for more than 2 hours, server-side", async () => {
    const { client } = await signIn();
    expect(await authStatus(client)).toBe(202);
    const idHash = await setSession(client, "last_active_at", isoAgo(2 * HOUR + MINUTE));
    expect(await authStatus(client)).toBe(401);
    expect(await sessionExists(idHash)).toBe(false);
  });

  it("keeps an active session alive and refreshes its last activity", async () => {
    const { client } = await signIn();
    const stale = isoAgo(HOUR + 30 * MINUTE);
    await setSession(client, "last_active_at", stale);
    expect(await authStatus(client)).toBe(202);
    const row = await sessionRowOf(client);
    expect(Date.parse(row!.last_active_at)).toBeGreaterThan(Date.parse(stale));
    // Refreshed to now: the idle limit counts from this request, not from sign-in.
    expect(Date.now() - Date.parse(row!.last_active_at)).toBeLessThan(MINUTE);
  });

  it("ends a session past its absolute lifetime even while it is active", async () => {
    const { client } = await signIn();
    const idHash = await setSession(client, "expires_at", isoAgo(1000));
    expect(await authStatus(client)).toBe(401);
    expect(await sessionExists(idHash)).toBe(false);
  });

  it("gives a remembered session 12 hours and more of idling, but not 31 days", async () => {
    const { client } = await signIn(true);
    await setSession(client, "last_active_at", isoAgo(12 * HOUR + MINUTE));
    expect(await authStatus(client)).toBe(202);
    await setSession(client, "last_active_at", isoAgo(31 * DAY));
    expect(await authStatus(client)).toBe(401);
  });

  it("bounds a standard session's absolute lifetime to about 12 hours and a remembered one's to 90 days", async () => {
    const standard = await sessionRowOf((await signIn(false)).client);
    const remembered = await sessionRowOf((await signIn(true)).client);
    const life = (r: typeof standard) => Date.parse(r!.expires_at) - Date.parse(r!.created_at);
    expect(life(standard)).toBeLessThanOrEqual(12 * HOUR);
    expect(life(remembered)).toBeLessThanOrEqual(90 * DAY);
    expect(life(remembered)).toBeGreaterThan(life(standard));
  });
});

describe("changing the password", () => {
  it("ends the member's other sessions and keeps the current one", async () => {
    const owner = await verifiedMember();
    const { email, password } = owner.details;
    const current = (await signInAs(email, password)).client;
    const laptop = (await signInAs(email, password)).client;
    const phone = (await signInAs(email, password, { remember: true })).client;
    const someoneElse = (await signIn()).client;
    expect(await sessionsOf(owner.id)).toHaveLength(4); // the registration's session too

    const newPassword = "a brand new passphrase";
    const res = await current.json("PUT", "/settings/password", {
      current_password: password,
      password: newPassword,
      password_confirmation: newPassword,
    });
    expect(res.status).toBe(200);

    expect(await authStatus(current)).toBe(202);
    expect(await authStatus(laptop)).toBe(401);
    expect(await authStatus(phone)).toBe(401);
    expect(await authStatus(owner.client)).toBe(401);
    expect(await authStatus(someoneElse)).toBe(202);
    expect(await sessionsOf(owner.id)).toHaveLength(1);

    // The new password signs in, the old one no longer does.
    const old = await new TestClient().json("POST", "/login", { email, password });
    expect(old.status).toBe(422);
    await signInAs(email, newPassword);

    // After the verification email, the note that the password changed.
    expect((await latestEmailTo(email, 1))?.subject).toBe("Your password was changed");
  });

  it("validates the new password", async () => {
    const { client } = await signIn();
    const res = await client.json<{ errors: Record<string, string[]> }>(
      "PUT",
      "/settings/password",
      {
        current_password: member.details.password,
        password: "short",
        password_confirmation: "different",
      },
    );
    expect(res.status).toBe(422);
    expect(res.body.errors.password).toEqual(["The password field must be at least 8 characters."]);
  });

  it("needs a signed-in member", async () => {
    const res = await new TestClient().json("PUT", "/settings/password", {
      password: "a brand new passphrase",
      password_confirmation: "a brand new passphrase",
    });
    expect(res.status).toBe(401);
  });
});
