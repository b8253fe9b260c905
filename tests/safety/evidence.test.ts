import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { keepEvidenceOf, type Evidence } from "~/server/evidence.server";
import { emailKey } from "~/server/returning.server";
import { runCron } from "../helpers/cron";
import { verifiedMember } from "../helpers/members";
import { converse, countRows, makeModerator, type Member } from "./helpers";

/**
 * Evidence that outlives a deletion (docs/api.md "Unmatch, verification, appeals and message
 * safety"; docs/decisions/005): a reported member who deletes their account does not take the
 * report, their profile or the conversation with them along; moderators read them, nobody else,
 * until REPORT_RETENTION_DAYS after the deletion.
 */

const DAY = 86_400_000;

async function sendMessage(from: Member, conversationId: string, message: string) {
  const res = await from.client.json<{ message: { id: string } }>(
    "POST",
    `/chat/conversations/${conversationId}/messages`,
    { message, client_id: crypto.randomUUID() },
  );
  expect(res.status).toBe(201);
  return res.body.message.id;
}

async function keptEvidence(moderator: Member) {
  const res = await moderator.client.json<{ evidence: Evidence[] }>("GET", "/moderation/evidence");
  expect(res.status).toBe(200);
  return res.body.evidence;
}

/** A scam: Sam writes to Rita, she reports the message; Nia's report of him was dismissed. */
async function reportedScammer() {
  const sam = await verifiedMember();
  const rita = await verifiedMember();
  const nia = await verifiedMember();
  const moderator = await verifiedMember();
  await makeModerator(moderator.id);
  await env.DB.prepare(
    "UPDATE profiles SET bio = 'Engineer on an oil rig, here for something real' WHERE user_id = ?1",
  )
    .bind(sam.id)
    .run();
  const { conversationId } = await converse(sam, rita, "Hi Rita, you have a lovely smile");
  await sendMessage(rita, conversationId, "Thank you! Where are you based?");
  const ask = await sendMessage(
    sam,
    conversationId,
    "I'm stuck abroad, can you send me a $300 gift card for the flight?",
  );
  const reported = await rita.client.json("POST", "/reports", {
    user_id: sam.id,
    reason_type: "scam",
    message_id: ask,
  });
  expect(reported.status).toBe(201);
  const niaReport = await nia.client.json<{ report: { id: string } }>("POST", "/reports", {
    user_id: sam.id,
    reason_type: "fake_profile",
  });
  const dismissed = await moderator.client.json(
    "POST",
    `/moderation/reports/${niaReport.body.report.id}/dismiss`,
  );
  expect(dismissed.status).toBe(200);
  return { sam, rita, nia, moderator, conversationId };
}

describe("a reported member's deletion keeps the evidence for moderators", () => {
  it("keeps the open report, the profile and the conversation; not the dismissed report", async () => {
    const { sam, rita, moderator } = await reportedScammer();
    expect(await keptEvidence(moderator)).not.toContainEqual(
      expect.objectContaining({ reported_id: sam.id }),
    );

    expect((await sam.client.json("DELETE", "/my/account")).status).toBe(200);
    // The member, their profile and conversations are gone as before.
    expect(await countRows("users", "id = ?1", sam.id)).toBe(0);
    expect(await countRows("reports", "reported_id = ?1", sam.id)).toBe(0);

    const kept = (await keptEvidence(moderator)).filter((e) => e.reported_id === sam.id);
    expect(kept).toHaveLength(1);
    const evidence = kept[0]!;
    expect(evidence).toMatchObject({
      reporter_id: rita.id,
      reason_type: "scam",
      status: "open",
      message_text: "I'm stuck abroad, can you send me a $300 gift card for the flight?",
      profile: {
        username: sam.details.username,
        bio: "Engineer on an oil rig, here for something real",
        status: "active",
      },
    });
    expect(evidence.conversation?.map((m) => [m.from, m.text])).toEqual([
      ["reported", "Hi Rita, you have a lovely smile"],
      ["reporter", "Thank you! Where are you based?"],
      ["reported", "I'm stuck abroad, can you send me a $300 gift card for the flight?"],
    ]);
    const days = (Date.parse(evidence.erase_after) - Date.parse(evidence.kept_at)) / DAY;
    expect(days).toBe(90);

    // The moderation page shows it.
    const page = await moderator.client.fetch("/moderation", { headers: { Accept: "text/html" } });
    const html = (await page.text()).replaceAll("<!-- -->", "");
    expect(html).toContain("Kept after deletion");
    expect(html).toContain(`@${sam.details.username}`);
    expect(html).toContain("Their conversation (3 messages)");
  });

  it("is for moderators only: the reporter and other members get 404, as for every moderation route", async () => {
    const { sam, rita, nia } = await reportedScammer();
    await sam.client.json("DELETE", "/my/account");
    for (const member of [rita, nia]) {
      expect((await member.client.json("GET", "/moderation/evidence")).status).toBe(404);
    }
  });

  it("is erased by housekeeping once REPORT_RETENTION_DAYS have passed, not before", async () => {
    const { sam } = await reportedScammer();
    await sam.client.json("DELETE", "/my/account");
    const count = () => countRows("report_evidence", "reported_id = ?1", sam.id);
    expect(await count()).toBe(1);
    await runCron(Date.now() + 89 * DAY);
    expect(await count()).toBe(1);
    await runCron(Date.now() + 90 * DAY + 60_000);
    expect(await count()).toBe(0);
  });

  it("a deletion tried again keeps each report once, and still counts them (its address is remembered)", async () => {
    const { sam } = await reportedScammer();
    expect(await keepEvidenceOf(env, sam.id)).toBe(1);
    expect(await keepEvidenceOf(env, sam.id)).toBe(1);
    expect((await sam.client.json("DELETE", "/my/account")).status).toBe(200);
    expect(await countRows("report_evidence", "reported_id = ?1", sam.id)).toBe(1);
    const key = await emailKey(env, sam.details.email);
    expect(await countRows("review_emails", "email_key = ?1", key)).toBe(1);
  });

  it("a member never reported leaves nothing behind", async () => {
    const quiet = await verifiedMember();
    const friend = await verifiedMember();
    await converse(quiet, friend, "Hello!");
    await quiet.client.json("DELETE", "/my/account");
    expect(await countRows("report_evidence", "reported_id = ?1", quiet.id)).toBe(0);
  });
});

