import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { REJECT_REASONS } from "~/schemas/verification";
import { ACCOUNT_DELETED_MESSAGE } from "~/server/account.server";
import { CREDENTIALS_MESSAGE } from "~/server/auth.server";
import { roomMessages } from "../chat/helpers";
import { TestClient } from "../helpers/client";
import { registerMember, verifiedMember } from "../helpers/members";
import { imageBytes, upload, validProfile } from "../profile/fixtures";
import { subscribeBrowser } from "../push/browser";
import {
  block,
  converse,
  countRows,
  expirePasswordConfirmation,
  makeModerator,
  memberWithPhoto,
  page,
  seasonedMember,
  pendingVerificationId,
  sendSelfie,
} from "./helpers";

async function r2Keys(userId: string) {
  const listed = await env.PHOTOS.list({ prefix: `photos/${userId}/` });
  return listed.objects.map((o) => o.key);
}

describe("data export", () => {
  it("downloads everything stored about the member as a JSON attachment", async () => {
    const alice = await memberWithPhoto();
    const bob = await verifiedMember();
    const carol = await verifiedMember();
    const saved = await alice.client.json("PUT", "/my/profile", {
      ...validProfile,
      bio: "Export me",
      prompts: [{ prompt_id: "ask-me-about", answer: "Sourdough" }],
    });
    expect(saved.status).toBe(200);
    await converse(alice, bob, "Hi Bob");
    const fromBob = await converse(bob, alice, "Hi Alice");
    const reacted = await alice.client.json("PUT", `/chat/messages/${fromBob.messageId}/reaction`, {
      emoji: "❤️",
    });
    expect(reacted.status).toBe(200);
    await block(alice, carol, "spam");
    await alice.client.json("POST", "/reports", { user_id: carol.id, reason_type: "spam" });
    await bob.client.json("GET", `/members/${alice.details.username}`);
    await alice.client.json("POST", "/my/likes", { user_id: bob.id, comment: "Hello, Bob" });
    await bob.client.json("POST", "/my/likes", { user_id: alice.id });
    await alice.client.json("PUT", "/my/notification-preferences", { like: { push: false } });
    const browser = await subscribeBrowser();
    const subscribed = await alice.client.json("POST", "/my/push/subscriptions", {
      endpoint: browser.endpoint,
      keys: browser.keys,
    });
    expect(subscribed.status).toBe(201);

    const res = await alice.client.fetch("/my/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/json");
    expect(res.headers.get("Content-Disposition")).toMatch(
      new RegExp(
        `^attachment; filename="heartline-${alice.details.username}-\\d{4}-\\d{2}-\\d{2}\\.json"$`,
      ),
    );
    expect(res.headers.get("Cache-Control")).toContain("no-store");
    const data = (await res.json()) as Record<string, unknown>;
    expect(data.account).toMatchObject({ id: alice.id, email: alice.details.email });
    expect(data.profile).toMatchObject({
      username: alice.details.username,
      bio: "Export me",
      prompts: [{ prompt_id: "ask-me-about", answer: "Sourdough" }],
    });
    expect(data.photos).toEqual([
      expect.objectContaining({ id: alice.photoId, url: `/photos/${alice.photoId}`, position: 0 }),
    ]);
    expect(data.likes).toEqual({
      sent: [
        expect.objectContaining({
          username: bob.details.username,
          comment: "Hello, Bob",
          target_photo_id: null,
          target_prompt_id: null,
        }),
      ],
      received: [expect.objectContaining({ username: bob.details.username })],
    });
    expect(data.messages_sent).toEqual([
      expect.objectContaining({
        message: "Hi Bob",
        to_username: bob.details.username,
        attachment: null,
      }),
    ]);
    expect(data.reactions_given).toEqual([
      {
        conversation_id: fromBob.conversationId,
        to_username: bob.details.username,
        message_id: fromBob.messageId,
        emoji: "❤️",
        reacted_at: expect.any(String),
      },
    ]);
    expect(data.blocks).toEqual([
      expect.objectContaining({ username: carol.details.username, reason_type: "spam" }),
    ]);
    expect(data.reports_made).toEqual([
      expect.objectContaining({ username: carol.details.username, reason_type: "spam" }),
    ]);
    expect(Array.isArray(data.notifications)).toBe(true);
    expect(data.notification_settings).toMatchObject({
      preferences: { like: { in_app: true, push: false, email: true } },
      quiet_hours: null,
    });
    // The browser that gets pushes: its push service and when, never the endpoint or its keys.
    expect(data.push_browsers).toEqual([
      { push_service: new URL(browser.endpoint).origin, created_at: expect.any(String) },
    ]);
    expect(JSON.stringify(data)).not.toContain(browser.endpoint);
    expect(JSON.stringify(data)).not.toContain(browser.keys.auth);
    expect(data.exported_at).toMatch(/Z$/);
    // Nothing secret leaves: no password hash, no session.
    expect(JSON.stringify(data)).not.toMatch(/password_hash|passwordHash|id_hash/);
  });

  it("holds the member's verification requests and appeals, never who decided them", async () => {
    const member = await memberWithPhoto();
    const mod = await verifiedMember();
    await makeModerator(mod.id);
    /** Sends a selfie copying the pose asked; the request's id and its pose. */
    const sendPosedSelfie = async () => {
      const { pose } = (
        await member.client.json<{ pose: { id: string; instruction: string } }>(
          "GET",
          "/my/verification",
        )
      ).body;
      expect((await sendSelfie(member.client, pose.id)).status).toBe(202);
      return { id: await pendingVerificationId(member.id), pose };
    };
    const first = await sendPosedSelfie();
    const rejected = await mod.client.json("POST", `/moderation/verifications/${first.id}/reject`, {
      reason: "face_unclear",
    });
    expect(rejected.status).toBe(200);
    const second = await sendPosedSelfie();
    expect(
      (await mod.client.json("POST", `/moderation/verifications/${second.id}/approve`)).status,
    ).toBe(200);
    // Hidden from search by three members' reports, the member appeals; the moderator denies it.
    for (let i = 0; i < 3; i++) {
      const reporter = await seasonedMember();
      await reporter.client.json("POST", "/reports", { user_id: member.id, reason_type: "spam" });
    }
    const appealed = await member.client.json("POST", "/my/appeal", {
      text: "Those were my own holiday photos.",
    });
    expect(appealed.status).toBe(201);
    const { id: appealId } = (await env.DB.prepare("SELECT id FROM appeals WHERE user_id = ?1")
      .bind(member.id)
      .first<{ id: string }>())!;
    expect((await mod.client.json("POST", `/moderation/appeals/${appealId}/deny`)).status).toBe(
      200,
    );

    const res = await member.client.fetch("/my/export");
    expect(res.status).toBe(200);
    const data = (await res.json()) as Record<string, unknown>;
    expect(data.account).toMatchObject({ photo_verified_at: expect.any(String) });
    expect(data.photo_verifications).toEqual([
      {
        status: "rejected",
        pose: first.pose,
        submitted_at: expect.any(String),
        decided_at: expect.any(String),
        reason: REJECT_REASONS.face_unclear,
        compared_photo_ids: null,
      },
      {
        status: "verified",
        pose: second.pose,
        submitted_at: expect.any(String),
        decided_at: expect.any(String),
        reason: null,
        compared_photo_ids: [member.photoId],
      },
    ]);
    expect(data.appeals).toEqual([
      {
        measure: "hidden",
        text: "Those were my own holiday photos.",
        status: "denied",
        submitted_at: expect.any(String),
        decided_at: expect.any(String),
      },
    ]);
    // Never the moderator who decided.
    const text = JSON.stringify(data);
    expect(text).not.toContain(mod.id);
    expect(text).not.toContain(mod.details.username);
    expect(text).not.toContain(mod.details.email);
    expect(text).not.toMatch(/decided_by|moderator/);
  });

  it("needs a signed-in member (but not a verified email)", async () => {
    expect((await new TestClient().json("GET", "/my/export")).status).toBe(401);
    const fresh = await registerMember();
    expect((await fresh.client.fetch("/my/export")).status).toBe(200);
  });
});

