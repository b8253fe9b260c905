import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RESET_TOKEN_INVALID } from "~/server/auth.server";
import { TestClient } from "../helpers/client";
import {
  countEmailsTo,
  firstLink,
  latestEmailTo,
  registerMember,
  verifiedMember,
} from "../helpers/members";
import { authStatus, emailsTo, sessionsOf, signInAs, titleOf, userByEmail } from "../helpers/auth";

const NEW_PASSWORD = "a fresh start passphrase";

async function requestReset(email: string) {
  return new TestClient().json<{ status: string }>("POST", "/forgot-password", { email });
}

/** Asks for a reset link and reads the token and address from the email. */
async function resetLinkFor(email: string) {
  const before = await countEmailsTo(email);
  expect((await requestReset(email)).status).toBe(200);
  const mail = await latestEmailTo(email, before);
  expect(mail?.subject).toBe("Reset your password");
  const link = new URL(firstLink(mail!.text), "http://localhost");
  const token = link.pathname.split("/").pop()!;
  return { path: `${link.pathname}${link.search}`, token, email: link.searchParams.get("email")! };
}

function reset(token: string, email: string, password = NEW_PASSWORD) {
  return new TestClient().json<{ status?: string; errors?: Record<string, string[]> }>(
    "POST",
    "/reset-password",
    { token, email, password, password_confirmation: password },
  );
}

describe("POST /forgot-password", () => {
  it("answers the same 200 {status} for a member's address and an unknown one", async () => {
    const member = await registerMember();
    const known = await requestReset(member.details.email);
    const unknown = await requestReset("never-registered@example.test");
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
    expect(Object.keys(known.body)).toEqual(["status"]);

    // After the verification email, the reset link.
    expect((await latestEmailTo(member.details.email, 1))?.subject).toBe("Reset your password");
    // The unknown address gets a note that no account uses it, and no link that could work.
    const note = await emailsTo("never-registered@example.test", 1);
    expect(note.map((m) => m.subject)).toEqual(["Reset your password"]);
    expect(note[0]!.text).toContain("no active account uses it");
    expect(note[0]!.text).not.toContain("/reset-password/");
  });

  it("stores only a hash of the reset token", async () => {
    const member = await registerMember();
    const { token } = await resetLinkFor(member.details.email);
    const rows = (
      await env.DB.prepare("SELECT * FROM password_reset_tokens WHERE user_id = ?1")
        .bind(member.id)
        .all<Record<string, unknown>>()
    ).results;
    expect(rows).toHaveLength(1);
    for (const value of Object.values(rows[0]!)) expect(String(value)).not.toContain(token);
  });
});

