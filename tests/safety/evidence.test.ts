import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { keepEvidenceOf, type Evidence } from "~/server/evidence.server";
import { emailKey } from "~/server/returning.server";
import { runCron } from "../helpers/cron";
import { verifiedMember } from "../helpers/members";
import { imageBytes, upload } from "../profile/fixtures";
import { converse, countRows, makeModerator, memberWithPhoto, type Member } from "./helpers";

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

describe("a reported member's photos, kept as they stood at the report", () => {
  interface KeptPhotos {
    report_id: string;
    photos: { id: string; position: number; url: string }[];
  }

  /** The stored bytes of an R2 object (null when there is none). */
  async function r2Bytes(key: string) {
    const object = await env.PHOTOS.get(key);
    return object ? new Uint8Array(await object.arrayBuffer()) : null;
  }

  /**
   * Sam has two photos and a conversation with Rita, who reports him; Nia is another member, and
   * a moderator looks.
   */
  async function reportedWithPhotos() {
    const sam = await memberWithPhoto();
    const added = await upload(sam.client, [{ bytes: imageBytes("jpeg", 2048) }]);
    expect(added.status).toBe(201);
    const photoIds = added.body.photos!.map((p) => p.id);
    const rita = await verifiedMember();
    const nia = await verifiedMember();
    const moderator = await verifiedMember();
    await makeModerator(moderator.id);
    await converse(sam, rita, "Hi Rita");
    const originals = await Promise.all(photoIds.map((id) => r2Bytes(`photos/${sam.id}/${id}`)));
    const report = await rita.client.json<{ report: { id: string } }>("POST", "/reports", {
      user_id: sam.id,
      reason_type: "fake_profile",
    });
    expect(report.status).toBe(201);
    return { sam, rita, nia, moderator, photoIds, originals, reportId: report.body.report.id };
  }

  const keptWith = (member: Member, reportId: string) =>
    member.client.json<KeptPhotos>("GET", `/moderation/reports/${reportId}/photos`);

  it("survives the photo's deletion, an unmatch and the account's deletion, for moderators only", async () => {
    const { sam, rita, nia, moderator, photoIds, originals, reportId } = await reportedWithPhotos();
    const [first, second] = photoIds as [string, string];
    const url = (photoId: string) => `/moderation/reports/${reportId}/photos/${photoId}`;

    // Sam unmatches Rita and deletes the photo she saw first.
    expect((await sam.client.json("DELETE", `/my/matches/${rita.id}`)).status).toBe(204);
    expect((await sam.client.json("DELETE", `/my/photos/${first}`)).status).toBe(204);
    expect(await r2Bytes(`photos/${sam.id}/${first}`)).toBeNull();
    expect((await rita.client.fetch(`/photos/${first}`)).status).toBe(404);

    // The moderator still has both, in their order at the report, with the same bytes.
    const listed = await keptWith(moderator, reportId);
    expect(listed.status).toBe(200);
    expect(listed.body.photos.map((p) => [p.id, p.position, p.url])).toEqual([
      [first, 0, url(first)],
      [second, 1, url(second)],
    ]);
    const served = await moderator.client.fetch(url(first));
    expect(served.status).toBe(200);
    expect(served.headers.get("Cache-Control")).toBe("private, no-store");
    expect(served.headers.get("Content-Type")).toBe("image/png");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(originals[0]);
    const page = await moderator.client.fetch(`/moderation/reports/${reportId}`, {
      headers: { Accept: "text/html" },
    });
    expect(await page.text()).toContain(`src="${url(first)}"`);

    // Nobody else: not the reporter, not the member reported, not another member.
    for (const member of [rita, sam, nia]) {
      expect((await keptWith(member, reportId)).status).toBe(404);
      expect((await member.client.fetch(url(first))).status).toBe(404);
    }

    // Sam deletes his account: the photos stay with the report's evidence.
    expect((await sam.client.json("DELETE", "/my/account")).status).toBe(200);
    expect(await countRows("photos", "user_id = ?1", sam.id)).toBe(0);
    const [kept] = (await keptEvidence(moderator)).filter((e) => e.reported_id === sam.id);
    expect(kept?.photos.map((p) => p.id)).toEqual([first, second]);
    for (const [i, photoId] of [first, second].entries()) {
      const res = await moderator.client.fetch(url(photoId));
      expect(res.status).toBe(200);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(originals[i]);
    }
    const moderation = await moderator.client.fetch("/moderation", {
      headers: { Accept: "text/html" },
    });
    const html = (await moderation.text()).replaceAll("<!-- -->", "");
    expect(html).toContain(`alt="Photo 1 of @${sam.details.username} at the report"`);
    expect(html).toContain(`src="${url(second)}"`);
    for (const member of [rita, nia]) {
      expect((await member.client.fetch(url(second))).status).toBe(404);
      expect((await keptWith(member, reportId)).status).toBe(404);
    }
  });

  it("is erased with the evidence REPORT_RETENTION_DAYS after the deletion, not before", async () => {
    const { sam, photoIds, reportId } = await reportedWithPhotos();
    expect((await sam.client.json("DELETE", "/my/account")).status).toBe(200);
    const copies = () => countRows("report_photos", "report_id = ?1", reportId);
    const objects = async () =>
      (await env.PHOTOS.list({ prefix: `evidence/${reportId}/` })).objects.length;
    expect([await copies(), await objects()]).toEqual([2, 2]);

    await runCron(Date.now() + 89 * DAY);
    expect([await copies(), await objects()]).toEqual([2, 2]);
    await runCron(Date.now() + 90 * DAY + 60_000);
    expect([await copies(), await objects()]).toEqual([0, 0]);
    expect(await countRows("report_evidence", "id = ?1", reportId)).toBe(0);
    // A moderator signed in now (that housekeeping also ended the earlier one's idle session).
    const moderator = await verifiedMember();
    await makeModerator(moderator.id);
    const res = await moderator.client.fetch(
      `/moderation/reports/${reportId}/photos/${photoIds[0]}`,
    );
    expect(res.status).toBe(404);
  });

  it("a dismissed report keeps nothing; an upheld one keeps them REPORT_RETENTION_DAYS", async () => {
    const dismissed = await reportedWithPhotos();
    const upheld = await reportedWithPhotos();
    const objects = async (reportId: string) =>
      (await env.PHOTOS.list({ prefix: `evidence/${reportId}/` })).objects.length;
    expect(await objects(dismissed.reportId)).toBe(2);

    const dismiss = await dismissed.moderator.client.json(
      "POST",
      `/moderation/reports/${dismissed.reportId}/dismiss`,
    );
    expect(dismiss.status).toBe(200);
    // Not shown from the dismissal on, and erased at the next housekeeping run.
    expect((await keptWith(dismissed.moderator, dismissed.reportId)).body.photos).toEqual([]);
    const suspend = await upheld.moderator.client.json(
      "POST",
      `/moderation/members/${upheld.sam.id}/suspend`,
    );
    expect(suspend.status).toBe(200);
    await runCron(Date.now() + 60_000);
    expect(await objects(dismissed.reportId)).toBe(0);
    expect(await countRows("report_photos", "report_id = ?1", dismissed.reportId)).toBe(0);

    // The upheld report's photos stay for the moderators (an appeal may follow), then go.
    expect((await keptWith(upheld.moderator, upheld.reportId)).body.photos).toHaveLength(2);
    await runCron(Date.now() + 89 * DAY);
    expect(await objects(upheld.reportId)).toBe(2);
    await runCron(Date.now() + 90 * DAY + 60_000);
    expect(await objects(upheld.reportId)).toBe(0);
    expect(await countRows("report_photos", "report_id = ?1", upheld.reportId)).toBe(0);
  });

  it("a report gone with its reporter's account takes its photos along", async () => {
    const { rita, reportId } = await reportedWithPhotos();
    expect((await rita.client.json("DELETE", "/my/account")).status).toBe(200);
    await runCron(Date.now() + 60_000);
    expect((await env.PHOTOS.list({ prefix: `evidence/${reportId}/` })).objects).toEqual([]);
    expect(await countRows("report_photos", "report_id = ?1", reportId)).toBe(0);
  });

  it("the same pair's report again keeps the photos gone since, and adds the new ones", async () => {
    const { sam, rita, moderator, photoIds, reportId } = await reportedWithPhotos();
    expect((await sam.client.json("DELETE", `/my/photos/${photoIds[0]}`)).status).toBe(204);
    const added = await upload(sam.client, [{ bytes: imageBytes("webp") }]);
    const newest = added.body.photos!.at(-1)!.id;
    const again = await rita.client.json<{ report: { id: string } }>("POST", "/reports", {
      user_id: sam.id,
      reason_type: "scam",
    });
    expect(again.body.report.id).toBe(reportId);
    const listed = await keptWith(moderator, reportId);
    expect(listed.body.photos.map((p) => p.id).sort()).toEqual(
      [photoIds[0], photoIds[1], newest].sort(),
    );
  });

  it("a member without photos leaves none to keep", async () => {
    const quiet = await verifiedMember();
    const reporter = await verifiedMember();
    const moderator = await verifiedMember();
    await makeModerator(moderator.id);
    const report = await reporter.client.json<{ report: { id: string } }>("POST", "/reports", {
      user_id: quiet.id,
      reason_type: "spam",
    });
    expect(report.status).toBe(201);
    const listed = await keptWith(moderator, report.body.report.id);
    expect(listed.body).toEqual({ report_id: report.body.report.id, photos: [] });
    expect((await keptWith(moderator, "no-such-report")).status).toBe(404);
  });
});
