import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { REJECT_REASONS, VERIFICATION_MESSAGES } from "~/schemas/verification";
import { expiryOf, photoUrlsUntil } from "../helpers/photo-urls";
import { verifiedMember } from "../helpers/members";
import { imageBytes, upload } from "../profile/fixtures";
import { foundIds, searcher } from "../discovery/fixtures";
import { countRows, makeModerator, memberWithPhoto, sendSelfie, type Member } from "./helpers";

interface Standing {
  status: "none" | "pending" | "verified" | "rejected";
  pose: { id: string; instruction: string };
  reason?: string;
  lost?: boolean;
}

const standing = async (m: Member) =>
  (await m.client.json<Standing>("GET", "/my/verification")).body;

/** A JPEG carrying an EXIF segment with a GPS-looking payload, to see it stripped. */
function jpegWithExif(): Uint8Array {
  const plain = imageBytes("jpeg");
  const payload = new TextEncoder().encode("Exif\0\0GPS-48.8584N-2.2945E-SECRET");
  const segment = [0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 255, ...payload];
  return new Uint8Array([...plain.subarray(0, 2), ...segment, ...plain.subarray(2)]);
}

async function moderator() {
  const mod = await verifiedMember();
  await makeModerator(mod.id);
  return mod;
}

/** A member with a photo whose selfie waits; returns the member and the request's id. */
async function pendingMember(bytes?: Uint8Array, type?: string) {
  const member = await memberWithPhoto();
  const { pose } = await standing(member);
  expect((await sendSelfie(member.client, pose.id, bytes, type)).status).toBe(202);
  const row = await env.DB.prepare(
    "SELECT id, r2_key FROM photo_verifications WHERE user_id = ?1 AND status = 'pending'",
  )
    .bind(member.id)
    .first<{ id: string; r2_key: string }>();
  return { member, id: row!.id, key: row!.r2_key };
}

const cardOf = async (viewer: Member, member: Member) =>
  (
    await viewer.client.json<{ member: { verified: boolean } }>(
      "GET",
      `/members/${member.details.username}`,
    )
  ).body.member;

