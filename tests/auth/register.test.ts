import { describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { latestEmailTo, registerMember, uniqueMember } from "../helpers/members";
import { authStatus, countUsers, emailsTo, type PublicUser, userByEmail } from "../helpers/auth";

/** YYYY-MM-DD of today (UTC) `years` ago, shifted by `days`. */
function birthday(years: number, days = 0) {
  const now = new Date();
  const d = new Date(
    Date.UTC(now.getUTCFullYear() - years, now.getUTCMonth(), now.getUTCDate() + days),
  );
  return d.toISOString().slice(0, 10);
}

async function attempt(fields: Record<string, unknown>) {
  return new TestClient().json<{ user?: PublicUser; errors?: Record<string, string[]> }>(
    "POST",
    "/register",
    fields,
  );
}

describe("POST /register", () => {
  it("answers 201 with the user, signs the member in and sends a verification email", async () => {
    const client = new TestClient();
    const details = uniqueMember("reg");
    const res = await client.json<{ user: PublicUser }>("POST", "/register", details);
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({
      username: details.username,
      email: details.email,
      email_verified_at: null,
    });
    expect(res.body.user.id).toEqual(expect.any(String));

    // Signed in: an endpoint that needs a member answers 202, a stranger gets 401.
    expect(await authStatus(client)).toBe(202);
    expect(await authStatus(new TestClient())).toBe(401);

    const email = await latestEmailTo(details.email);
    expect(email?.subject).toBe("Verify your email address");
    expect(email?.text).toContain(`/verify-email/${res.body.user.id}/`);

    const stored = await userByEmail(details.email);
    expect(stored?.id).toBe(res.body.user.id);
    expect(stored?.password_hash).not.toContain(details.password);
  });

  it("refuses a member one day short of 18 with docs/domain.md's message", async () => {
    const details = { ...uniqueMember("young"), dateOfBirth: birthday(18, 1) };
    const res = await attempt(details);
    expect(res.status).toBe(422);
    expect(res.body.errors?.dateOfBirth).toEqual(["You must be at least 18 years old"]);
    expect(await userByEmail(details.email)).toBeNull();
    expect(await emailsTo(details.email)).toHaveLength(0);
  });

  it("accepts a member who turns 18 today", async () => {
    const res = await attempt({ ...uniqueMember("eighteen"), dateOfBirth: birthday(18) });
    expect(res.status).toBe(201);
  });

  it("refuses a missing or impossible date of birth", async () => {
    for (const dateOfBirth of [undefined, "", "2001-02-30", "01/02/2001"]) {
      const res = await attempt({ ...uniqueMember("dob"), dateOfBirth });
      expect(res.status).toBe(422);
      expect(res.body.errors?.dateOfBirth).toEqual(["Please select your date of birth"]);
    }
  });

  it.each([
    ["ab", "Username must be at least 3 characters"],
    ["a".repeat(31), "Username must be at most 30 characters"],
    ["bad-name", "Username can only contain letters, numbers, and underscores"],
    ["has space", "Username can only contain letters, numbers, and underscores"],
    ["émile", "Username can only contain letters, numbers, and underscores"],
  ])("refuses the username %j with docs/domain.md's exact message", async (username, message) => {
    const details = { ...uniqueMember("user"), username };
    const res = await attempt(details);
    expect(res.status).toBe(422);
    expect(res.body.errors?.username).toEqual([message]);
    expect(await userByEmail(details.email)).toBeNull();
  });

  it("accepts usernames of exactly 3 and 30 characters", async () => {
    const tag = Math.random().toString(36).slice(2, 5);
    for (const username of [`u${tag}`.slice(0, 3), `${tag}_${"x".repeat(26)}`]) {
      const res = await attempt({ ...uniqueMember("edge"), username });
      expect(res.status, username).toBe(201);
    }
  });

  it("refuses a taken username or email whatever their case, and creates nothing", async () => {
    const existing = await registerMember();
    const before = await countUsers();

    const sameName = await attempt({
      ...uniqueMember("dup"),
      username: existing.details.username.toUpperCase(),
    });
    expect(sameName.status).toBe(422);
    expect(Object.keys(sameName.body.errors ?? {})).toEqual(["username"]);

    const sameEmail = await attempt({
      ...uniqueMember("dup"),
      email: existing.details.email.toUpperCase(),
    });
    expect(sameEmail.status).toBe(422);
    expect(Object.keys(sameEmail.body.errors ?? {})).toEqual(["email"]);

    expect(await countUsers()).toBe(before);
    // The existing member's account is untouched and still theirs.
    expect((await userByEmail(existing.details.email))?.id).toBe(existing.id);
  });

  it("refuses a password confirmation that does not match", async () => {
    const details = { ...uniqueMember("conf"), password_confirmation: "something else entirely" };
    const res = await attempt(details);
    expect(res.status).toBe(422);
    expect(res.body.errors?.password_confirmation).toEqual([
      "The password field confirmation does not match.",
    ]);
    expect(await userByEmail(details.email)).toBeNull();
  });

  it("refuses a short password and a malformed email", async () => {
    const res = await attempt({
      ...uniqueMember("short"),
      email: "not-an-email",
      password: "short",
      password_confirmation: "short",
    });
    expect(res.status).toBe(422);
    expect(res.body.errors?.password).toEqual([
      "The password field must be at least 8 characters.",
    ]);
    expect(res.body.errors?.email).toEqual(["The email field must be a valid email address."]);
  });
});
