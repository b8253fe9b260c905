import { and, asc, count, eq, sql, sum } from "drizzle-orm";
import {
  CONTENT_TYPES,
  IMAGE_TOO_LARGE_MESSAGE,
  imageDimensions,
  isTooLarge,
  sniffImageType,
  SNIFF_BYTES,
} from "~/lib/image-type";
import { PHOTO_WIDTHS, type PhotoWidth } from "~/lib/photos";
import { checkPhotos, PHOTO_LIMITS, PHOTO_MESSAGES, type ExistingPhotos } from "~/schemas/photos";
import type { ProfilePhoto } from "~/schemas/profile";
import { newId } from "./crypto.server";
import { getDb, nowIso, schema } from "./db.server";
import type { Env } from "./env.server";
import { HttpError, notFound, ValidationError } from "./errors.server";
import { logFailure } from "./log.server";
import { cleanableType, stripImageMetadata } from "./photo-metadata.server";
import { mintPhotoUrls, PHOTO_URL_MAX_LIFETIME_SECONDS, profilePhoto } from "./photo-urls.server";
import { requireVerifiedEmail, type SessionUser } from "./session.server";
import { canSee } from "./visibility.server";
import { readBytesCapped } from "./validation.server";
import type { Job } from "./housekeeping.server";
import { all, first, run } from "./sql.server";

/** Photo ids never change content, so a browser may keep them for a year (in its own cache only). */
export const PHOTO_CACHE_CONTROL = "private, max-age=31536000, immutable";

/**
 * How long this data centre's cache keeps a photo at a width (docs/decisions/043): no longer than
 * an address lives, so that a photo whose deletion another data centre did not see leaves every
 * cache within the hour, as the addresses that could still ask for it expire.
 */
const EDGE_CACHE_CONTROL = `public, max-age=${PHOTO_URL_MAX_LIFETIME_SECONDS}`;

/**
 * The most an upload request body may hold: one more photo than allowed at the size limit plus
 * room for the multipart framing, so that a slightly-too-large selection still gets the messages
 * of docs/domain.md "Profile and photos" while a huge body is cut off early.
 */
export const MAX_UPLOAD_BODY_BYTES =
  (PHOTO_LIMITS.maxCount + 1) * PHOTO_LIMITS.maxBytes + 1024 * 1024;

const tooLarge = () =>
  new HttpError(413, PHOTO_MESSAGES.totalSize, { photos: [PHOTO_MESSAGES.totalSize] });

export const photoKey = (userId: string, photoId: string) => `photos/${userId}/${photoId}`;

/** A member's photos in order; positions are 0, 1, 2… and the first is the main photo. */
export async function listPhotos(env: Env, userId: string): Promise<ProfilePhoto[]> {
  const rows = await getDb(env.DB)
    .select({ id: schema.photos.id })
    .from(schema.photos)
    .where(eq(schema.photos.userId, userId))
    .orderBy(asc(schema.photos.position), asc(schema.photos.id))
    .all();
  const urls = await mintPhotoUrls(
    env,
    rows.map((r) => ({ id: r.id, owner: userId })),
  );
  return rows.map((r, i) => profilePhoto(r.id, urls.get(r.id)!, i));
}

async function existingPhotos(env: Env, userId: string): Promise<ExistingPhotos> {
  const row = await getDb(env.DB)
    .select({ count: count(), total: sum(schema.photos.size) })
    .from(schema.photos)
    .where(eq(schema.photos.userId, userId))
    .get();
  return { count: row?.count ?? 0, totalBytes: Number(row?.total ?? 0) };
}

/**
 * Reads the `photos` files of a multipart upload. The body is read with a cap (413 beyond it);
 * a request that is not multipart, or holds no file, gives an empty list.
 */
