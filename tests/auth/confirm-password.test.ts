import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { HOUR, isoAgo, MINUTE, sessionRowOf, signInAs } from "../helpers/auth";

const REQUIRED = { message: "Password confirmation required." };

let member: Awaited<ReturnType<typeof verifiedMember>>;

beforeAll(async () => {
  member = await verifiedMember();
});

/** A fresh session of the shared member whose last password confirmation was `ageMs` ago. */
async function sessionConfirmedAgo(ageMs: number) {
  const { client } = await signInAs(member.details.email, member.details.password);
  const row = await sessionRowOf(client);
  await env.DB.prepare("UPDATE sessions SET password_confirmed_at = ?1 WHERE id_hash = ?2")
    .bind(isoAgo(ageMs), row!.id_hash)
    .run();
  return client;
}

/** A sensitive action that changes nothing: the same password again, or a refused one. */
function sensitive(client: TestClient, password = member.details.password) {
  return client.json("PUT", "/settings/password", {
    current_password: member.details.password,
    password,
    password_confirmation: password,
  });
}

describe("POST /confirm-password", () => {
  it("refuses a wrong password with 422", async () => {
    const client = await sessionConfirmedAgo(4 * HOUR);
    const res = await client.json<{ errors: Record<string, string[]> }>(
      "POST",
      "/confirm-password",
      { password: "not my password" },
    );
    expect(res.status).toBe(422);
    expect(res.body.errors.password).toEqual(["The provided password is incorrect."]);
    // And it confirmed nothing.
    expect((await sensitive(client)).status).toBe(423);
  });

  it("needs a signed-in member", async () => {
    const res = await new TestClient().json("POST", "/confirm-password", {
      password: member.details.password,
    });
    expect(res.status).toBe(401);
  });
});

describe("sensitive actions", () => {
  it("answer 423 when the last confirmation is over 3 hours old, and work after confirming", async () => {
    const client = await sessionConfirmedAgo(3 * HOUR + MINUTE);
    const blocked = await sensitive(client, "would be the new password");
    expect(blocked.status).toBe(423);
    expect(blocked.body).toEqual(REQUIRED);
    // Nothing changed: the old password still signs in.
    await signInAs(member.details.email, member.details.password);

    const confirm = await client.json("POST", "/confirm-password", {
      password: member.details.password,
    });
    expect(confirm.status).toBe(200);
    const row = await sessionRowOf(client);
    expect(Date.now() - Date.parse(row!.password_confirmed_at!)).toBeLessThan(MINUTE);
    expect((await sensitive(client)).status).toBe(200);
  });

  it("still work with a confirmation just under 3 hours old", async () => {
    const client = await sessionConfirmedAgo(3 * HOUR - 5 * MINUTE);
    expect((await sensitive(client)).status).toBe(200);
  });

  it("answer 423 to a session that never confirmed", async () => {
    const { client } = await signInAs(member.details.email, member.details.password);
    const row = await sessionRowOf(client);
    await env.DB.prepare("UPDATE sessions SET password_confirmed_at = NULL WHERE id_hash = ?1")
      .bind(row!.id_hash)
      .run();
    expect((await sensitive(client)).status).toBe(423);
  });

  it("count a confirmation for the session that made it only", async () => {
    const a = await sessionConfirmedAgo(4 * HOUR);
    const b = await sessionConfirmedAgo(4 * HOUR);
    const confirm = await a.json("POST", "/confirm-password", {
      password: member.details.password,
    });
    expect(confirm.status).toBe(200);
    expect((await sensitive(b)).status).toBe(423);
    // (Checked second: a successful change signs the member's other sessions out.)
    expect((await sensitive(a)).status).toBe(200);
  });

  it("send the password settings page to /confirm-password when the confirmation is stale", async () => {
    const client = await sessionConfirmedAgo(4 * HOUR);
    const res = await client.fetch("/settings/password", { headers: { Accept: "text/html" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(
      `/confirm-password?redirectTo=${encodeURIComponent("/settings/password")}`,
    );

    const fresh = await signInAs(member.details.email, member.details.password);
    const page = await fresh.client.fetch("/settings/password", {
      headers: { Accept: "text/html" },
    });
    expect(page.status).toBe(200);
  });
});
