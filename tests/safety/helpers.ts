import { env } from "cloudflare:test";
import type { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { imageBytes, upload } from "../profile/fixtures";

export type Member = Awaited<ReturnType<typeof verifiedMember>>;

/** A verified member who has one photo; returns the member and the photo's id. */
export async function memberWithPhoto(): Promise<Member & { photoId: string }> {
  const member = await verifiedMember();
  const res = await upload(member.client, [{ bytes: imageBytes("png") }]);
  if (res.status !== 201) throw new Error(`upload failed: ${res.status}`);
  return { ...member, photoId: res.body.photos![0]!.id };
}

/**
 * A verified member whose email was verified `days` ago (120: a seasoned member, whose reports
 * weigh the most before any record; docs/decisions/021).
 */
export async function seasonedMember(days = 120): Promise<Member> {
  const member = await verifiedMember();
  await env.DB.prepare("UPDATE users SET email_verified_at = ?2 WHERE id = ?1")
    .bind(member.id, new Date(Date.now() - days * 24 * 3600 * 1000).toISOString())
    .run();
  return member;
}

/** Makes a member a moderator (there is no sign-up for that role). */
export async function makeModerator(id: string) {
  await env.DB.prepare("UPDATE users SET role = 'moderator' WHERE id = ?1").bind(id).run();
}

/** Ages every password confirmation of the member past the 3-hour window. */
export async function expirePasswordConfirmation(userId: string) {
  await env.DB.prepare(
    "UPDATE sessions SET password_confirmed_at = '2000-01-01T00:00:00.000Z' WHERE user_id = ?1",
  )
    .bind(userId)
    .run();
}

export async function block(from: Member, to: Member, reason_type = "harassment") {
  const res = await from.client.json("POST", "/my/block", { user_id: to.id, reason_type });
  if (res.status !== 200) throw new Error(`block failed: ${res.status}`);
}

export async function unblock(from: Member, to: Member) {
  const res = await from.client.json("DELETE", `/my/block/${to.id}`);
  if (res.status !== 200) throw new Error(`unblock failed: ${res.status}`);
}

/** Starts a conversation from `from` to `to` with a first message; returns their ids. */
export async function converse(from: Member, to: Member, message = "Hello there") {
  const res = await from.client.json<{
    conversation: { id: string };
    message: { id: string } | null;
  }>("POST", "/chat/conversations", { user_id: to.id, message });
  if (res.status !== 201 && res.status !== 200) {
    throw new Error(`start conversation failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return { conversationId: res.body.conversation.id, messageId: res.body.message?.id ?? null };
}

export async function countRows(table: string, where = "1 = 1", ...params: unknown[]) {
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)
    .bind(...params)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** GET a page as a browser would (HTML). */
export function page(client: TestClient, path: string) {
  return client.fetch(path, { headers: { Accept: "text/html" } });
}

/** Sends a selfie for photo verification with the pose `poseId` (POST /my/verification). */
export async function sendSelfie(
  client: TestClient,
  poseId: string,
  bytes: Uint8Array = imageBytes("png"),
  type = "image/png",
) {
  if (!client.csrfToken) await client.loadCsrfFromPage("/dashboard");
  const form = new FormData();
  form.append("selfie", new File([new Uint8Array(bytes)], "selfie", { type }));
  form.append("pose_id", poseId);
  const res = await client.fetch("/my/verification", {
    method: "POST",
    headers: { Accept: "application/json", "X-CSRF-Token": client.csrfToken },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The id of `userId`'s photo verification request that waits for a moderator. */
export async function pendingVerificationId(userId: string): Promise<string> {
  const row = await env.DB.prepare(
    "SELECT id FROM photo_verifications WHERE user_id = ?1 AND status = 'pending'",
  )
    .bind(userId)
    .first<{ id: string }>();
  return row!.id;
}