export async function readPhotoUpload(request: Request): Promise<Uint8Array[]> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data") || !request.body) return [];
  const body = await readBytesCapped(request, MAX_UPLOAD_BODY_BYTES);
  if (!body) throw tooLarge();

  let form: FormData;
  try {
    form = await new Response(body, { headers: { "Content-Type": type } }).formData();
  } catch {
    throw new ValidationError({ photos: [PHOTO_MESSAGES.required] });
  }
  const files: Uint8Array[] = [];
  for (const name of ["photos", "photos[]"]) {
    for (const entry of form.getAll(name)) {
      // A file input with nothing chosen still sends an empty part.
      if (typeof entry !== "string" && entry.size > 0) {
        files.push(new Uint8Array(await entry.arrayBuffer()));
      }
    }
  }
  return files;
}

function photoRuleError(messages: string[], wrongType: boolean): HttpError {
  return new HttpError(wrongType ? 415 : 422, messages[0] ?? PHOTO_MESSAGES.required, {
    photos: messages,
  });
}

/**
 * POST /my/photos: checks the rules of docs/domain.md "Profile and photos" against the member's
 * photos after the upload, with each file's type decided from its bytes, stores the files in R2
 * under generated keys, and answers all the member's photos. The rows are added by one
 * conditional statement, so concurrent uploads can never take a member past 5 photos or 20MB.
 */
export async function uploadPhotos(
  env: Env,
  userId: string,
  files: Uint8Array[],
): Promise<ProfilePhoto[]> {
  const sniffed = files.map((bytes) => {
    const type = sniffImageType(bytes.subarray(0, SNIFF_BYTES));
    // A file that starts like a JPEG, PNG or WebP but is not one (HTML after a JPEG header) is
    // not an image; one that is, but too large to decode safely, is refused with its limit.
    if (type !== "jpeg" && type !== "png" && type !== "webp")
      return { bytes, type, size: bytes.byteLength };
    const dimensions = imageDimensions(bytes, type);
    if (dimensions && isTooLarge(dimensions)) {
      throw new ValidationError({ photos: [IMAGE_TOO_LARGE_MESSAGE] });
    }
    // Stored without metadata (GPS, camera, time), whatever the client sent: photo-metadata.server.ts.
    const clean = dimensions ? stripImageMetadata(bytes, type) : null;
    return {
      bytes: clean ?? bytes,
      type: clean ? type : ("not-image" as const),
      size: bytes.byteLength,
    };
  });
  const check = checkPhotos(sniffed, await existingPhotos(env, userId));
  if (check.messages.length) throw photoRuleError(check.messages, check.wrongType);

  const now = nowIso();
  const pending = sniffed.map((file) => {
    const id = newId();
    const contentType = CONTENT_TYPES[file.type as keyof typeof CONTENT_TYPES];
    return {
      id,
      key: photoKey(userId, id),
      contentType,
      size: file.bytes.byteLength,
      bytes: file.bytes,
    };
  });
  const puts = await Promise.allSettled(
    pending.map((p) =>
      env.PHOTOS.put(p.key, p.bytes, { httpMetadata: { contentType: p.contentType } }),
    ),
  );
  const failed = puts.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) {
    // Nothing of a half-stored upload stays behind.
    await env.PHOTOS.delete(pending.map((p) => p.key));
    throw failed.reason;
  }
  const stored = pending.map((p, i) => ({
    ...p,
    etag: (puts[i] as PromiseFulfilledResult<R2Object>).value.etag,
  }));

  const newBytes = stored.reduce((total, s) => total + s.size, 0);
  const values = sql.join(
    stored.map(
      (s, i) => sql`(${s.id}, ${s.key}, ${s.contentType}, ${s.size}, ${s.etag}, ${i + 1})`,
    ),
    sql`, `,
  );
  const insert = sql`WITH incoming(id, r2_key, content_type, size, etag, n) AS (VALUES ${values})
     INSERT INTO photos (id, user_id, r2_key, content_type, size, position, etag, created_at)
     SELECT id, ${userId}, r2_key, content_type, size,
            (SELECT COALESCE(MAX(position), -1) FROM photos WHERE user_id = ${userId}) + n, etag, ${now}
     FROM incoming
     WHERE (SELECT COUNT(*) FROM photos WHERE user_id = ${userId}) + ${stored.length} <= ${PHOTO_LIMITS.maxCount}
       AND (SELECT COALESCE(SUM(size), 0) FROM photos WHERE user_id = ${userId}) + ${newBytes} < ${PHOTO_LIMITS.maxTotalBytes}
     RETURNING id`;
  let inserted = 0;
  try {
    // Counted from RETURNING: meta.changes also counts the rows the search triggers write.
    inserted = (await all(env.DB, insert)).length;
  } finally {
    if (inserted !== stored.length) await env.PHOTOS.delete(stored.map((s) => s.key));
  }
  if (inserted !== stored.length) {
    // Another upload finished first: the rules now fail against what it stored.
    const again = checkPhotos(sniffed, await existingPhotos(env, userId));
    throw photoRuleError(
      again.messages.length ? again.messages : [PHOTO_MESSAGES.maxCount],
      again.wrongType,
    );
  }
  return listPhotos(env, userId);
}

