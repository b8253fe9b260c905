import { sql } from "drizzle-orm";
import {
  CONTENT_TYPES,
  IMAGE_TOO_LARGE_MESSAGE,
  imageDimensions,
  isTooLarge,
  sniffImageType,
  SNIFF_BYTES,
} from "~/lib/image-type";
import { PHOTO_LIMITS, PHOTO_MESSAGES } from "~/schemas/photos";
import {
  POSES,
  poseById,
  REJECT_REASONS,
  VERIFICATION_MESSAGES,
  type Pose,
  type RejectReason,
  type VerificationView,
} from "~/schemas/verification";
import { tellVerificationDecision } from "./account-notices.server";
import { hmacSign, newId } from "./crypto.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { forbidden, HttpError, notFound, ValidationError } from "./errors.server";
import { mintPhotoUrls } from "./photo-urls.server";
import { stripImageMetadata } from "./photo-metadata.server";
import { hit } from "./rate-limit.server";
import type { SessionUser } from "./session.server";
import { all, first, run, statement } from "./sql.server";
import { readBytesCapped } from "./validation.server";

/**
 * Photo verification (docs/decisions/042): a member copies a pose in a selfie; a moderator
 * compares it with the member's profile photos and approves or rejects it. The selfie is kept in
 * R2 under `verifications/<member>/` only while it waits: the decision erases it, and what stays
 * is the decision, its reason and who made it. One request waits at a time per member; a new
 * attempt after a rejection is allowed, photo_verification_account times in its window. The
 * badge (`users.photo_verified_at`) lasts while one of the photos compared is on the profile (the
 * trigger of migrations/0040).
 */

/** Where a member's selfies are kept in R2 (the account's deletion empties it too). */
export const selfiePrefix = (userId: string) => `verifications/${userId}/`;

/** Where a pending selfie is served to moderators. */
export const selfieUrl = (id: string) => `/moderation/verifications/${id}/selfie`;

/** The most a selfie upload request may hold: one photo at the size limit and the framing. */
const MAX_SELFIE_BODY_BYTES = PHOTO_LIMITS.maxBytes + 64 * 1024;

/**
 * The pose a member is asked to copy: drawn from POSES by a keyed hash of the member and how many
 * selfies they sent before, so the same pose is shown until they send one (the page and the API
 * agree without storing it), and a new attempt gets a pose nobody could predict without APP_KEY.
 */
export async function poseFor(env: Env, userId: string): Promise<Pose> {
  const row = await first<{ n: number }>(
    env.DB,
    sql`SELECT count(*) AS n FROM photo_verifications WHERE user_id = ${userId}`,
  );
  const mac = await hmacSign(env.APP_KEY, `verification-pose:${userId}:${row?.n ?? 0}`);
  // The MAC is base64url: its first characters are uniformly spread.
  const index = (mac.charCodeAt(0) * 64 + mac.charCodeAt(1)) % POSES.length;
  const pose = POSES[index]!;
  return { id: pose.id, instruction: pose.instruction };
}

interface LatestRow {
  status: "pending" | "verified" | "rejected";
  reason: string | null;
  verified_at: string | null;
}

/** GET /my/verification: where the member stands, and the pose to copy next. */
export async function verificationOf(env: Env, userId: string): Promise<VerificationView> {
  const row = await first<LatestRow>(
    env.DB,
    sql`SELECT pv.status, pv.reason, u.photo_verified_at AS verified_at
        FROM users u LEFT JOIN photo_verifications pv ON pv.id = (
          SELECT id FROM photo_verifications WHERE user_id = u.id
          ORDER BY created_at DESC, id DESC LIMIT 1)
        WHERE u.id = ${userId}`,
  );
  const pose = await poseFor(env, userId);
  if (row?.verified_at) return { status: "verified", pose };
  if (row?.status === "pending") return { status: "pending", pose };
  if (row?.status === "rejected") {
    const reason = REJECT_REASONS[row.reason as RejectReason] ?? REJECT_REASONS.face_unclear;
    return { status: "rejected", pose, reason };
  }
  // Approved once, but every photo compared has gone since.
  if (row?.status === "verified") return { status: "none", pose, lost: true };
  return { status: "none", pose };
}

/** A multipart upload's `selfie` file and `pose_id` (413 past the cap). */
export async function readSelfieUpload(
  request: Request,
): Promise<{ selfie: Uint8Array | null; poseId: string }> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data") || !request.body) {
    return { selfie: null, poseId: "" };
  }
  const body = await readBytesCapped(request, MAX_SELFIE_BODY_BYTES);
  if (!body) {
    throw new HttpError(413, PHOTO_MESSAGES.eachSize, { selfie: [PHOTO_MESSAGES.eachSize] });
  }
  let form: FormData;
  try {
    form = await new Response(body, { headers: { "Content-Type": type } }).formData();
  } catch {
    throw new ValidationError({ selfie: [VERIFICATION_MESSAGES.selfie] });
  }
  const entry = form.get("selfie");
  const pose = form.get("pose_id");
  return {
    selfie:
      entry && typeof entry !== "string" && entry.size > 0
        ? new Uint8Array(await entry.arrayBuffer())
        : null,
    poseId: typeof pose === "string" ? pose : "",
  };
}

