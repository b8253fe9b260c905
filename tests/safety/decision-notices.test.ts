import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { memberServerFrame } from "~/realtime/member";
import { NOTIFICATION_TYPES } from "~/schemas/notifications";
import { REJECT_REASONS } from "~/schemas/verification";
import { SUSPENDED_MESSAGE } from "~/server/auth.server";
import { TestClient } from "../helpers/client";
import { emailsTo } from "../helpers/auth";
import { verifiedMember } from "../helpers/members";
import { openSocket } from "../helpers/sockets";
import { attemptsAt, subscribeBrowser } from "../push/browser";
import {
  countRows,
  makeModerator,
  memberWithPhoto,
  page,
  seasonedMember,
  type Member,
  pendingVerificationId,
  sendSelfie,
} from "./helpers";

/**
 * A moderator's decision is told to the member it concerns (docs/decisions/049): their photo
 * verification approved or rejected, their appeal granted or denied, each once, as an account
 * notice on the bell (whatever their switches; never pushed) that leads to their page, and as an
 * email; nobody else hears of it.
 */

const NOTICE_TYPES = "type IN ('verification', 'appeal')";

interface Notice {
  id: string;
  type: string;
  data: Record<string, unknown>;
  read_at: string | null;
}

async function moderator() {
  const mod = await verifiedMember();
  await makeModerator(mod.id);
  return mod;
}

/** The member's account notices on the bell (GET /notifications), newest first. */
async function noticesOf(member: Member) {
  const res = await member.client.json<{ notifications: Notice[]; unread_count: number }>(
    "GET",
    "/notifications",
  );
  expect(res.status).toBe(200);
  return {
    notices: res.body.notifications.filter((n) => n.type === "verification" || n.type === "appeal"),
    unread: res.body.unread_count,
  };
}

/** The emails an address got with one of these subjects (after a moment for any more to come). */
async function decisionEmails(address: string, expected: number) {
  const subjects = [
    "Your photos are verified",
    "Your photo verification was not accepted",
    "Your appeal was granted",
    "Your appeal was turned down",
  ];
  const all = await emailsTo(address, expected);
  return all.filter((e) => subjects.includes(e.subject));
}

/** None of these members got a notice or an email of a decision. */
async function noneTold(others: Member[]) {
  for (const other of others) {
    expect(await countRows("notifications", `user_id = ?1 AND ${NOTICE_TYPES}`, other.id)).toBe(0);
    expect(await decisionEmails(other.details.email, 0)).toEqual([]);
  }
}

/** A member with a photo whose selfie waits; returns the member and the request's id. */
async function pendingMember() {
  const member = await memberWithPhoto();
  const { pose } = (await member.client.json<{ pose: { id: string } }>("GET", "/my/verification"))
    .body;
  expect((await sendSelfie(member.client, pose.id)).status).toBe(202);
  return { member, id: await pendingVerificationId(member.id) };
}

/** A member hidden from search by three seasoned members' reports; returns them and reporters. */
async function hiddenMember(reason = "harassment") {
  const target = await verifiedMember();
  const reporters: Member[] = [];
  for (let i = 0; i < 3; i++) {
    const reporter = await seasonedMember();
    const res = await reporter.client.json("POST", "/reports", {
      user_id: target.id,
      reason_type: reason,
    });
    expect(res.status).toBe(201);
    reporters.push(reporter);
  }
  expect(await countRows("users", "id = ?1 AND hidden_by_reports = 1", target.id)).toBe(1);
  return { target, reporters };
}

const appealOf = async (userId: string) =>
  (await env.DB.prepare("SELECT id FROM appeals WHERE user_id = ?1 AND status = 'open'")
    .bind(userId)
    .first<{ id: string }>())!.id;

/** A suspended member who appealed through the appeal cookie; returns them and the appeal. */
async function suspendedAppellant(mod: Member) {
  const { target, reporters } = await hiddenMember("scam");
  expect((await mod.client.json("POST", `/moderation/members/${target.id}/suspend`)).status).toBe(
    200,
  );
  const client = new TestClient();
  const login = await client.json<{ errors: Record<string, string[]> }>("POST", "/login", {
    email: target.details.email,
    password: target.details.password,
  });
  expect(login.body.errors.email).toEqual([SUSPENDED_MESSAGE]);
  await client.loadCsrfFromPage("/login");
  const sent = await client.json("POST", "/my/appeal", { text: "Someone used my account." });
  expect(sent.status).toBe(201);
  return { target, reporters, appealId: await appealOf(target.id) };
}