describe("photo verification", () => {
  it("asks for a pose, queues the selfie (202) and shows it to moderators only", async () => {
    const mod = await moderator();
    const member = await memberWithPhoto();
    const first = await standing(member);
    expect(first.status).toBe("none");
    expect(first.pose.instruction.length).toBeGreaterThan(10);
    // The same pose until a selfie is sent.
    expect((await standing(member)).pose).toEqual(first.pose);

    const wrong = await sendSelfie(member.client, first.pose.id === "wave" ? "peace" : "wave");
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({ pose_id: [VERIFICATION_MESSAGES.pose] });
    const sent = await sendSelfie(member.client, first.pose.id);
    expect(sent).toEqual({ status: 202, body: { status: "pending" } });
    expect((await standing(member)).status).toBe("pending");

    // One waiting at a time.
    const again = await sendSelfie(member.client, (await standing(member)).pose.id);
    expect(again.status).toBe(409);

    const queue = await mod.client.json<{
      verifications: {
        id: string;
        selfie_url: string;
        pose: { id: string };
        member: { id: string; photos: { id: string; url: string }[] };
      }[];
    }>("GET", "/moderation/verifications");
    const item = queue.body.verifications.find((v) => v.member.id === member.id)!;
    expect(item.pose.id).toBe(first.pose.id);
    expect(item.member.photos.map((p) => p.id)).toEqual([member.photoId]);
    // Each at its signed address for the width the queue shows, exactly as minted.
    const [photo] = item.member.photos;
    expect(photo!.url).toBe(
      (await photoUrlsUntil(member.photoId, member.id, expiryOf(photo!.url)))[400],
    );
    const selfie = await mod.client.fetch(item.selfie_url);
    expect(selfie.status).toBe(200);
    expect(selfie.headers.get("Cache-Control")).toBe("private, no-store");

    // Members, the owner included, never see the queue or a selfie.
    expect((await member.client.json("GET", "/moderation/verifications")).status).toBe(404);
    expect((await member.client.fetch(item.selfie_url)).status).toBe(404);
    expect(
      (await member.client.json("POST", `/moderation/verifications/${item.id}/approve`)).status,
    ).toBe(404);
  });

  it("keeps the selfie without metadata, as profile photos are kept", async () => {
    const { key } = await pendingMember(jpegWithExif(), "image/jpeg");
    const stored = new Uint8Array(await (await env.PHOTOS.get(key))!.arrayBuffer());
    expect(new TextDecoder("latin1").decode(stored)).not.toContain("SECRET");
    expect(stored[0]).toBe(0xff);
  });

  it("refuses a selfie that is not an image, and one without a profile photo to compare", async () => {
    const member = await memberWithPhoto();
    const { pose } = await standing(member);
    const html = await sendSelfie(member.client, pose.id, imageBytes("html"), "image/png");
    expect(html.status).toBe(415);
    const noPhoto = await verifiedMember();
    const none = await sendSelfie(noPhoto.client, (await standing(noPhoto)).pose.id);
    expect(none.status).toBe(422);
    expect(none.body.errors).toEqual({ selfie: [VERIFICATION_MESSAGES.noPhotos] });
    expect(
      await countRows("photo_verifications", "user_id IN (?1, ?2)", member.id, noPhoto.id),
    ).toBe(0);
  });

  it("approval verifies the member, erases the selfie and keeps who decided", async () => {
    const mod = await moderator();
    const viewer = await verifiedMember();
    const { member, id, key } = await pendingMember();
    expect((await cardOf(viewer, member)).verified).toBe(false);
    const res = await mod.client.json("POST", `/moderation/verifications/${id}/approve`);
    expect(res.status).toBe(200);
    expect((await standing(member)).status).toBe("verified");
    expect(await env.PHOTOS.get(key)).toBeNull();
    const row = await env.DB.prepare(
      "SELECT status, r2_key, decided_by, compared_photo_ids FROM photo_verifications WHERE id = ?1",
    )
      .bind(id)
      .first<Record<string, string | null>>();
    expect(row).toEqual({
      status: "verified",
      r2_key: null,
      decided_by: mod.id,
      compared_photo_ids: JSON.stringify([member.photoId]),
    });
    // The badge on the profile and on cards.
    expect((await cardOf(viewer, member)).verified).toBe(true);
    // Decided once: a second decision is refused, and the selfie is gone for moderators too.
    expect(
      (
        await mod.client.json("POST", `/moderation/verifications/${id}/reject`, {
          reason: "no_match",
        })
      ).status,
    ).toBe(409);
    expect((await mod.client.fetch(`/moderation/verifications/${id}/selfie`)).status).toBe(404);
    // Verified: nothing more to send.
    expect((await sendSelfie(member.client, (await standing(member)).pose.id)).status).toBe(409);
  });

  it("rejection tells the member why in plain words, and a new attempt gets a new pose", async () => {
    const mod = await moderator();
    const { member, id, key } = await pendingMember();
    const before = (await standing(member)).pose;
    const bad = await mod.client.json("POST", `/moderation/verifications/${id}/reject`, {
      reason: "nonsense",
    });
    expect(bad.status).toBe(422);
    const res = await mod.client.json("POST", `/moderation/verifications/${id}/reject`, {
      reason: "pose_mismatch",
    });
    expect(res.status).toBe(200);
    expect(await env.PHOTOS.get(key)).toBeNull();
    const after = await standing(member);
    expect(after.status).toBe("rejected");
    expect(after.reason).toBe(REJECT_REASONS.pose_mismatch);
    // The next attempt's pose is drawn again (it may come out the same), and it is the one asked.
    expect(before.id).toBeTruthy();
    expect((await sendSelfie(member.client, after.pose.id)).status).toBe(202);
    expect((await standing(member)).status).toBe("pending");
  });

  it("limits attempts (photo_verification_account) with 429", async () => {
    const mod = await moderator();
    const member = await memberWithPhoto();
    for (let i = 0; i < 3; i++) {
      const sent = await sendSelfie(member.client, (await standing(member)).pose.id);
      expect(sent.status).toBe(202);
      const { id } = (await env.DB.prepare(
        "SELECT id FROM photo_verifications WHERE user_id = ?1 AND status = 'pending'",
      )
        .bind(member.id)
        .first<{ id: string }>())!;
      await mod.client.json("POST", `/moderation/verifications/${id}/reject`, {
        reason: "face_unclear",
      });
    }
    const res = await member.client.fetch("/my/verification", {
      method: "POST",
      headers: { Accept: "application/json", "X-CSRF-Token": member.client.csrfToken },
      body: (() => {
        const form = new FormData();
        form.append("selfie", new File([imageBytes("png")], "s.png", { type: "image/png" }));
        return form;
      })(),
    });
    expect(res.status).toBe(422); // no pose given: checked before the attempt counts
    const limited = await sendSelfie(member.client, (await standing(member)).pose.id);
    expect(limited.status).toBe(429);
  });

  it("verification is lost when every photo it was compared with is gone, not before", async () => {
    const mod = await moderator();
    const viewer = await verifiedMember();
    const { member, id } = await pendingMember();
    // A second photo, added before the decision: both are compared.
    const added = await upload(member.client, [{ bytes: imageBytes("png") }]);
    const second = added.body.photos![1]!.id;
    await mod.client.json("POST", `/moderation/verifications/${id}/approve`);
    // A new photo after the decision, then one of the compared ones goes: still verified.
    const third = (await upload(member.client, [{ bytes: imageBytes("png") }])).body.photos![2]!.id;
    expect((await member.client.json("DELETE", `/my/photos/${member.photoId}`)).status).toBe(204);
    expect((await cardOf(viewer, member)).verified).toBe(true);
    // The last compared photo goes: the badge goes with it, the member may verify again.
    expect((await member.client.json("DELETE", `/my/photos/${second}`)).status).toBe(204);
    expect((await cardOf(viewer, member)).verified).toBe(false);
    const after = await standing(member);
    expect(after).toMatchObject({ status: "none", lost: true });
    expect(third).toBeTruthy();
  });

  it("search's verified_only finds verified members only", async () => {
    const mod = await moderator();
    const me = await searcher();
    const { member, id } = await pendingMember();
    const other = await memberWithPhoto();
    const before = await foundIds(me.client, { filters: { verified_only: true } });
    expect(before).not.toContain(member.id);
    await mod.client.json("POST", `/moderation/verifications/${id}/approve`);
    const verified = await foundIds(me.client, { filters: { verified_only: true } });
    expect(verified).toContain(member.id);
    expect(verified).not.toContain(other.id);
    const all = await foundIds(me.client, { filters: {} });
    expect(all).toEqual(expect.arrayContaining([member.id, other.id]));
    // With keywords too (the member's username).
    const named = await foundIds(me.client, {
      keywords: member.details.username,
      filters: { verified_only: true },
    });
    expect(named).toEqual([member.id]);
  });

  it("erases a waiting selfie with the account", async () => {
    const { member, key } = await pendingMember();
    const res = await member.client.json("DELETE", "/my/account");
    expect(res.status).toBe(200);
    expect(await env.PHOTOS.get(key)).toBeNull();
  });
});