/**
 * DELETE /my/photos/{id}. A member who has photos keeps at least one: the delete is conditional on
 * another photo remaining, so two concurrent deletes cannot remove the last two. The files go from
 * R2 and the photo's widths from this data centre's cache (`origin`: the app's address the request
 * came to), so that its signed addresses stop at once here.
 */
export async function deletePhoto(
  env: Env,
  userId: string,
  photoId: string,
  origin: string,
): Promise<void> {
  const photo = await getDb(env.DB)
    .select({ key: schema.photos.r2Key })
    .from(schema.photos)
    .where(and(eq(schema.photos.id, photoId), eq(schema.photos.userId, userId)))
    .get();
  if (!photo) throw notFound("Photo not found.");
  const result = await run(
    env.DB,
    sql`DELETE FROM photos WHERE id = ${photoId} AND user_id = ${userId}
       AND (SELECT COUNT(*) FROM photos WHERE user_id = ${userId}) > 1`,
  );
  if (result.meta.changes === 0) throw new ValidationError({ photos: [PHOTO_MESSAGES.required] });
  await env.PHOTOS.delete([photo.key, ...PHOTO_WIDTHS.map((w) => variantKey(photo.key, w))]);
  await purgePhotoCache(origin, [photoId]);
  await renumber(env, userId);
}

/** Rewrites positions as 0, 1, 2… in the current order. */
async function renumber(env: Env, userId: string, order?: string[]) {
  const ids = order ?? (await listPhotos(env, userId)).map((p) => p.id);
  if (ids.length === 0) return;
  const db = getDb(env.DB);
  const [first, ...rest] = ids.map((id, position) =>
    db
      .update(schema.photos)
      .set({ position })
      .where(and(eq(schema.photos.id, id), eq(schema.photos.userId, userId))),
  );
  await db.batch([first!, ...rest]);
}

export const PHOTO_ORDER_MESSAGE = "The order must list each of your photos once.";

/** PUT /my/photos/order: `ids` is every one of the member's photos, the main photo first. */
export async function reorderPhotos(
  env: Env,
  userId: string,
  ids: string[],
): Promise<ProfilePhoto[]> {
  const current = await listPhotos(env, userId);
  const known = new Set(current.map((p) => p.id));
  if (
    ids.length !== current.length ||
    new Set(ids).size !== ids.length ||
    ids.some((id) => !known.has(id))
  ) {
    throw new ValidationError({ ids: [PHOTO_ORDER_MESSAGE] });
  }
  await renumber(env, userId, ids);
  return listPhotos(env, userId);
}

/**
 * GET /photos/{id}: the stored photo for a signed-in member. A member always sees their own; any
 * other photo needs a verified email and an owner the viewer may see (404 otherwise, the same as
 * a photo that does not exist).
 */
export async function readPhoto(env: Env, viewer: SessionUser, photoId: string) {
  const photo = await getDb(env.DB)
    .select()
    .from(schema.photos)
    .where(eq(schema.photos.id, photoId))
    .get();
  if (!photo || photo.userId !== viewer.id) {
    requireVerifiedEmail(viewer);
    if (!photo || !(await canSee(env, viewer.id, photo.userId))) {
      throw notFound("Photo not found.");
    }
  }
  return photo;
}

