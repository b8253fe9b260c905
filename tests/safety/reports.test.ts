import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { SUSPENDED_MESSAGE } from "~/server/auth.server";
import { getDb, schema } from "~/server/db.server";
import { REPORT_HIDE_THRESHOLD } from "~/server/reports.server";
import { REPORTED_MESSAGE } from "~/schemas/report";
import { TestClient } from "../helpers/client";
import { registerMember, verifiedMember } from "../helpers/members";
import { signInAs } from "../helpers/auth";
import {
  block,
  converse,
  countRows,
  makeModerator,
  page,
  seasonedMember,
  type Member,
} from "./helpers";

/**
 * Whether `member` shows in search: through a real search by their username from another member,
 * which agrees with the stored flag (kept by the database from the open reports).
 */
async function visibleInSearch(member: Member, searcher: Member) {
  const row = await getDb(env.DB)
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(and(eq(schema.users.id, member.id), eq(schema.users.hiddenByReports, false)))
    .get();
  const res = await searcher.client.json<{ results: { id: string }[] }>(
    "POST",
    "/dashboard/search",
    { keywords: member.details.username, filters: {} },
  );
  const found = res.body.results.some((r) => r.id === member.id);
  expect(found, "search and the stored flag agree").toBe(row !== undefined);
  return found;
}

function report(from: Member, to: Member, extra: Record<string, unknown> = {}) {
  return from.client.json<{ message: string; report: Record<string, unknown> }>(
    "POST",
    "/reports",
    { user_id: to.id, reason_type: "fake_profile", ...extra },
  );
}

describe("reports", () => {
  it("stores a report (201) and counts one report per reporter and member", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const first = await report(alice, bob, { details: "Photos are stolen." });
    expect(first.status).toBe(201);
    expect(first.body.message).toBe(REPORTED_MESSAGE);
    expect(first.body.report).toMatchObject({
      user_id: bob.id,
      reason_type: "fake_profile",
      details: "Photos are stolen.",
      status: "open",
    });
    expect(first.body.report.created_at).toMatch(/Z$/);

    const again = await report(alice, bob, { reason_type: "scam" });
    expect(again.status).toBe(201);
    expect(again.body.report).toMatchObject({ id: first.body.report.id, reason_type: "scam" });
    expect(await countRows("reports", "reported_id = ?1", bob.id)).toBe(1);
  });

  it("refuses bad input with 422, unknown members with 404, and changes nothing", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const bad = await alice.client.json<{ errors: Record<string, string[]> }>("POST", "/reports", {
      user_id: bob.id,
      reason_type: "boring",
      details: "x".repeat(1001),
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["details", "reason_type"]);
    expect((await report(alice, alice)).status).toBe(422);
    expect(
      (await alice.client.json("POST", "/reports", { user_id: "nobody", reason_type: "spam" }))
        .status,
    ).toBe(404);
    const foreignMessage = await report(alice, bob, { message_id: "not-a-message" });
    expect(foreignMessage.status).toBe(422);
    expect(await countRows("reports", "reporter_id = ?1", alice.id)).toBe(0);
  });

  it("needs a signed-in member with a verified email, and the CSRF token", async () => {
    const bob = await verifiedMember();
    const guest = new TestClient();
    expect(
      (await guest.json("POST", "/reports", { user_id: bob.id, reason_type: "spam" })).status,
    ).toBe(401);
    const unverified = await registerMember();
    expect(
      (await unverified.client.json("POST", "/reports", { user_id: bob.id, reason_type: "spam" }))
        .status,
    ).toBe(403);
    const alice = await verifiedMember();
    const noToken = await alice.client.json(
      "POST",
      "/reports",
      { user_id: bob.id, reason_type: "spam" },
      { csrf: null },
    );
    expect(noToken.status).toBe(419);
  });

  it("a report can point at a message the reported member sent to the reporter", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const { messageId } = await converse(bob, alice, "Send me money");
    const mine = await converse(alice, bob, "No.");
    const res = await report(alice, bob, { reason_type: "scam", message_id: messageId });
    expect(res.status).toBe(201);
    expect(res.body.report.message_id).toBe(messageId);
    const stored = await env.DB.prepare("SELECT message_text FROM reports WHERE id = ?1")
      .bind(res.body.report.id)
      .first<{ message_text: string }>();
    expect(stored?.message_text).toBe("Send me money");
    // A message of the reporter's own is not the reported member's.
    expect((await report(alice, bob, { message_id: mine.messageId })).status).toBe(422);
  });

  it("stays possible across a block either way", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    await block(alice, bob);
    expect((await report(alice, bob)).status).toBe(201);
    expect((await report(bob, alice)).status).toBe(201);
  });

  it(`hides a member from search once ${REPORT_HIDE_THRESHOLD} distinct seasoned members report them`, async () => {
    const target = await verifiedMember();
    const reporters = await Promise.all(
      Array.from({ length: REPORT_HIDE_THRESHOLD }, () => seasonedMember()),
    );
    const searcher = await verifiedMember();
    for (const [i, reporter] of reporters.entries()) {
      expect(await visibleInSearch(target, searcher)).toBe(true);
      await report(reporter, target);
      // The same reporter again does not count twice.
      if (i === 0) await report(reporter, target, { reason_type: "spam" });
    }
    expect(await visibleInSearch(target, searcher)).toBe(false);
  });

  it("shows the member again once a reporter's account is deleted and too few reports remain", async () => {
    const target = await verifiedMember();
    const reporters = await Promise.all(
      Array.from({ length: REPORT_HIDE_THRESHOLD }, () => seasonedMember()),
    );
    const searcher = await verifiedMember();
    for (const reporter of reporters) await report(reporter, target);
    expect(await visibleInSearch(target, searcher)).toBe(false);
    expect((await reporters[0]!.client.json("DELETE", "/my/account")).status).toBe(200);
    expect(await countRows("reports", "reported_id = ?1", target.id)).toBe(
      REPORT_HIDE_THRESHOLD - 1,
    );
    expect(await visibleInSearch(target, searcher)).toBe(true);
  });
});

