import { beforeAll, describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { uniqueMember, verifiedMember } from "../helpers/members";
import { authStatus, SESSION_COOKIE, signInAs, userByEmail } from "../helpers/auth";

const MISMATCH = { message: "CSRF token mismatch." };

let member: Awaited<ReturnType<typeof verifiedMember>>;

beforeAll(async () => {
  member = await verifiedMember();
});

describe("CSRF protection", () => {
  it("answers 419 to a POST without a token, and creates nothing", async () => {
    const client = new TestClient();
    await client.loadCsrfFromPage("/register");
    const details = uniqueMember("nocsrf");
    const res = await client.json("POST", "/register", details, { csrf: null });
    expect(res.status).toBe(419);
    expect(res.body).toEqual(MISMATCH);
    expect(await userByEmail(details.email)).toBeNull();
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it("answers 419 to a wrong token", async () => {
    const client = new TestClient();
    const real = await client.loadCsrfFromPage();
    const wrong = real.slice(0, -2) + (real.endsWith("AA") ? "BB" : "AA");
    const details = uniqueMember("badcsrf");
    const res = await client.json("POST", "/register", details, { csrf: wrong });
    expect(res.status).toBe(419);
    expect(res.body).toEqual(MISMATCH);
    expect(await userByEmail(details.email)).toBeNull();
  });

  it("answers 419 to a token issued to another browser", async () => {
    const theirs = await new TestClient().loadCsrfFromPage();
    const client = new TestClient();
    await client.loadCsrfFromPage();
    const res = await client.json(
      "POST",
      "/login",
      { email: member.details.email, password: member.details.password },
      { csrf: theirs },
    );
    expect(res.status).toBe(419);
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it("answers 419 to a token from before sign-in, which replaces the secret", async () => {
    const client = new TestClient();
    const beforeLogin = await client.loadCsrfFromPage();
    await signInAs(member.details.email, member.details.password, { client });
    expect(client.csrfToken).not.toBe(beforeLogin);

    const stale = await client.json("POST", "/email/verification-notification", undefined, {
      csrf: beforeLogin,
    });
    expect(stale.status).toBe(419);
    expect(stale.body).toEqual(MISMATCH);
    // The page after sign-in carries the new token, and it works.
    expect(await authStatus(client)).toBe(202);
  });

  it("answers 419 to a token from before sign-out, and the sign-out stands", async () => {
    const { client } = await signInAs(member.details.email, member.details.password);
    const beforeLogout = client.csrfToken;
    expect((await client.json("POST", "/logout")).status).toBe(204);

    const stale = await client.json(
      "POST",
      "/login",
      { email: member.details.email, password: member.details.password },
      { csrf: beforeLogout },
    );
    expect(stale.status).toBe(419);
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);

    const fresh = await client.loadCsrfFromPage();
    expect(fresh).not.toBe(beforeLogout);
  });

  it("changes nothing on 419: a password change and a logout without a token are refused", async () => {
    const owner = await verifiedMember();
    const res = await owner.client.json(
      "PUT",
      "/settings/password",
      {
        current_password: owner.details.password,
        password: "another passphrase",
        password_confirmation: "another passphrase",
      },
      { csrf: null },
    );
    expect(res.status).toBe(419);
    expect((await owner.client.json("POST", "/logout", undefined, { csrf: null })).status).toBe(
      419,
    );
    expect(await authStatus(owner.client)).toBe(202);
    await signInAs(owner.details.email, owner.details.password);
  });

  it("accepts a plain HTML form post that carries _csrf, and refuses one that does not", async () => {
    const refused = new TestClient();
    await refused.loadCsrfFromPage();
    const noToken = await refused.form(
      "/login",
      { email: member.details.email, password: member.details.password },
      false,
    );
    expect(noToken.status).toBe(419);
    expect(refused.cookies.has(SESSION_COOKIE)).toBe(false);

    const client = new TestClient();
    const res = await client.form("/login", {
      email: member.details.email,
      password: member.details.password,
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/dashboard");
    expect(client.cookies.has(SESSION_COOKIE)).toBe(true);
  });

  it("does not ask for a token on GET, and serves one at /csrf-token", async () => {
    const client = new TestClient();
    const res = await client.json<{ token: string }>("GET", "/csrf-token");
    expect(res.status).toBe(200);
    client.csrfToken = res.body.token;
    const login = await client.json("POST", "/login", {
      email: member.details.email,
      password: member.details.password,
    });
    expect(login.status).toBe(200);
  });
});
