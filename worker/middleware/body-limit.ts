import { createMiddleware } from "hono/factory";
import { HttpError } from "~/server/errors.server";
import { readBytesCapped } from "~/server/validation.server";
import type { AppBindings } from "../types";

/** The largest JSON or form body any endpoint reads (a bio of 2,000 characters is ~8 KB). */
export const MAX_BODY_BYTES = 64 * 1024;
export const BODY_TOO_LARGE = `The request body may not be larger than ${MAX_BODY_BYTES / 1024} KB.`;

/**
 * Uploads read their own, larger cap: profile photos (app/server/photos.server.ts) and a chat's
 * photos and voice notes (app/server/chat-attachments.server.ts).
 */
const isUpload = (path: string) =>
  path === "/my/photos" || /^\/chat\/conversations\/[^/]+\/attachments$/.test(path);

/**
 * Refuses a body past the limit with 413 before anything reads it (the CSRF check reads a form's
 * `_csrf` field): at once when Content-Length says so, otherwise while reading it, so a 20 MB
 * body is never buffered or parsed. A body within the limit is handed on as it came (with a
 * Content-Length) or as read (streamed without one).
 */
export const bodyLimit = createMiddleware<AppBindings>(async (c, next) => {
  const request = c.req.raw;
  if (!request.body || request.method === "GET" || request.method === "HEAD") return next();
  if (request.method === "POST" && isUpload(c.req.path)) return next();
  // A body of a declared length ends there (the HTTP layer delimits it by Content-Length): one
  // within the limit goes on as it came, neither buffered here nor copied into a new Request.
  const declared = request.headers.get("Content-Length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) <= MAX_BODY_BYTES) {
    return next();
  }
  const body = await readBytesCapped(request, MAX_BODY_BYTES);
  if (!body) throw tooLarge();
  c.req.raw = new Request(request, { body });
  return next();
});

const tooLarge = () => new HttpError(413, BODY_TOO_LARGE);
