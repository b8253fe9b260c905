import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { normalisedEmail } from "~/server/returning.server";
import { runCron } from "../helpers/cron";
import { registerMember, verifiedMember } from "../helpers/members";
import { countRows, makeModerator, type Member } from "./helpers";

/**
 * Returning addresses (docs/decisions/005): a member deleted after reports, or suspended, who
 * registers again with the same address (however it is written) lands in the moderators' review
 * queue; the address is kept only as a keyed hash.
 */

const DAY = 86_400_000;

const reviewReasonOf = async (id: string) =>
  (
    await env.DB.prepare("SELECT review_reason FROM users WHERE id = ?1")
      .bind(id)
      .first<{ review_reason: string | null }>()
  )?.review_reason ?? null;

async function moderator() {
  const mod = await verifiedMember();
  await makeModerator(mod.id);
  return mod;
}

async function reviews(mod: Member) {
  const res = await mod.client.json<{ reviews: { id: string; reason: string }[] }>(
    "GET",
    "/moderation/reviews",
  );
  expect(res.status).toBe(200);
  return res.body.reviews;
}

/** Another way of writing the same mailbox: upper case and a "+tag". */
const sameMailbox = (email: string) => {
  const [local, domain] = email.split("@");
  return `  ${local!.toUpperCase()}+again@${domain!.toUpperCase()} `.trim();
};

describe("returning addresses", () => {
  it("writes one mailbox one way: case, +tags, Gmail's dots and domains", () => {
    expect(normalisedEmail(" Sam.Scam+dating@GoogleMail.com ")).toBe("samscam@gmail.com");
    expect(normalisedEmail("s.a.m@gmail.com")).toBe("sam@gmail.com");
    expect(normalisedEmail("Sam.Scam+x@Example.org")).toBe("sam.scam@example.org");
    expect(normalisedEmail("sam@example.org")).toBe("sam@example.org");
  });

  it("a member deleted after a report who registers again lands in review; a moderator clears it", async () => {
    const sam = await verifiedMember();
    const rita = await verifiedMember();
    const mod = await moderator();
    await rita.client.json("POST", "/reports", { user_id: sam.id, reason_type: "scam" });
    expect((await sam.client.json("DELETE", "/my/account")).status).toBe(200);
    // Only a keyed hash is kept: the address itself is nowhere.
    const stored = await env.DB.prepare("SELECT * FROM review_emails").all();
    expect(JSON.stringify(stored.results)).not.toContain(sam.details.email.split("@")[0]!);

    const again = await registerMember({ email: sameMailbox(sam.details.email) });
    expect(await reviewReasonOf(again.id)).toBe("deleted_after_report");
    expect(await reviews(mod)).toContainEqual(
      expect.objectContaining({ id: again.id, reason: "deleted_after_report" }),
    );
    const page = await mod.client.fetch("/moderation", { headers: { Accept: "text/html" } });
    const html = (await page.text()).replaceAll("<!-- -->", "");
    expect(html).toContain("Address of a member deleted after reports");
    expect(html).toContain(`aria-label="Clear @${again.details.username}"`);

    // Only moderators see the queue or clear it.
    expect((await rita.client.json("GET", "/moderation/reviews")).status).toBe(404);
    expect((await rita.client.json("POST", `/moderation/reviews/${again.id}/clear`)).status).toBe(
      404,
    );
    const cleared = await mod.client.json("POST", `/moderation/reviews/${again.id}/clear`);
    expect(cleared.status).toBe(200);
    expect(await reviewReasonOf(again.id)).toBeNull();
    expect(await reviews(mod)).not.toContainEqual(expect.objectContaining({ id: again.id }));
    expect((await mod.client.json("POST", `/moderation/reviews/${again.id}/clear`)).status).toBe(
      404,
    );
  });

  it("a member deleted without reports, or with only dismissed ones, comes back unseen", async () => {
    const quiet = await verifiedMember();
    expect((await quiet.client.json("DELETE", "/my/account")).status).toBe(200);
    const back = await registerMember({ email: quiet.details.email });
    expect(await reviewReasonOf(back.id)).toBeNull();

    const mod = await moderator();
    const nia = await verifiedMember();
    const dismissedOne = await verifiedMember();
    const report = await nia.client.json<{ report: { id: string } }>("POST", "/reports", {
      user_id: dismissedOne.id,
      reason_type: "fake_profile",
    });
    await mod.client.json("POST", `/moderation/reports/${report.body.report.id}/dismiss`);
    await dismissedOne.client.json("DELETE", "/my/account");
    const returned = await registerMember({ email: dismissedOne.details.email });
    expect(await reviewReasonOf(returned.id)).toBeNull();
  });

  it("a suspension keeps the address's hash; housekeeping forgets it after two years", async () => {
    const mod = await moderator();
    const troll = await verifiedMember();
    const before = await countRows("review_emails");
    const res = await mod.client.json("POST", `/moderation/members/${troll.id}/suspend`);
    expect(res.status).toBe(200);
    expect(await countRows("review_emails", "reason = 'suspended'")).toBeGreaterThan(0);
    expect(await countRows("review_emails")).toBe(before + 1);

    await runCron(Date.now() + 731 * DAY);
    expect(await countRows("review_emails")).toBe(0);
  });
});