describe("an unmatched conversation, kept for moderators only, then erased", () => {
  async function reportedThenUnmatched() {
    const sam = await verifiedMember();
    const rita = await verifiedMember();
    const moderator = await verifiedMember();
    await makeModerator(moderator.id);
    const { conversationId } = await converse(sam, rita, "Hi Rita");
    const ask = await sendMessage(sam, conversationId, "Send me the code you just got by text");
    const report = await rita.client.json<{ report: { id: string } }>("POST", "/reports", {
      user_id: sam.id,
      reason_type: "scam",
      message_id: ask,
    });
    expect(report.status).toBe(201);
    // Sam unmatches: the conversation leaves both lists.
    expect((await sam.client.json("DELETE", `/my/matches/${rita.id}`)).status).toBe(204);
    return { sam, rita, moderator, conversationId, reportId: report.body.report.id };
  }

  it("moderators read a report's conversation after the unmatch; nobody else does", async () => {
    const { rita, sam, moderator, reportId } = await reportedThenUnmatched();
    const res = await moderator.client.json<{
      conversation: { from: string; text: string }[] | null;
    }>("GET", `/moderation/reports/${reportId}/conversation`);
    expect(res.status).toBe(200);
    expect(res.body.conversation?.map((m) => [m.from, m.text])).toEqual([
      ["reported", "Hi Rita"],
      ["reported", "Send me the code you just got by text"],
    ]);
    for (const member of [rita, sam]) {
      expect(
        (await member.client.json("GET", `/moderation/reports/${reportId}/conversation`)).status,
      ).toBe(404);
    }
    const page = await moderator.client.fetch(`/moderation/reports/${reportId}`, {
      headers: { Accept: "text/html" },
    });
    expect(page.status).toBe(200);
    expect((await page.text()).replaceAll("<!-- -->", "")).toContain(
      "Send me the code you just got by text",
    );
    const list = await moderator.client.fetch("/moderation", { headers: { Accept: "text/html" } });
    expect(await list.text()).toContain(`href="/moderation/reports/${reportId}"`);
  });

  it("a pair that matched again: moderators read both conversations, oldest first", async () => {
    const { sam, rita, moderator, reportId } = await reportedThenUnmatched();
    for (const [from, to] of [
      [sam, rita],
      [rita, sam],
    ] as const) {
      expect((await from.client.json("POST", "/my/likes", { user_id: to.id })).status).toBe(201);
    }
    const again = await converse(sam, rita, "Can we start over?");
    expect(again.conversationId).not.toBe("");
    const res = await moderator.client.json<{ conversation: { text: string }[] | null }>(
      "GET",
      `/moderation/reports/${reportId}/conversation`,
    );
    expect(res.body.conversation?.map((m) => m.text)).toEqual([
      "Hi Rita",
      "Send me the code you just got by text",
      "Can we start over?",
    ]);
  });

  it("housekeeping erases it REPORT_RETENTION_DAYS after the unmatch, and leaves live ones", async () => {
    const { conversationId } = await reportedThenUnmatched();
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const live = await converse(alice, bob, "Still talking");
    const rows = (id: string) => countRows("conversations", "id = ?1", id);

    await runCron(Date.now() + 89 * DAY);
    expect(await rows(conversationId)).toBe(1);
    await runCron(Date.now() + 90 * DAY + 60_000);
    expect(await rows(conversationId)).toBe(0);
    expect(await rows(live.conversationId)).toBe(1);
    // The room itself holds nothing any more.
    const stub = env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(conversationId));
    expect(await stub.allMessages(conversationId)).toEqual([]);
  });
});
