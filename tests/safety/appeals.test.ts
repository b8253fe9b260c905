import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SUSPENDED_MESSAGE } from "~/server/auth.server";
import { APPEAL_MESSAGES } from "~/schemas/verification";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { countRows, makeModerator, page, seasonedMember, type Member } from "./helpers";

async function moderator() {
  const mod = await verifiedMember();
  await makeModerator(mod.id);
  return mod;
}

/** A member hidden from search by three seasoned members' reports. */
async function hiddenMember(reason = "harassment") {
  const target = await verifiedMember();
  for (let i = 0; i < 3; i++) {
    const reporter = await seasonedMember();
    const res = await reporter.client.json("POST", "/reports", {
      user_id: target.id,
      reason_type: reason,
    });
    expect(res.status).toBe(201);
  }
  expect(await countRows("users", "id = ?1 AND hidden_by_reports = 1", target.id)).toBe(1);
  return target;
}

const standing = (client: TestClient) =>
  client.json<{
    measure: string | null;
    reasons: string[];
    appeal: { status: string } | null;
    can_appeal: boolean;
  }>("GET", "/my/appeal");

/** Signs in a suspended member: refused (422) with the appeal cookie set on the client. */
async function suspendedSignIn(member: Member) {
  const client = new TestClient();
  const res = await client.json<{ errors: Record<string, string[]> }>("POST", "/login", {
    email: member.details.email,
    password: member.details.password,
  });
  expect(res.status).toBe(422);
  expect(res.body.errors.email).toEqual([SUSPENDED_MESSAGE]);
  return client;
}

describe("appeals", () => {
  it("a member hidden after reports is told why on their next page, and may appeal once", async () => {
    const mod = await moderator();
    const target = await hiddenMember();
    const html = await (await page(target.client, "/dashboard")).text();
    expect(html).toContain("Your profile is hidden from search after reports");
    const view = await standing(target.client);
    expect(view.body).toMatchObject({
      measure: "hidden",
      reasons: ["Members reported that you harassed or threatened them."],
      appeal: null,
      can_appeal: true,
    });
    // Never who reported.
    expect(JSON.stringify(view.body)).not.toMatch(/reporter|username/);

    const bad = await target.client.json("POST", "/my/appeal", { text: "  " });
    expect(bad.status).toBe(422);
    const sent = await target.client.json("POST", "/my/appeal", {
      text: "This was a misunderstanding.",
    });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ message: APPEAL_MESSAGES.sent, appeal: { status: "open" } });
    const twice = await target.client.json("POST", "/my/appeal", { text: "Again." });
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({ message: APPEAL_MESSAGES.once });
    expect((await standing(target.client)).body.can_appeal).toBe(false);

    // Moderators see it beside the reports: the API and the moderation page.
    const list = await mod.client.json<{
      appeals: { id: string; member: { id: string; report_reasons: string[] } }[];
    }>("GET", "/moderation/appeals");
    const appeal = list.body.appeals.find((a) => a.member.id === target.id)!;
    expect(appeal.member.report_reasons).toEqual(["harassment"]);
    expect(await (await page(mod.client, "/moderation")).text()).toContain(
      "This was a misunderstanding.",
    );
    expect((await target.client.json("GET", "/moderation/appeals")).status).toBe(404);

    // Granted: the reports are dismissed, the member is back in search.
    expect((await mod.client.json("POST", `/moderation/appeals/${appeal.id}/grant`)).status).toBe(
      200,
    );
    expect(await countRows("users", "id = ?1 AND hidden_by_reports = 0", target.id)).toBe(1);
    expect((await standing(target.client)).body.measure).toBeNull();
  });

  it("a member in good standing has nothing to appeal", async () => {
    const member = await verifiedMember();
    expect((await standing(member.client)).body).toMatchObject({
      measure: null,
      can_appeal: false,
    });
    const res = await member.client.json("POST", "/my/appeal", { text: "Hello" });
    expect(res.status).toBe(409);
    expect(await countRows("appeals", "user_id = ?1", member.id)).toBe(0);
    expect((await new TestClient().json("GET", "/my/appeal")).status).toBe(401);
  });

  it("a suspended member signing in is told why and may appeal once; a denial is final", async () => {
    const mod = await moderator();
    const target = await hiddenMember("scam");
    expect((await mod.client.json("POST", `/moderation/members/${target.id}/suspend`)).status).toBe(
      200,
    );
    // Their old session is gone; a wrong password gets no appeal cookie.
    expect((await standing(target.client)).status).toBe(401);
    const stranger = new TestClient();
    await stranger.json("POST", "/login", {
      email: target.details.email,
      password: "wrong password!",
    });
    expect((await standing(stranger)).status).toBe(401);

    const client = await suspendedSignIn(target);
    const view = await standing(client);
    expect(view.body).toMatchObject({
      measure: "suspended",
      reasons: ["Members reported that you asked them for money or tried to scam them."],
      can_appeal: true,
    });
    // The cookie opens the appeal and nothing else.
    expect((await client.json("GET", "/my/blocked-users")).status).toBe(401);
    await client.loadCsrfFromPage("/login");
    const sent = await client.json("POST", "/my/appeal", { text: "Someone used my account." });
    expect(sent.status).toBe(201);
    expect((await client.json("POST", "/my/appeal", { text: "Please" })).status).toBe(409);

    const { id } = (await env.DB.prepare("SELECT id FROM appeals WHERE user_id = ?1")
      .bind(target.id)
      .first<{ id: string }>())!;
    expect((await mod.client.json("POST", `/moderation/appeals/${id}/deny`)).status).toBe(200);
    const after = await standing(client);
    expect(after.body).toMatchObject({
      measure: "suspended",
      appeal: { status: "denied" },
      can_appeal: false,
    });
    expect((await client.json("POST", "/my/appeal", { text: "Please" })).status).toBe(409);
    // A decided appeal is decided.
    expect((await mod.client.json("POST", `/moderation/appeals/${id}/grant`)).status).toBe(404);
  });

  it("a granted suspension appeal makes the account active again", async () => {
    const mod = await moderator();
    const target = await hiddenMember();
    await mod.client.json("POST", `/moderation/members/${target.id}/suspend`);
    const client = await suspendedSignIn(target);
    await client.loadCsrfFromPage("/login");
    expect((await client.json("POST", "/my/appeal", { text: "I did nothing wrong." })).status).toBe(
      201,
    );
    const { id } = (await env.DB.prepare("SELECT id FROM appeals WHERE user_id = ?1")
      .bind(target.id)
      .first<{ id: string }>())!;
    expect((await mod.client.json("POST", `/moderation/appeals/${id}/grant`)).status).toBe(200);
    const again = new TestClient();
    const login = await again.json("POST", "/login", {
      email: target.details.email,
      password: target.details.password,
    });
    expect(login.status).toBe(200);
  });

  it("the sign-in page sends a suspended member to their appeal", async () => {
    const mod = await moderator();
    const target = await hiddenMember();
    await mod.client.json("POST", `/moderation/members/${target.id}/suspend`);
    const client = new TestClient();
    await client.loadCsrfFromPage("/login");
    const res = await client.form("/login", {
      email: target.details.email,
      password: target.details.password,
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/my/appeal");
    const html = await (await page(client, "/my/appeal")).text();
    expect(html).toContain("Your account is suspended");
  });
});