const tooManyAttempts = (retryAfter: number) =>
  new HttpError(429, VERIFICATION_MESSAGES.tooMany, undefined, {
    "Retry-After": String(Math.max(1, retryAfter)),
  });

/**
 * POST /my/verification: checks the pose is the one shown and the selfie one image as profile
 * photos are checked (type from its bytes, size, dimensions), strips its metadata, keeps it in R2
 * and queues it for the moderators. 409 while one waits or once verified; 422 without a profile
 * photo to compare it with; 429 past the attempts' window.
 */
export async function submitSelfie(
  env: Env,
  userId: string,
  upload: { selfie: Uint8Array | null; poseId: string },
  now = Date.now(),
): Promise<{ status: "pending" }> {
  const state = await first<{ verified_at: string | null; pending: number; photos: number }>(
    env.DB,
    sql`SELECT u.photo_verified_at AS verified_at,
          EXISTS (SELECT 1 FROM photo_verifications pv WHERE pv.user_id = u.id AND pv.status = 'pending') AS pending,
          (SELECT count(*) FROM photos p WHERE p.user_id = u.id) AS photos
        FROM users u WHERE u.id = ${userId}`,
  );
  if (!state) throw notFound();
  if (state.verified_at) throw new HttpError(409, VERIFICATION_MESSAGES.verified);
  if (state.pending) throw new HttpError(409, VERIFICATION_MESSAGES.pending);
  if (state.photos === 0) throw new ValidationError({ selfie: [VERIFICATION_MESSAGES.noPhotos] });
  const pose = await poseFor(env, userId);
  if (!poseById(upload.poseId) || upload.poseId !== pose.id) {
    throw new ValidationError({ pose_id: [VERIFICATION_MESSAGES.pose] });
  }
  const bytes = upload.selfie;
  if (!bytes) throw new ValidationError({ selfie: [VERIFICATION_MESSAGES.selfie] });
  if (bytes.byteLength >= PHOTO_LIMITS.maxBytes) {
    throw new ValidationError({ selfie: [PHOTO_MESSAGES.eachSize] });
  }
  const type = sniffImageType(bytes.subarray(0, SNIFF_BYTES));
  if (type !== "jpeg" && type !== "png" && type !== "webp") {
    const message = type === "not-image" ? PHOTO_MESSAGES.imageOnly : PHOTO_MESSAGES.formats;
    throw new HttpError(415, message, { selfie: [message] });
  }
  const dimensions = imageDimensions(bytes, type);
  if (!dimensions) {
    throw new HttpError(415, PHOTO_MESSAGES.imageOnly, { selfie: [PHOTO_MESSAGES.imageOnly] });
  }
  if (isTooLarge(dimensions)) throw new ValidationError({ selfie: [IMAGE_TOO_LARGE_MESSAGE] });
  const limit = await hit(env, "photo_verification_account", userId, now);
  if (!limit.allowed) throw tooManyAttempts(limit.retryAfter);

  // Without metadata (GPS, camera, time), as profile photos are kept: photo-metadata.server.ts.
  const clean = stripImageMetadata(bytes, type) ?? bytes;
  const id = newId();
  const key = `${selfiePrefix(userId)}${id}`;
  const contentType = CONTENT_TYPES[type];
  await env.PHOTOS.put(key, clean, { httpMetadata: { contentType } });
  // One waiting request per member (the partial unique index): a concurrent second one fails.
  const stored = await all(
    env.DB,
    sql`INSERT INTO photo_verifications (id, user_id, pose_id, r2_key, content_type, status, created_at)
        VALUES (${id}, ${userId}, ${pose.id}, ${key}, ${contentType}, 'pending', ${nowIso(now)})
        ON CONFLICT DO NOTHING RETURNING id`,
  );
  if (stored.length === 0) {
    await env.PHOTOS.delete(key);
    throw new HttpError(409, VERIFICATION_MESSAGES.pending);
  }
  return { status: "pending" };
}

// ---------------------------------------------------------------------------------------------
// Moderators

export interface PendingVerification {
  id: string;
  created_at: string;
  pose: Pose;
  selfie_url: string;
  member: {
    id: string;
    username: string;
    first_name: string | null;
    photos: { id: string; url: string }[];
  };
}

const QUEUE_SIZE = 50;