describe("POST /reset-password", () => {
  it("works once: changes the password, ends every session, and a second use is 422", async () => {
    const member = await verifiedMember();
    const { email, password } = member.details;
    const other = (await signInAs(email, password)).client;
    const link = await resetLinkFor(email);
    expect(link.email).toBe(email);

    const first = await reset(link.token, email);
    expect(first.status).toBe(200);
    expect(first.body.status).toEqual(expect.any(String));

    expect(await sessionsOf(member.id)).toHaveLength(0);
    expect(await authStatus(member.client)).toBe(401);
    expect(await authStatus(other)).toBe(401);

    const old = await new TestClient().json("POST", "/login", { email, password });
    expect(old.status).toBe(422);
    await signInAs(email, NEW_PASSWORD);

    const second = await reset(link.token, email, "yet another passphrase");
    expect(second.status).toBe(422);
    expect(second.body.errors?.email).toEqual(["This password reset token is invalid."]);
    await signInAs(email, NEW_PASSWORD);
  });

  it("refuses an expired token and leaves the password as it was", async () => {
    const member = await registerMember();
    const { token } = await resetLinkFor(member.details.email);
    await env.DB.prepare("UPDATE password_reset_tokens SET expires_at = ?1 WHERE user_id = ?2")
      .bind(new Date(Date.now() - 1000).toISOString(), member.id)
      .run();
    const res = await reset(token, member.details.email);
    expect(res.status).toBe(422);
    expect(res.body.errors?.email).toEqual(["This password reset token is invalid."]);
    await signInAs(member.details.email, member.details.password);
  });

  it("refuses a token used with another member's address, or a made-up token", async () => {
    const member = await registerMember();
    const bystander = await registerMember();
    const { token } = await resetLinkFor(member.details.email);
    expect((await reset(token, bystander.details.email)).status).toBe(422);
    expect((await reset("not-a-real-token", member.details.email)).status).toBe(422);
    await signInAs(bystander.details.email, bystander.details.password);
    // The real token still works for its own member.
    expect((await reset(token, member.details.email)).status).toBe(200);
  });

  it("spends the member's older links when one of them is used", async () => {
    const member = await registerMember();
    const older = await resetLinkFor(member.details.email);
    const newer = await resetLinkFor(member.details.email);
    expect((await reset(newer.token, member.details.email)).status).toBe(200);
    expect((await reset(older.token, member.details.email, "other passphrase")).status).toBe(422);
    await signInAs(member.details.email, NEW_PASSWORD);
  });

  it("validates the new password and its confirmation", async () => {
    const member = await registerMember();
    const { token } = await resetLinkFor(member.details.email);
    const res = await new TestClient().json<{ errors: Record<string, string[]> }>(
      "POST",
      "/reset-password",
      { token, email: member.details.email, password: NEW_PASSWORD, password_confirmation: "x" },
    );
    expect(res.status).toBe(422);
    expect(res.body.errors.password_confirmation).toEqual([
      "The password field confirmation does not match.",
    ]);
    // Not spent by a refused attempt.
    expect((await reset(token, member.details.email)).status).toBe(200);
  });

  it("marks the address verified, since the link came through the inbox", async () => {
    const member = await registerMember();
    expect((await userByEmail(member.details.email))?.email_verified_at).toBeNull();
    const { token } = await resetLinkFor(member.details.email);
    expect((await reset(token, member.details.email)).status).toBe(200);
    expect((await userByEmail(member.details.email))?.email_verified_at).toEqual(
      expect.any(String),
    );
  });

  it("serves the page from the email link and accepts its plain form", async () => {
    const member = await registerMember();
    const link = await resetLinkFor(member.details.email);
    const client = new TestClient();
    const page = await client.fetch(link.path, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(titleOf(html)).toBe("Reset Password - Heartline");
    await client.loadCsrfFromPage(link.path);

    const res = await client.form(link.path, {
      email: link.email,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("Location")!, "http://localhost").pathname).toBe("/login");
    await signInAs(member.details.email, NEW_PASSWORD);
  });
});

describe("GET /reset-password/{token}", () => {
  const page = async (path: string) => {
    const res = await new TestClient().fetch(path, { headers: { Accept: "text/html" } });
    return { status: res.status, html: await res.text() };
  };

  it("shows the form for a usable link, without spending it", async () => {
    const member = await registerMember();
    const link = await resetLinkFor(member.details.email);
    for (let i = 0; i < 2; i++) {
      const { status, html } = await page(link.path);
      expect(status).toBe(200);
      expect(titleOf(html)).toBe("Reset Password - Heartline");
      expect(html).toContain("Choose a new password");
      expect(html).not.toContain("This reset link has expired");
    }
    expect((await reset(link.token, member.details.email)).status).toBe(200);
  });

  it("the page's form resets, makes the browser a known device, and sends to sign-in", async () => {
    const member = await registerMember();
    const link = await resetLinkFor(member.details.email);
    const browser = new TestClient();
    const res = await browser.form(link.path, {
      email: link.email,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toMatch(/^\/login\?status=/);
    expect(browser.cookies.has("heartline_device")).toBe(true);
    await signInAs(member.details.email, NEW_PASSWORD);
  });

  it("says at once that a spent, expired or unknown link cannot be used (410, no form)", async () => {
    const member = await registerMember();
    const spent = await resetLinkFor(member.details.email);
    expect((await reset(spent.token, member.details.email)).status).toBe(200);
    const expired = await resetLinkFor(member.details.email);
    await env.DB.prepare(
      "UPDATE password_reset_tokens SET expires_at = ?1 WHERE user_id = ?2 AND used_at IS NULL",
    )
      .bind(new Date(Date.now() - 1000).toISOString(), member.id)
      .run();
    for (const path of [spent.path, expired.path, "/reset-password/not-a-real-token-at-all"]) {
      const { status, html } = await page(path);
      expect(status, path).toBe(410);
      expect(html, path).toContain("This reset link has expired");
      expect(html, path).toContain('href="/forgot-password"');
      expect(html, path).not.toContain('name="password"');
      // The page's data, as the browser asks for it on a client-side visit: the reason, in words.
      const url = new URL(path, "http://localhost");
      url.searchParams.set("_data", "routes/reset-password.$token");
      const data = await new TestClient().fetch(url.pathname + url.search);
      expect(data.status, path).toBe(410);
      expect(await data.json(), path).toEqual({ usable: false, message: RESET_TOKEN_INVALID });
    }
  });
});

describe("the reset email", () => {
  it("greets the member by first name once they gave one, else by username", async () => {
    const member = await registerMember();
    await requestReset(member.details.email);
    expect((await latestEmailTo(member.details.email, 1))?.text).toMatch(
      new RegExp(`^Hi ${member.details.username},`),
    );
    await env.DB.prepare("UPDATE profiles SET first_name = 'Maya' WHERE user_id = ?1")
      .bind(member.id)
      .run();
    await requestReset(member.details.email);
    expect((await latestEmailTo(member.details.email, 2))?.text).toMatch(/^Hi Maya,/);
  });
});