async function photoObject(env: Env, r2Key: string) {
  const object = await env.PHOTOS.get(r2Key);
  if (!object) throw notFound("Photo not found.");
  return object;
}

/**
 * Makes new photos' widths as part of the upload, so that the first member to see one does not
 * wait for it. A photo whose widths cannot be made keeps working (logged; each width is made when
 * first asked for, or the request fails there).
 */
export async function preparePhotoWidths(env: Env, userId: string, photoIds: string[]) {
  for (const id of photoIds) {
    const r2Key = photoKey(userId, id);
    try {
      for (const width of PHOTO_WIDTHS) await makeVariant(env, r2Key, width);
    } catch (error) {
      logFailure("photo_widths", error, { photo: id });
    }
    // A photo deleted meanwhile: its widths go too (a delete after this point finds them).
    const kept = await getDb(env.DB)
      .select({ id: schema.photos.id })
      .from(schema.photos)
      .where(eq(schema.photos.id, id))
      .get();
    if (!kept) await env.PHOTOS.delete(PHOTO_WIDTHS.map((w) => variantKey(r2Key, w)));
  }
}

/** Where a photo's copy at a width is kept: beside the photo, under the member's prefix. */
const variantKey = (r2Key: string, width: PhotoWidth) => `${r2Key}.w${width}`;

/**
 * Makes a photo's copy at one of PHOTO_WIDTHS (WebP, never wider than the photo itself) with the
 * Images binding, from the stored photo, and keeps it in R2 beside it. Throws when the photo is
 * not in R2 or the binding cannot make it.
 */
async function makeVariant(
  env: Env,
  r2Key: string,
  width: PhotoWidth,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; contentType: string; etag: string }> {
  const original = await photoObject(env, r2Key);
  const result = await env.IMAGES.input(original.body)
    .transform({ width, fit: "scale-down" })
    .output({ format: "image/webp", quality: 80 });
  const made = new Uint8Array(await result.response().arrayBuffer());
  // An image the binding could not decode can come back empty: never keep that as the photo.
  if (made.byteLength === 0) throw new Error(`no image at width ${width}`);
  // Whatever the binding copies over from the original (it may keep EXIF), no width carries it.
  const madeType = cleanableType(made);
  const bytes = (madeType && stripImageMetadata(made, madeType)) || made;
  const contentType = result.contentType();
  const kept = await env.PHOTOS.put(variantKey(r2Key, width), bytes, {
    httpMetadata: { contentType },
  });
  return { bytes, contentType, etag: kept.httpEtag };
}

/** A photo's bytes as served at a width: a stream where it can be, and what describes it. */
export interface ServedPhoto {
  body: ReadableStream | Uint8Array<ArrayBuffer>;
  contentType: string;
  size: number;
  /** Quoted, as the ETag header carries it. */
  etag: string;
}

/**
 * This data centre's cache (the Workers runtime's `caches.default`; the DOM's CacheStorage type,
 * which the project also compiles against, does not name it).
 */
const edgeCache = () => (caches as unknown as { default: Cache }).default;

/** Where a photo at a width is kept in this data centre's cache (the Cache API), by photo and width. */
const photoCacheKey = (origin: string, photoId: string, width: PhotoWidth) =>
  `${origin}/photos/${encodeURIComponent(photoId)}/w${width}`;

/**
 * Forgets a photo's widths in this data centre's cache (other data centres keep theirs until
 * their entry expires: EDGE_CACHE_CONTROL). Never fails the deletion it is part of.
 */
export async function purgePhotoCache(origin: string, photoIds: string[]): Promise<void> {
  const cache = edgeCache();
  await Promise.all(
    photoIds.flatMap((id) =>
      PHOTO_WIDTHS.map((w) =>
        cache.delete(photoCacheKey(origin, id, w)).catch((error: unknown) => {
          logFailure("photo_cache_purge", error, { photo: id, width: w });
          return false;
        }),
      ),
    ),
  );
}