const linkIn = (text: string) => new URL(/https?:\/\/\S+/.exec(text)![0]).pathname;

describe("a verification decision is told to the member", () => {
  it("an approval: one notice on the bell whatever the switches, one email, no push, nobody else", async () => {
    const mod = await moderator();
    const { member, id } = await pendingMember();
    const other = await pendingMember();
    // Every kind switched off on every channel, quiet hours all day, a browser for pushes.
    const off = Object.fromEntries(
      NOTIFICATION_TYPES.map((t) => [t, { in_app: false, push: false, email: false }]),
    );
    const quiet = { start: "00:00", end: "23:59", time_zone: "UTC" };
    expect(
      (
        await member.client.json("PUT", "/my/notification-preferences", {
          preferences: off,
          quiet_hours: quiet,
        })
      ).status,
    ).toBe(200);
    const browser = await subscribeBrowser();
    const subscribed = await member.client.json("POST", "/my/push/subscriptions", {
      endpoint: browser.endpoint,
      keys: browser.keys,
    });
    expect(subscribed.status).toBe(201);

    expect((await mod.client.json("POST", `/moderation/verifications/${id}/approve`)).status).toBe(
      200,
    );
    const { notices, unread } = await noticesOf(member);
    expect(notices).toEqual([
      expect.objectContaining({
        type: "verification",
        data: { status: "verified", actor: null },
        read_at: null,
      }),
    ]);
    expect(unread).toBe(1);
    const emails = await decisionEmails(member.details.email, 2);
    expect(emails.map((e) => e.subject)).toEqual(["Your photos are verified"]);
    expect(linkIn(emails[0]!.text)).toBe("/my/verification");
    // The notifications page shows it, leading to the member's verification page.
    const html = await (await page(member.client, "/notifications")).text();
    expect(html).toContain("Your photos are verified: your profile now shows the badge");
    expect(html).toContain('href="/my/verification"');
    // Never pushed: the member was away the whole time (no page open), pushes on, none sent.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await attemptsAt(browser)).toEqual([]);

    // A second decision of the same request is refused, and tells nothing more.
    const again = await mod.client.json("POST", `/moderation/verifications/${id}/reject`, {
      reason: "no_match",
    });
    expect(again.status).toBe(409);
    expect((await noticesOf(member)).notices).toHaveLength(1);
    expect(await decisionEmails(member.details.email, 2)).toHaveLength(1);
    await noneTold([mod, other.member]);
  });

  it("a rejection: one notice and one email saying why in plain words; live on an open page", async () => {
    const mod = await moderator();
    const { member, id } = await pendingMember();
    const { status, socket } = await openSocket(member.client, "/ws/me");
    expect(status).toBe(101);

    const res = await mod.client.json("POST", `/moderation/verifications/${id}/reject`, {
      reason: "pose_mismatch",
    });
    expect(res.status).toBe(200);
    // The open page hears it at once, in a frame the pages read.
    const frame = await socket!.next((f) => f.type === "notification", 4000);
    expect(memberServerFrame.safeParse(frame).success).toBe(true);
    expect(frame.notification).toMatchObject({
      type: "verification",
      data: { status: "rejected", reason: "pose_mismatch" },
    });
    socket!.close();
    const { notices } = await noticesOf(member);
    expect(notices.map((n) => n.data.status)).toEqual(["rejected"]);
    const emails = await decisionEmails(member.details.email, 2);
    expect(emails.map((e) => e.subject)).toEqual(["Your photo verification was not accepted"]);
    expect(emails[0]!.text).toContain(REJECT_REASONS.pose_mismatch);
    expect(emails[0]!.text).not.toContain(mod.details.username);
    expect(linkIn(emails[0]!.text)).toBe("/my/verification");
    const html = await (await page(member.client, "/notifications")).text();
    expect(html).toContain("Your verification selfie was not accepted: see why and try again");
    await noneTold([mod]);
  });
});

