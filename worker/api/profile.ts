import { Hono } from "hono";
import { z } from "zod";
import { PROMPTS } from "~/schemas/prompt-catalog";
import { pageQuery } from "~/schemas/query";
import {
  deletePhoto,
  PHOTO_CACHE_CONTROL,
  PHOTO_ORDER_MESSAGE,
  photoAtWidth,
  photoKey,
  photoOriginal,
  preparePhotoWidths,
  readPhoto,
  readPhotoUpload,
  reorderPhotos,
  uploadPhotos,
} from "~/server/photos.server";
import {
  isInAppVisit,
  listProfileViewers,
  visitMember,
  VIEWERS_MAX_PER_PAGE,
  VIEWERS_PER_PAGE,
} from "~/server/profile-views.server";
import { loadProfile, updateProfile } from "~/server/profiles.server";
import { notFound, ValidationError } from "~/server/errors.server";
import { readSignedPhotoUrl } from "~/server/photo-urls.server";
import { isPhotoWidth, PHOTO_WIDTHS } from "~/lib/photos";
import { parseInput } from "~/server/validation.server";
import { currentUser, requireUser, requireVerified, verifiedUser } from "../middleware/auth";
import { wantsJson } from "../http";
import type { AppBindings } from "../types";

/**
 * docs/api.md "Profile and photos". Profile editing works before the email is verified; other
 * members' profiles, photos and the viewers list need a verified email. GET /my/profile and
 * GET /members/{username} are also pages: a browser falls through to Remix.
 */
export const profileApi = new Hono<AppBindings>();

profileApi.get("/my/profile", async (c, next) => {
  if (!wantsJson(c)) return next();
  const { user } = currentUser(c);
  return c.json({ profile: await loadProfile(c.env, user.id) });
});

/** docs/api.md "Distance, travel and prompts": the prompts a profile may answer. */
profileApi.get("/profile/prompts", requireUser, (c) =>
  c.json({ prompts: PROMPTS.map(({ id, text }) => ({ id, text })) }),
);

profileApi.put("/my/profile", requireUser, async (c) => {
  const { user } = currentUser(c);
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new ValidationError({ _: ["The request body is not valid JSON."] });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ValidationError({ _: ["The request body must be a JSON object."] });
  }
  const profile = await updateProfile(c.env, user.id, body as Record<string, unknown>);
  return c.json({ profile });
});

profileApi.post("/my/photos", requireUser, async (c) => {
  const { user } = currentUser(c);
  const files = await readPhotoUpload(c.req.raw);
  const photos = await uploadPhotos(c.env, user.id, files);
  // The new photos are the last ones.
  const added = photos.slice(-files.length).map((p) => p.id);
  await preparePhotoWidths(c.env, user.id, added);
  return c.json({ photos }, 201);
});

const orderSchema = z.object({
  ids: z.array(z.string().max(64), { error: PHOTO_ORDER_MESSAGE }).max(50, PHOTO_ORDER_MESSAGE),
});

profileApi.put("/my/photos/order", requireUser, async (c) => {
  const { user } = currentUser(c);
  const body: unknown = await c.req.json().catch(() => ({}));
  const { ids } = parseInput(orderSchema, body);
  return c.json({ photos: await reorderPhotos(c.env, user.id, ids) });
});

profileApi.delete("/my/photos/:id", requireUser, async (c) => {
  const { user } = currentUser(c);
  await deletePhoto(c.env, user.id, c.req.param("id"), new URL(c.req.url).origin);
  return c.body(null, 204);
});

/** `?w=`: one of the widths photos are also served at (app/lib/photos.ts). */
const PHOTO_WIDTH_MESSAGE = `The width must be one of ${PHOTO_WIDTHS.join(", ")}.`;

/** What every photo answer carries: shown in place, and never run as a document. */
const SERVED_PHOTO_HEADERS = {
  "Content-Disposition": "inline",
  "Content-Security-Policy": "default-src 'none'; sandbox",
};

const matchesEtag = (ifNoneMatch: string | undefined, etag: string) =>
  Boolean(ifNoneMatch && ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === etag));