/** The Cache API of the request being answered: its origin, and where to leave the cache's write. */
export interface PhotoCache {
  origin: string;
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * A photo at one of PHOTO_WIDTHS, for a request already allowed to see it (a signed address, or
 * `readPhoto`), and without the database: from this data centre's cache, else the copy kept in R2
 * streamed as it is read (and put in the cache on the way), else made now by the Images binding
 * and kept (photos stored before widths existed). A photo the binding cannot make smaller is
 * served as it is, without metadata (and not cached, so that a passing failure of the binding is
 * not kept). Null when the photo is not in R2 (deleted).
 */
export async function photoAtWidth(
  env: Env,
  photo: { id: string; r2Key: string },
  width: PhotoWidth,
  cache: PhotoCache,
): Promise<ServedPhoto | null> {
  const key = photoCacheKey(cache.origin, photo.id, width);
  const hit = await edgeCache()
    .match(key)
    .catch((error: unknown) => {
      logFailure("photo_cache_read", error, { photo: photo.id, width });
      return undefined;
    });
  if (hit?.body) {
    return {
      body: hit.body,
      contentType: hit.headers.get("Content-Type") ?? "image/webp",
      size: Number(hit.headers.get("Content-Length") ?? 0),
      etag: hit.headers.get("ETag") ?? "",
    };
  }
  let served: ServedPhoto | null;
  const kept = await env.PHOTOS.get(variantKey(photo.r2Key, width));
  if (kept) {
    served = {
      body: kept.body,
      contentType: kept.httpMetadata?.contentType ?? "image/webp",
      size: kept.size,
      etag: kept.httpEtag,
    };
  } else {
    const made = await makeVariant(env, photo.r2Key, width).catch((error: unknown) => {
      if (error instanceof HttpError && error.status === 404) return null;
      logFailure("photo_width", error, { photo: photo.id, width });
      return "original" as const;
    });
    if (made === null) return null;
    if (made === "original") {
      const original = await cleanObject(env, photo.r2Key);
      if (!original) return null;
      return {
        body: original.bytes,
        contentType: original.contentType,
        size: original.bytes.byteLength,
        etag: original.etag,
      };
    }
    served = {
      body: made.bytes,
      contentType: made.contentType,
      size: made.bytes.byteLength,
      etag: made.etag,
    };
  }
  // The client's copy and the cache's copy: a stream is split as it is read, never buffered here.
  let forCache: ReadableStream | Uint8Array<ArrayBuffer> = served.body;
  if (served.body instanceof ReadableStream) {
    const [a, b] = served.body.tee();
    served = { ...served, body: a };
    forCache = b;
  }
  const entry = new Response(forCache, {
    headers: {
      "Content-Type": served.contentType,
      "Content-Length": String(served.size),
      ETag: served.etag,
      "Cache-Control": EDGE_CACHE_CONTROL,
    },
  });
  cache.waitUntil(
    edgeCache()
      .put(key, entry)
      .catch((error: unknown) => {
        logFailure("photo_cache_write", error, { photo: photo.id, width });
      }),
  );
  return served;
}

/**
 * One R2 object without metadata, rewritten in place when it had some (`rewritten`); null when
 * there is no such object.
 */
async function cleanObject(
  env: Env,
  key: string,
): Promise<{
  bytes: Uint8Array<ArrayBuffer>;
  rewritten: boolean;
  contentType: string;
  etag: string;
} | null> {
  const object = await env.PHOTOS.get(key);
  if (!object) return null;
  const bytes = new Uint8Array(await object.arrayBuffer());
  const contentType = object.httpMetadata?.contentType ?? "application/octet-stream";
  const type = cleanableType(bytes);
  const clean = type ? stripImageMetadata(bytes, type) : null;
  // Cleaning only ever takes bytes out: the same length is the same file.
  if (!clean || clean.byteLength === bytes.byteLength) {
    return { bytes, rewritten: false, contentType, etag: object.httpEtag };
  }
  const rewritten = await env.PHOTOS.put(key, clean, { httpMetadata: object.httpMetadata });
  return { bytes: clean, rewritten: true, contentType, etag: rewritten.httpEtag };
}

/**
 * A photo's original as served (GET /photos/{id} without `w`): without metadata. A photo stored
 * before uploads were cleaned is cleaned in R2 the first time it is served.
 */
export async function photoOriginal(
  env: Env,
  photo: { id: string; r2Key: string; size: number },
): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = (await cleanObject(env, photo.r2Key))?.bytes;
  if (!bytes) throw notFound("Photo not found.");
  if (bytes.byteLength !== photo.size) {
    await run(env.DB, sql`UPDATE photos SET size = ${bytes.byteLength} WHERE id = ${photo.id}`);
  }
  return bytes;
}

