import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { recordActivity, type ActivityView } from "~/server/activities.server";
import { grantCredits } from "~/server/credits.server";
import { verifiedMember } from "../helpers/members";
import { eventually } from "../../scripts/lib/wait";

interface ListBody {
  activities: ActivityView[];
  meta: { page: number; per_page: number; has_more: boolean };
}

describe("the activities page: a member's own history", () => {
  it("lists what the domain modules recorded, newest first, a page at a time", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    await recordActivity(
      env,
      { userId: me.id, type: "like_sent", otherUserId: other.id },
      { userId: other.id, type: "like_received", otherUserId: me.id },
    );
    await recordActivity(env, { userId: me.id, type: "match", otherUserId: other.id });
    await recordActivity(env, {
      userId: me.id,
      type: "gift_sent",
      otherUserId: other.id,
      data: { gift: { name: "Rose", icon: "🌹" } },
    });
    await recordActivity(env, { userId: me.id, type: "credits_purchased", data: { credits: 100 } });
    await recordActivity(env, {
      userId: me.id,
      type: "subscription_started",
      data: { plan: "Gold" },
    });

    const res = await me.client.json<ListBody>("GET", "/my/activities");
    expect(res.status).toBe(200);
    expect(res.body.activities.map((a) => a.type)).toEqual([
      "subscription_started",
      "credits_purchased",
      "gift_sent",
      "match",
      "like_sent",
    ]);
    expect(res.body.activities[2]).toMatchObject({
      user: { id: other.id, username: other.details.username },
      data: { gift: { name: "Rose" } },
    });
    expect(res.body.activities[1]!.user).toBeNull();
    expect(res.body.activities[0]!.created_at).toMatch(/Z$/);

    // The other member's history is their own.
    const theirs = await other.client.json<ListBody>("GET", "/my/activities");
    expect(theirs.body.activities.map((a) => a.type)).toEqual(["like_received"]);

    const page = await me.client.json<ListBody>("GET", "/my/activities?per_page=2&page=2");
    expect(page.body.activities.map((a) => a.type)).toEqual(["gift_sent", "match"]);
    expect(page.body.meta).toEqual({ page: 2, per_page: 2, has_more: true });
  });

  it("records a gift for both members when it is sent in a conversation", async () => {
    const sender = await verifiedMember();
    const recipient = await verifiedMember();
    await grantCredits(env, {
      userId: sender.id,
      amount: 20,
      reason: "test",
      reference: sender.id,
    });
    const started = await sender.client.json<{ conversation: { id: string } }>(
      "POST",
      "/chat/conversations",
      { user_id: recipient.id },
    );
    const id = started.body.conversation.id;
    const sent = await sender.client.json("POST", `/chat/conversations/${id}/messages`, {
      message: "For you",
      gift_id: "rose",
    });
    expect(sent.status).toBe(201);
    // Recorded after the send answers (the room's afterSend): looked for until it is there.
    const expectEntry = async (member: typeof sender, type: string, otherId: string) => {
      const entry = await eventually(
        async () =>
          (await member.client.json<ListBody>("GET", "/my/activities")).body.activities.find(
            (a) => a.type === type,
          ),
        { timeoutMs: 3000, intervalMs: 50, what: `a ${type} activity` },
      );
      expect(entry).toMatchObject({ user: { id: otherId }, data: { gift: { name: "Rose" } } });
    };
    await expectEntry(sender, "gift_sent", recipient.id);
    await expectEntry(recipient, "gift_received", sender.id);
  });

  it("keeps the entry but not the member once either side blocks the other", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    await recordActivity(env, { userId: me.id, type: "like_received", otherUserId: other.id });
    await other.client.json("POST", "/my/block", { user_id: me.id, reason_type: "spam" });
    const res = await me.client.json<ListBody>("GET", "/my/activities");
    expect(res.body.activities).toHaveLength(1);
    expect(res.body.activities[0]!.user).toBeNull();
  });

  it("keeps the entry but not the member once their account is suspended", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    await recordActivity(env, { userId: me.id, type: "match", otherUserId: other.id });
    await env.DB.prepare("UPDATE users SET status = 'suspended' WHERE id = ?1")
      .bind(other.id)
      .run();
    const res = await me.client.json<ListBody>("GET", "/my/activities");
    expect(res.body.activities.map((a) => [a.type, a.user])).toEqual([["match", null]]);
  });

  it("renders the page for a browser", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    await recordActivity(env, { userId: me.id, type: "match", otherUserId: other.id });
    const page = await me.client.fetch("/my/activities", { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<title>Activities - Heartline</title>");
    expect(html).toContain("You matched with");
  });
});
