import { Hono } from "hono";
import { z } from "zod";
import { PROMPTS } from "~/schemas/prompt-catalog";
import { pageQuery } from "~/schemas/query";
import {
  deletePhoto,
  PHOTO_CACHE_CONTROL,
  PHOTO_ORDER_MESSAGE,
  photoOriginal,
  photoVariant,
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
import { ValidationError } from "~/server/errors.server";
import { logFailure } from "~/server/log.server";
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
  await deletePhoto(c.env, user.id, c.req.param("id"));
  return c.body(null, 204);
});

/** `?w=`: one of the widths photos are also served at (app/lib/photos.ts). */
const PHOTO_WIDTH_MESSAGE = `The width must be one of ${PHOTO_WIDTHS.join(", ")}.`;

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
  const ifNoneMatch = c.req.header("If-None-Match");
  if (ifNoneMatch && ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) {
    return c.body(null, 304, headers);
  }
  const served = {
    "Content-Disposition": "inline",
    "Content-Security-Policy": "default-src 'none'; sandbox",
  };
  // A photo the Images binding cannot make smaller is served as it is.
  const variant =
    width === null
      ? null
      : await photoVariant(c.env, photo, width).catch((error: unknown) => {
          logFailure("photo_width", error, { photo: photo.id, width });
          return null;
        });
  if (variant) {
    return c.body(variant.bytes, 200, {
      ...headers,
      ...served,
      "Content-Type": variant.contentType,
      "Content-Length": String(variant.bytes.byteLength),
    });
  }
  // The original, without metadata (a photo stored before uploads were cleaned is cleaned now).
  const original = await photoOriginal(c.env, photo);
  return c.body(original, 200, {
    ...headers,
    ...served,
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