/**
 * The resumable step that cleans the photos stored before uploads were cleaned: the photos after
 * `afterId` (in id order), `limit` at a time, originals and every width kept beside them. Answers
 * how many objects it rewrote and the id to go on after (null once every photo is done); running
 * it again from any id is harmless.
 */
export async function cleanStoredPhotos(
  env: Env,
  afterId: string | null,
  limit = 50,
): Promise<{ rewritten: number; next: string | null }> {
  const rows = await all<{ id: string; r2_key: string }>(
    env.DB,
    sql`SELECT id, r2_key FROM photos WHERE id > ${afterId ?? ""} ORDER BY id LIMIT ${limit}`,
  );
  let rewritten = 0;
  for (const row of rows) {
    for (const key of [row.r2_key, ...PHOTO_WIDTHS.map((w) => variantKey(row.r2_key, w))]) {
      const cleaned = await cleanObject(env, key);
      if (!cleaned?.rewritten) continue;
      rewritten += 1;
      if (key === row.r2_key) {
        await run(
          env.DB,
          sql`UPDATE photos SET size = ${cleaned.bytes.byteLength} WHERE id = ${row.id}`,
        );
      }
    }
  }
  return { rewritten, next: rows.length === limit ? (rows.at(-1)?.id ?? null) : null };
}

/** Photos per step of the job below: each is up to 1 + PHOTO_WIDTHS.length objects read in R2. */
const PHOTOS_PER_STEP = 25;
const CLEAN_JOB = "clean_stored_photos";

/**
 * The housekeeping cron's walk through the photos stored before uploads were cleaned
 * (`cleanStoredPhotos`), a few steps per trigger (HOUSEKEEPING_BATCH: at most its batch size of
 * photos a step, its batches steps), resumed where the last trigger stopped (`job_cursors`), and
 * never again once it reached the end: every photo uploaded since is cleaned on upload.
 */
export const CLEAN_STORED_PHOTOS: Job = {
  name: CLEAN_JOB,
  async run(env, now, { batchSize, maxBatches }) {
    const state = await first<{ cursor: string | null; finished_at: string | null }>(
      env.DB,
      sql`SELECT cursor, finished_at FROM job_cursors WHERE name = ${CLEAN_JOB}`,
    );
    if (state?.finished_at) return { deleted: 0, batches: 0, done: true };
    let cursor = state?.cursor ?? null;
    let rewritten = 0;
    for (let batches = 1; batches <= maxBatches; batches++) {
      const step = await cleanStoredPhotos(env, cursor, Math.min(batchSize, PHOTOS_PER_STEP));
      rewritten += step.rewritten;
      cursor = step.next;
      const finishedAt = cursor === null ? nowIso(now) : null;
      await run(
        env.DB,
        sql`INSERT INTO job_cursors (name, cursor, finished_at, updated_at)
            VALUES (${CLEAN_JOB}, ${cursor}, ${finishedAt}, ${nowIso(now)})
            ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor,
              finished_at = excluded.finished_at, updated_at = excluded.updated_at`,
      );
      if (finishedAt) return { deleted: rewritten, batches, done: true };
    }
    return { deleted: rewritten, batches: maxBatches, done: false };
  },
};
