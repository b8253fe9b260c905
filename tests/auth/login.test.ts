import { beforeAll, describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import {
  authStatus,
  cloneClient,
  type PublicUser,
  SESSION_COOKIE,
  sessionRowOf,
  sessionsOf,
  setCookieLine,
  setCookieValue,
  signInAs,
} from "../helpers/auth";

const CREDENTIALS = "These credentials do not match our records.";

let member: Awaited<ReturnType<typeof verifiedMember>>;

beforeAll(async () => {
  member = await verifiedMember();
});

/** A syntactically valid session id that the server never issued. */
function plantedSessionId() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

describe("POST /login", () => {
  it("answers 200 with the user for the right password", async () => {
    const client = new TestClient();
    const res = await client.json<{ user: PublicUser }>("POST", "/login", {
      email: member.details.email,
      password: member.details.password,
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({
      id: member.id,
      username: member.details.username,
      email: member.details.email,
    });
    expect(res.body.user.email_verified_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(await authStatus(client)).toBe(202);
  });

  it("accepts the email in any case", async () => {
    const { res } = await signInAs(member.details.email.toUpperCase(), member.details.password);
    expect(res.body.user.id).toBe(member.id);
  });

  it("answers the same 422 for a wrong password and for an unknown email", async () => {
    const wrong = await new TestClient().json("POST", "/login", {
      email: member.details.email,
      password: "not the password",
    });
    const unknown = await new TestClient().json("POST", "/login", {
      email: "nobody-here@example.test",
      password: member.details.password,
    });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: CREDENTIALS, errors: { email: [CREDENTIALS] } });
      expect(setCookieLine(res.headers, SESSION_COOKIE)).toBeUndefined();
    }
  });

  it("refuses an empty password or a malformed email with 422", async () => {
    const res = await new TestClient().json<{ errors: Record<string, string[]> }>(
      "POST",
      "/login",
      { email: "nope", password: "" },
    );
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(["email", "password"]);
  });

  it("sets a browser-session cookie without remember me", async () => {
    const { res } = await signInAs(member.details.email, member.details.password);
    const line = setCookieLine(res.headers, SESSION_COOKIE);
    expect(line).toBeDefined();
    expect(line).not.toMatch(/max-age|expires/i);
  });

  it("sets a persistent cookie with remember me", async () => {
    const { client, res } = await signInAs(member.details.email, member.details.password, {
      remember: true,
    });
    const line = setCookieLine(res.headers, SESSION_COOKIE)!;
    const maxAge = Number(line.match(/Max-Age=(\d+)/i)?.[1]);
    // Long-lived: at least a week, and no longer than the session's absolute lifetime (90 days).
    expect(maxAge).toBeGreaterThanOrEqual(7 * 24 * 3600);
    expect(maxAge).toBeLessThanOrEqual(90 * 24 * 3600);
    expect((await sessionRowOf(client))?.remember).toBe(1);
  });
});

describe("session fixation", () => {
  it("issues a new session id at login and ends the one it replaces", async () => {
    const { client } = await signInAs(member.details.email, member.details.password);
    const before = client.cookies.get(SESSION_COOKIE)!;
    const stale = cloneClient(client);

    await signInAs(member.details.email, member.details.password, { client });
    const after = client.cookies.get(SESSION_COOKIE)!;
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    expect(await authStatus(client)).toBe(202);
    // The replaced session is gone server-side: its cookie no longer signs anyone in.
    expect(await authStatus(stale)).toBe(401);
  });

  it("never accepts a planted cookie value as a session, before or after login", async () => {
    const planted = plantedSessionId();
    const client = new TestClient();
    await client.loadCsrfFromPage();
    client.cookies.set(SESSION_COOKIE, planted);
    expect(await authStatus(client)).toBe(401);

    const { res } = await signInAs(member.details.email, member.details.password, { client });
    const issued = setCookieValue(res.headers, SESSION_COOKIE);
    expect(issued).toBeDefined();
    expect(issued).not.toBe(planted);

    const attacker = cloneClient(client);
    attacker.cookies.set(SESSION_COOKIE, planted);
    expect(await authStatus(attacker)).toBe(401);
    expect(await authStatus(client)).toBe(202);
  });
});

describe("POST /logout", () => {
  it("answers 204, clears the cookie and destroys the session server-side", async () => {
    const { client } = await signInAs(member.details.email, member.details.password);
    const row = await sessionRowOf(client);
    expect(row?.user_id).toBe(member.id);
    const replay = cloneClient(client);

    const res = await client.json("POST", "/logout");
    expect(res.status).toBe(204);
    expect(setCookieLine(res.headers, SESSION_COOKIE)).toMatch(/Max-Age=0/i);
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);

    const left = await sessionsOf(member.id);
    expect(left.map((s) => s.id_hash)).not.toContain(row!.id_hash);
    // Replaying the old cookies does not sign anyone in.
    expect(await authStatus(replay)).toBe(401);
  });

  it("only ends the session that logs out", async () => {
    const a = await signInAs(member.details.email, member.details.password);
    const b = await signInAs(member.details.email, member.details.password);
    expect((await a.client.json("POST", "/logout")).status).toBe(204);
    expect(await authStatus(b.client)).toBe(202);
  });
});