describe("an appeal's decision is told to the member", () => {
  it("granted (hidden): one notice and one email; the reporters hear nothing", async () => {
    const mod = await moderator();
    const { target, reporters } = await hiddenMember();
    expect(
      (await target.client.json("POST", "/my/appeal", { text: "A misunderstanding." })).status,
    ).toBe(201);
    const appealId = await appealOf(target.id);
    expect((await mod.client.json("POST", `/moderation/appeals/${appealId}/grant`)).status).toBe(
      200,
    );
    const { notices } = await noticesOf(target);
    expect(notices).toEqual([
      expect.objectContaining({
        type: "appeal",
        data: { measure: "hidden", decision: "granted", actor: null },
      }),
    ]);
    const emails = await decisionEmails(target.details.email, 2);
    expect(emails.map((e) => e.subject)).toEqual(["Your appeal was granted"]);
    expect(emails[0]!.text).toContain("your profile is back in search");
    expect(linkIn(emails[0]!.text)).toBe("/my/appeal");
    const html = await (await page(target.client, "/notifications")).text();
    expect(html).toContain("Your appeal was granted: your profile is back in search");
    expect(html).toContain('href="/my/appeal"');
    // Decided once: a second grant finds no open appeal and tells nothing.
    expect((await mod.client.json("POST", `/moderation/appeals/${appealId}/grant`)).status).toBe(
      404,
    );
    expect((await noticesOf(target)).notices).toHaveLength(1);
    await noneTold([mod, ...reporters]);
  });

  it("denied (hidden): told the profile stays hidden", async () => {
    const mod = await moderator();
    const { target, reporters } = await hiddenMember();
    await target.client.json("POST", "/my/appeal", { text: "Please look again." });
    const appealId = await appealOf(target.id);
    expect((await mod.client.json("POST", `/moderation/appeals/${appealId}/deny`)).status).toBe(
      200,
    );
    const { notices } = await noticesOf(target);
    expect(notices.map((n) => n.data)).toEqual([
      { measure: "hidden", decision: "denied", actor: null },
    ]);
    const emails = await decisionEmails(target.details.email, 2);
    expect(emails.map((e) => e.subject)).toEqual(["Your appeal was turned down"]);
    expect(emails[0]!.text).toContain("your profile stays hidden from search");
    await noneTold([mod, ...reporters]);
  });

  it("denied (suspended): the notice waits for them, the email reaches them now", async () => {
    const mod = await moderator();
    const { target, reporters, appealId } = await suspendedAppellant(mod);
    expect((await mod.client.json("POST", `/moderation/appeals/${appealId}/deny`)).status).toBe(
      200,
    );
    const row = await env.DB.prepare(
      `SELECT type, data, in_app FROM notifications WHERE user_id = ?1 AND ${NOTICE_TYPES}`,
    )
      .bind(target.id)
      .all<{ type: string; data: string; in_app: number }>();
    expect(row.results.map((r) => [r.type, JSON.parse(r.data), r.in_app])).toEqual([
      ["appeal", { measure: "suspended", decision: "denied" }, 1],
    ]);
    const emails = await decisionEmails(target.details.email, 2);
    expect(emails.map((e) => e.subject)).toEqual(["Your appeal was turned down"]);
    expect(emails[0]!.text).toContain("your account stays suspended");
    expect(linkIn(emails[0]!.text)).toBe("/my/appeal");
    await noneTold([mod, ...reporters]);
  });

  it("granted (suspended): signed in again, the member finds it on the bell", async () => {
    const mod = await moderator();
    const { target, reporters, appealId } = await suspendedAppellant(mod);
    expect((await mod.client.json("POST", `/moderation/appeals/${appealId}/grant`)).status).toBe(
      200,
    );
    const emails = await decisionEmails(target.details.email, 2);
    expect(emails.map((e) => e.subject)).toEqual(["Your appeal was granted"]);
    expect(emails[0]!.text).toContain("your account is active again");
    const client = new TestClient();
    const login = await client.json("POST", "/login", {
      email: target.details.email,
      password: target.details.password,
    });
    expect(login.status).toBe(200);
    const { notices } = await noticesOf({ ...target, client });
    expect(notices.map((n) => n.data)).toEqual([
      { measure: "suspended", decision: "granted", actor: null },
    ]);
    await noneTold([mod, ...reporters]);
  });
});