/** GET /moderation/verifications: the selfies waiting, oldest first, beside the member's photos. */
export async function listPendingVerifications(env: Env): Promise<PendingVerification[]> {
  const rows = await all<{
    id: string;
    created_at: string;
    pose_id: string;
    user_id: string;
    username: string;
    first_name: string | null;
    photo_ids: string | null;
  }>(
    env.DB,
    sql`SELECT pv.id, pv.created_at, pv.pose_id, u.id AS user_id, u.username,
          p.first_name AS first_name,
          (SELECT json_group_array(id) FROM (SELECT id FROM photos ph WHERE ph.user_id = u.id
            ORDER BY ph.position, ph.id)) AS photo_ids
        FROM photo_verifications pv INDEXED BY photo_verifications_queue
        JOIN users u ON u.id = pv.user_id
        LEFT JOIN profiles p ON p.user_id = u.id
        WHERE pv.status = 'pending'
        ORDER BY pv.created_at, pv.id LIMIT ${QUEUE_SIZE}`,
  );
  const photosOf = (r: (typeof rows)[number]) => JSON.parse(r.photo_ids ?? "[]") as string[];
  const urls = await mintPhotoUrls(
    env,
    rows.flatMap((r) => photosOf(r).map((id) => ({ id, owner: r.user_id }))),
  );
  return rows.map((r) => {
    const pose = poseById(r.pose_id) ?? POSES[0];
    const photoIds = photosOf(r);
    return {
      id: r.id,
      created_at: r.created_at,
      pose: { id: pose.id, instruction: pose.instruction },
      selfie_url: selfieUrl(r.id),
      member: {
        id: r.user_id,
        username: r.username,
        first_name: r.first_name,
        // At the width the queue shows them (160 px wide, twice that on a dense screen).
        photos: photoIds.map((id) => ({ id, url: urls.get(id)![400] })),
      },
    };
  });
}

/** A waiting selfie's bytes, for moderators (404 once decided: it is erased then). */
export async function pendingSelfie(env: Env, id: string) {
  const row = await first<{ r2_key: string | null }>(
    env.DB,
    sql`SELECT r2_key FROM photo_verifications WHERE id = ${id} AND status = 'pending'`,
  );
  const object = row?.r2_key ? await env.PHOTOS.get(row.r2_key) : null;
  if (!object) throw notFound("Selfie not found.");
  return object;
}

/** The waiting request `id`, for a decision; 404 when there is none, 403 for one's own. */
async function pendingRequest(env: Env, moderator: SessionUser, id: string) {
  const row = await first<{ user_id: string; r2_key: string | null; status: string }>(
    env.DB,
    sql`SELECT user_id, r2_key, status FROM photo_verifications WHERE id = ${id}`,
  );
  if (!row) throw notFound("Verification request not found.");
  if (row.status !== "pending") throw new HttpError(409, "This request was already decided.");
  if (row.user_id === moderator.id) throw forbidden("You cannot verify yourself.");
  return row;
}

/**
 * Approves a waiting selfie: the member is verified, against the photos on their profile now
 * (the ones the moderator saw beside it); the selfie is erased, and the member is told (a notice
 * and an email, links at `origin`: account-notices.server.ts).
 */
export async function approveVerification(
  env: Env,
  moderator: SessionUser,
  id: string,
  origin: string,
  now = Date.now(),
): Promise<{ message: string }> {
  const row = await pendingRequest(env, moderator, id);
  const at = nowIso(now);
  const [decided] = await env.DB.batch([
    statement(
      env.DB,
      sql`UPDATE photo_verifications SET status = 'verified', decided_at = ${at},
            decided_by = ${moderator.id}, r2_key = NULL, content_type = NULL,
            compared_photo_ids = (SELECT json_group_array(id) FROM photos WHERE user_id = ${row.user_id})
          WHERE id = ${id} AND status = 'pending'`,
    ),
    // Only when the request was still waiting (a second moderator's approval changes nothing),
    // and only while the member still has a photo it was compared with.
    statement(
      env.DB,
      sql`UPDATE users SET photo_verified_at = ${at}
          WHERE id = ${row.user_id} AND photo_verified_at IS NULL
            AND EXISTS (SELECT 1 FROM photo_verifications WHERE id = ${id} AND decided_at = ${at})
            AND EXISTS (SELECT 1 FROM photos WHERE user_id = ${row.user_id})`,
    ),
  ]);
  if (row.r2_key) await env.PHOTOS.delete(row.r2_key);
  if (!decided?.meta.changes) throw new HttpError(409, "This request was already decided.");
  // Told once: only the approval that decided the request gets here.
  await tellVerificationDecision(env, row.user_id, { verified: true }, origin);
  return { message: VERIFICATION_MESSAGES.approved };
}

/**
 * Rejects a waiting selfie with a reason the member is told in plain words (on their page, in a
 * notice and an email, links at `origin`); the selfie is erased.
 */
export async function rejectVerification(
  env: Env,
  moderator: SessionUser,
  id: string,
  reason: RejectReason,
  origin: string,
  now = Date.now(),
): Promise<{ message: string }> {
  const row = await pendingRequest(env, moderator, id);
  const result = await run(
    env.DB,
    sql`UPDATE photo_verifications SET status = 'rejected', reason = ${reason},
          decided_at = ${nowIso(now)}, decided_by = ${moderator.id}, r2_key = NULL, content_type = NULL
        WHERE id = ${id} AND status = 'pending'`,
  );
  if (row.r2_key) await env.PHOTOS.delete(row.r2_key);
  if (!result.meta.changes) throw new HttpError(409, "This request was already decided.");
  await tellVerificationDecision(env, row.user_id, { verified: false, reason }, origin);
  return { message: VERIFICATION_MESSAGES.rejected };
}