/**
 * GET /photos/{id} with a signed address (app/server/photo-urls.server.ts, docs/decisions/043):
 * served before the session is read, without a database statement, from this data centre's cache
 * or streamed from R2. Mounted ahead of the session (worker/app.ts); a request without a good,
 * unexpired signature goes on to the checked route below.
 */
export const signedPhotoApi = new Hono<AppBindings>();

signedPhotoApi.get("/photos/:id", async (c, next) => {
  const url = new URL(c.req.url);
  if (!url.searchParams.has("sig")) return next();
  const now = Date.now();
  const signed = await readSignedPhotoUrl(c.env, c.req.param("id"), url.searchParams, now);
  if (!signed) return next();
  const served = await photoAtWidth(
    c.env,
    { id: signed.id, r2Key: photoKey(signed.owner, signed.id) },
    signed.width,
    { origin: url.origin, waitUntil: (p) => c.executionCtx.waitUntil(p) },
  );
  if (!served) throw notFound("Photo not found.");
  // The address is good until it expires: the browser keeps it that long, in its own cache only.
  const maxAge = Math.max(0, signed.expires - Math.floor(now / 1000));
  const headers = {
    ETag: served.etag,
    "Cache-Control": `private, max-age=${maxAge}, immutable`,
  };
  if (matchesEtag(c.req.header("If-None-Match"), served.etag)) {
    if (served.body instanceof ReadableStream) await served.body.cancel();
    return c.body(null, 304, headers);
  }
  return c.body(served.body, 200, {
    ...headers,
    ...SERVED_PHOTO_HEADERS,
    "Content-Type": served.contentType,
    "Content-Length": String(served.size),
  });
});

/**
 * GET /photos/{id} checked: the session, the photo's row and who may see it (an unsigned address,
 * a forged or expired one: old pages and direct links).
 */
profileApi.get("/photos/:id", requireUser, async (c) => {
  const { user } = currentUser(c);
  const w = c.req.query("w");
  const width = w === undefined ? null : Number(w);
  if (width !== null && !isPhotoWidth(width))
    throw new ValidationError({ w: [PHOTO_WIDTH_MESSAGE] });
  const photo = await readPhoto(c.env, user, c.req.param("id"));
  const etag = width === null ? `"${photo.etag}"` : `"${photo.etag}-w${width}"`;
  const headers = {
    ETag: etag,
    "Cache-Control": PHOTO_CACHE_CONTROL,
    Vary: "Cookie",
  };
  if (matchesEtag(c.req.header("If-None-Match"), etag)) return c.body(null, 304, headers);
  if (width !== null) {
    const served = await photoAtWidth(c.env, photo, width, {
      origin: new URL(c.req.url).origin,
      waitUntil: (p) => c.executionCtx.waitUntil(p),
    });
    if (!served) throw notFound("Photo not found.");
    return c.body(served.body, 200, {
      ...headers,
      ...SERVED_PHOTO_HEADERS,
      "Content-Type": served.contentType,
      "Content-Length": String(served.size),
    });
  }
  // The original, without metadata (a photo stored before uploads were cleaned is cleaned now).
  const original = await photoOriginal(c.env, photo);
  return c.body(original, 200, {
    ...headers,
    ...SERVED_PHOTO_HEADERS,
    "Content-Type": photo.contentType,
    "Content-Length": String(original.byteLength),
  });
});

profileApi.get("/members/:username", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  const member = await visitMember(c.env, user.id, c.req.param("username"), {
    recordView: isInAppVisit(c.req.raw, true),
  });
  return c.json({ member });
});

const viewersQuery = pageQuery(VIEWERS_PER_PAGE, VIEWERS_MAX_PER_PAGE);

profileApi.get("/my/profile-viewers", requireVerified, async (c) => {
  const { user } = currentUser(c);
  const query = viewersQuery.parse({
    page: c.req.query("page") ?? 1,
    per_page: c.req.query("per_page") ?? VIEWERS_PER_PAGE,
  });
  return c.json(
    await listProfileViewers(c.env, user.id, { page: query.page, perPage: query.per_page }),
  );
});