describe("reports a mob cannot weaponise (docs/decisions/021)", () => {
  it("three new accounts cannot hide a member, however many reports they file", async () => {
    const target = await verifiedMember();
    const searcher = await verifiedMember();
    const mob = await Promise.all([verifiedMember(), verifiedMember(), verifiedMember()]);
    for (const member of mob) {
      expect((await report(member, target)).status).toBe(201);
      expect((await report(member, target, { reason_type: "spam" })).status).toBe(201);
    }
    expect(await countRows("reports", "reported_id = ?1 AND status = 'open'", target.id)).toBe(3);
    expect(await visibleInSearch(target, searcher)).toBe(true);
    // Nor do new accounts tip the balance alongside one seasoned reporter.
    await report(await seasonedMember(), target);
    expect(await visibleInSearch(target, searcher)).toBe(true);
  }, 30_000);

  it("weighs each report by its reporter's standing: age, upheld and dismissed reports", async () => {
    const mod = await verifiedMember();
    await makeModerator(mod.id);
    const weights = async (reporter: Member) => {
      const target = await verifiedMember();
      const filed = await report(reporter, target);
      expect(filed.status).toBe(201);
      const row = await env.DB.prepare("SELECT weight FROM reports WHERE id = ?1")
        .bind(filed.body.report.id)
        .first<{ weight: number }>();
      return row!.weight;
    };
    expect(await weights(await verifiedMember())).toBe(0);
    expect(await weights(await seasonedMember(6))).toBe(0);
    expect(await weights(await seasonedMember(30))).toBe(1);
    const seasoned = await seasonedMember(120);
    expect(await weights(seasoned)).toBe(2);
    // A report a moderator dismissed costs one; an upheld one (a suspension) adds one.
    const list = await mod.client.json<{ reports: { id: string; reporter: { id: string } }[] }>(
      "GET",
      "/moderation/reports",
    );
    const theirs = list.body.reports.find((r) => r.reporter.id === seasoned.id)!;
    await mod.client.json("POST", `/moderation/reports/${theirs.id}/dismiss`);
    expect(await weights(seasoned)).toBe(1);
    const troll = await verifiedMember();
    await report(seasoned, troll);
    await mod.client.json("POST", `/moderation/members/${troll.id}/suspend`);
    expect(await weights(seasoned)).toBe(2);
    // Moderators see the same record beside the reporter's open report.
    const after = await mod.client.json<{ reports: { reporter: Record<string, unknown> }[] }>(
      "GET",
      "/moderation/reports",
    );
    expect(after.body.reports.find((r) => r.reporter.id === seasoned.id)?.reporter).toMatchObject({
      verified_days: 120,
      reports_upheld: 1,
      reports_dismissed: 1,
    });
  }, 30_000);

  it("moderators see each report's weight, the reporter's record and the weight against a member", async () => {
    const mod = await verifiedMember();
    await makeModerator(mod.id);
    const target = await verifiedMember();
    const fresh = await verifiedMember();
    const seasoned = await seasonedMember();
    await report(fresh, target);
    await report(seasoned, target);
    const list = await mod.client.json<{ reports: Record<string, unknown>[] }>(
      "GET",
      "/moderation/reports",
    );
    const mine = list.body.reports.filter((r) => (r.reported as { id: string }).id === target.id);
    expect(mine).toHaveLength(2);
    const byReporter = (m: Member) => mine.find((r) => (r.reporter as { id: string }).id === m.id);
    expect(byReporter(fresh)).toMatchObject({
      weight: 0,
      reporter: { verified_days: 0, reports_upheld: 0, reports_dismissed: 0 },
      reported: { open_reports: 2, open_weight: 2, hidden_from_search: false },
    });
    expect(byReporter(seasoned)).toMatchObject({ weight: 2, reporter: { verified_days: 120 } });
    const html = await (await page(mod.client, "/moderation")).text();
    expect(html).toContain("weight 2");
    // What suspension does to the member's money is said before the moderator acts.
    expect(html.replace(/\s+/g, " ")).toContain(
      "Their subscription does not renew: it ends with the period already paid (no refund is made)",
    );
    expect(html).toMatch(/aria-describedby="suspend-effects"/);
  }, 30_000);

  it("limits how many reports a member may file (429 with Retry-After), and stores none past it", async () => {
    const reporter = await verifiedMember();
    const targets = await Promise.all(Array.from({ length: 12 }, () => verifiedMember()));
    const answers = await Promise.all(targets.map((t) => report(reporter, t)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    const limited = answers.find((a) => a.status === 429)!;
    expect(limited.body.message).toBe("You have sent too many reports. Please try again later.");
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await countRows("reports", "reporter_id = ?1", reporter.id)).toBe(10);
  }, 30_000);
});

describe("moderation", () => {
  async function reportedMember() {
    const target = await verifiedMember();
    const reporters = await Promise.all(
      Array.from({ length: REPORT_HIDE_THRESHOLD }, () => seasonedMember()),
    );
    const ids: string[] = [];
    for (const r of reporters) ids.push(String((await report(r, target)).body.report.id));
    return { target, reporters, reportIds: ids };
  }

  async function moderator() {
    const mod = await verifiedMember();
    await makeModerator(mod.id);
    return mod;
  }

  it("is invisible to members: 404 for the page and the API; 401 for guests", async () => {
    const member = await verifiedMember();
    const { target, reportIds } = await reportedMember();
    expect((await member.client.json("GET", "/moderation/reports")).status).toBe(404);
    expect((await page(member.client, "/moderation")).status).toBe(404);
    expect(
      (await member.client.json("POST", `/moderation/reports/${reportIds[0]}/dismiss`)).status,
    ).toBe(404);
    expect(
      (await member.client.json("POST", `/moderation/members/${target.id}/suspend`)).status,
    ).toBe(404);
    expect((await new TestClient().json("GET", "/moderation/reports")).status).toBe(401);
    expect(await countRows("reports", "reported_id = ?1 AND status = 'open'", target.id)).toBe(
      REPORT_HIDE_THRESHOLD,
    );
  });

  it("lists open reports; dismissing one makes a hidden member findable again", async () => {
    const mod = await moderator();
    const { target, reporters, reportIds } = await reportedMember();
    const list = await mod.client.json<{ reports: Record<string, unknown>[] }>(
      "GET",
      "/moderation/reports",
    );
    expect(list.status).toBe(200);
    const mine = list.body.reports.filter((r) => (r.reported as { id: string }).id === target.id);
    expect(mine).toHaveLength(REPORT_HIDE_THRESHOLD);
    expect(mine[0]).toMatchObject({
      reason_type: "fake_profile",
      reported: { open_reports: REPORT_HIDE_THRESHOLD, hidden_from_search: true },
    });
    expect(reporters.map((r) => r.id)).toContain((mine[0]!.reporter as { id: string }).id);

    const html = await (await page(mod.client, "/moderation")).text();
    expect(html).toContain(`@${target.details.username}`);

    expect(await visibleInSearch(target, mod)).toBe(false);
    const dismissed = await mod.client.json("POST", `/moderation/reports/${reportIds[0]}/dismiss`);
    expect(dismissed.status).toBe(200);
    expect(await visibleInSearch(target, mod)).toBe(true);
    expect((await mod.client.json("POST", "/moderation/reports/unknown/dismiss")).status).toBe(404);
  });

  it("suspends a member: sessions end, sign-in is refused, the profile is gone", async () => {
    const mod = await moderator();
    const { target, reporters } = await reportedMember();
    const res = await mod.client.json("POST", `/moderation/members/${target.id}/suspend`);
    expect(res.status).toBe(200);
    const user = await env.DB.prepare("SELECT status FROM users WHERE id = ?1")
      .bind(target.id)
      .first<{ status: string }>();
    expect(user?.status).toBe("suspended");
    expect(await countRows("sessions", "user_id = ?1", target.id)).toBe(0);
    expect(await countRows("reports", "reported_id = ?1 AND status = 'open'", target.id)).toBe(0);
    expect((await target.client.json("GET", "/my/blocked-users")).status).toBe(401);
    const login = await new TestClient().json<{ errors: Record<string, string[]> }>(
      "POST",
      "/login",
      { email: target.details.email, password: target.details.password },
    );
    expect(login.status).toBe(422);
    expect(login.body.errors.email).toEqual([SUSPENDED_MESSAGE]);
    expect(
      (await reporters[0]!.client.json("GET", `/members/${target.details.username}`)).status,
    ).toBe(404);
  });

  it("suspends through the moderation page's form", async () => {
    const mod = await moderator();
    const { target } = await reportedMember();
    await mod.client.loadCsrfFromPage("/moderation");
    const res = await mod.client.form("/moderation?index", { intent: "suspend", id: target.id });
    expect(res.status).toBeLessThan(400);
    expect(await countRows("users", "id = ?1 AND status = 'suspended'", target.id)).toBe(1);
  });

  it("a moderator cannot suspend themself or another moderator", async () => {
    const mod = await moderator();
    const other = await moderator();
    expect((await mod.client.json("POST", `/moderation/members/${mod.id}/suspend`)).status).toBe(
      403,
    );
    expect((await mod.client.json("POST", `/moderation/members/${other.id}/suspend`)).status).toBe(
      403,
    );
    expect((await mod.client.json("POST", "/moderation/members/nobody/suspend")).status).toBe(404);
    // Still signed in and active.
    expect((await signInAs(other.details.email, other.details.password)).res.status).toBe(200);
  });
});