describe("account deletion", () => {
  it("needs a password confirmation younger than 3 hours (423) and deletes nothing before", async () => {
    const alice = await memberWithPhoto();
    await expirePasswordConfirmation(alice.id);
    const res = await alice.client.json("DELETE", "/my/account");
    expect(res.status).toBe(423);
    expect(await countRows("users", "id = ?1", alice.id)).toBe(1);
    expect(await r2Keys(alice.id)).toHaveLength(1);

    await alice.client.json("POST", "/confirm-password", { password: alice.details.password });
    expect((await alice.client.json("DELETE", "/my/account")).status).toBe(200);
  });

  it("removes the profile, R2 photos, likes, sessions, blocks, reports and conversations", async () => {
    const alice = await memberWithPhoto();
    await upload(alice.client, [{ bytes: imageBytes("jpeg") }]);
    const bob = await verifiedMember();
    const carol = await verifiedMember();
    const other = await alice.client.fetch(`/photos/${alice.photoId}`);
    expect(other.status).toBe(200);
    expect(await r2Keys(alice.id)).toHaveLength(2);
    const { conversationId } = await converse(alice, bob, "Goodbye soon");
    await converse(bob, alice, "Why?");
    await block(alice, carol);
    await carol.client.json("POST", "/reports", { user_id: alice.id, reason_type: "spam" });
    await bob.client.json("GET", `/members/${alice.details.username}`);
    await alice.client.json("GET", `/members/${bob.details.username}`);
    await alice.client.json("POST", "/my/likes", { user_id: bob.id });
    await bob.client.json("POST", "/my/likes", { user_id: alice.id });
    expect(await countRows("likes", "liker_id = ?1 OR liked_id = ?1", alice.id)).toBe(2);
    const second = new TestClient();
    await second.json("POST", "/login", {
      email: alice.details.email,
      password: alice.details.password,
    });

    const res = await alice.client.json("DELETE", "/my/account");
    expect(res).toMatchObject({ status: 200, body: { message: ACCOUNT_DELETED_MESSAGE } });

    expect(await r2Keys(alice.id)).toEqual([]);
    expect(await countRows("users", "id = ?1", alice.id)).toBe(0);
    expect(await countRows("profiles", "user_id = ?1", alice.id)).toBe(0);
    expect(await countRows("photos", "user_id = ?1", alice.id)).toBe(0);
    expect(await countRows("sessions", "user_id = ?1", alice.id)).toBe(0);
    expect(await countRows("blocks", "blocker_id = ?1 OR blocked_id = ?1", alice.id)).toBe(0);
    expect(await countRows("reports", "reporter_id = ?1 OR reported_id = ?1", alice.id)).toBe(0);
    expect(await countRows("profile_views", "viewer_id = ?1 OR viewed_id = ?1", alice.id)).toBe(0);
    // The conversation's room holds nothing any more, and D1 forgot the conversation.
    expect(await roomMessages(conversationId)).toEqual([]);
    expect(await countRows("conversations", "id = ?1", conversationId)).toBe(0);
    expect(await countRows("notifications", "actor_id = ?1", alice.id)).toBe(0);
    expect(await countRows("likes", "liker_id = ?1 OR liked_id = ?1", alice.id)).toBe(0);
    expect(await countRows("member_search", "user_id = ?1", alice.id)).toBe(0);

    // Both browsers are signed out; the account cannot sign in again.
    expect((await alice.client.json("GET", "/my/export")).status).toBe(401);
    expect((await second.json("GET", "/my/export")).status).toBe(401);
    const login = await new TestClient().json<{ errors: Record<string, string[]> }>(
      "POST",
      "/login",
      { email: alice.details.email, password: alice.details.password },
    );
    expect(login.body.errors.email).toEqual([CREDENTIALS_MESSAGE]);

    // The others no longer see the member anywhere.
    const conversations = await bob.client.json<{ conversations: unknown[] }>(
      "GET",
      "/chat/conversations",
    );
    expect(conversations.body.conversations).toEqual([]);
    expect((await bob.client.json("GET", `/members/${alice.details.username}`)).status).toBe(404);
    const viewers = await bob.client.json<{ total_count: number }>("GET", "/my/profile-viewers");
    expect(viewers.body.total_count).toBe(0);
    const search = await bob.client.json<{ results: { id: string }[] }>(
      "POST",
      "/dashboard/search",
      { keywords: alice.details.username, filters: {} },
    );
    // Not her (another member's name may start with hers, and a keyword finds it by its prefix).
    expect(search.body.results.map((r) => r.id)).not.toContain(alice.id);
    const likes = await bob.client.json("GET", "/my/likes");
    expect(JSON.stringify(likes.body)).not.toContain(alice.id);
  });

  it("works from the settings page: confirmation first, then the form", async () => {
    const alice = await memberWithPhoto();
    await expirePasswordConfirmation(alice.id);
    const before = await (await page(alice.client, "/settings/account")).text();
    expect(before).toContain("Confirm your password to delete your account");
    expect(before).toContain('href="/my/export"');

    await alice.client.json("POST", "/confirm-password", { password: alice.details.password });
    await alice.client.loadCsrfFromPage("/settings/account");
    const unticked = await alice.client.form("/settings/account", {});
    expect(unticked.status).toBe(422);
    expect(await countRows("users", "id = ?1", alice.id)).toBe(1);

    const res = await alice.client.form("/settings/account", { confirm: "yes" });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/account-deleted");
    expect(await countRows("users", "id = ?1", alice.id)).toBe(0);
    expect(await r2Keys(alice.id)).toEqual([]);
    expect((await page(alice.client, "/account-deleted")).status).toBe(200);
  });

  it("sends a member with a stale confirmation from the form to confirm the password", async () => {
    const alice = await verifiedMember();
    await alice.client.loadCsrfFromPage("/settings/account");
    await expirePasswordConfirmation(alice.id);
    const res = await alice.client.form("/settings/account", { confirm: "yes" });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toMatch(/^\/confirm-password\?redirectTo=/);
    expect(await countRows("users", "id = ?1", alice.id)).toBe(1);
  });
});
