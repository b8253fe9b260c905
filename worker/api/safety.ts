import { Hono } from "hono";
import { pageParam } from "~/schemas/query";
import { reportSchema } from "~/schemas/report";
import {
  ACCOUNT_DELETED_MESSAGE,
  deleteAccount,
  exportAccount,
  exportFileName,
} from "~/server/account.server";
import {
  dismissReport,
  listOpenReports,
  reportMember,
  requireModerator,
  suspendMember,
} from "~/server/reports.server";
import {
  listEvidence,
  reportConversation,
  reportPhotoObject,
  reportPhotos,
} from "~/server/evidence.server";
import { clearReview, listReviews } from "~/server/returning.server";
import { parseInput, readBody } from "~/server/validation.server";
import { signOut } from "~/server/web-auth.server";
import {
  currentUser,
  requirePasswordConfirmed,
  requireUser,
  requireVerified,
} from "../middleware/auth";
import type { AppBindings } from "../types";

/**
 * Safety beyond blocking: reports, the moderators' API, and a member's own data (export and
 * account deletion). The /moderation and /settings/account pages are Remix routes.
 */
export const safetyApi = new Hono<AppBindings>();

safetyApi.post("/reports", requireVerified, async (c) => {
  const { user } = currentUser(c);
  const input = parseInput(reportSchema, await readBody(c.req.raw));
  return c.json(await reportMember(c.env, user.id, input), 201);
});

safetyApi.get("/moderation/reports", requireUser, async (c) => {
  requireModerator(currentUser(c).user);
  const page = pageParam.parse(c.req.query("page") ?? 1);
  return c.json(await listOpenReports(c.env, page));
});

/** What is kept of reports against members who deleted their account (evidence.server.ts). */
safetyApi.get("/moderation/evidence", requireUser, async (c) => {
  requireModerator(currentUser(c).user);
  const page = pageParam.parse(c.req.query("page") ?? 1);
  return c.json(await listEvidence(c.env, page));
});

/** Accounts registered with the address of a member deleted after reports or suspended. */
safetyApi.get("/moderation/reviews", requireUser, async (c) => {
  requireModerator(currentUser(c).user);
  return c.json({ reviews: await listReviews(c.env) });
});

safetyApi.post("/moderation/reviews/:id/clear", requireUser, async (c) => {
  requireModerator(currentUser(c).user);
  return c.json(await clearReview(c.env, c.req.param("id")));
});

/** The conversation of a report's two members, as its room holds it, an ended one too. */
safetyApi.get("/moderation/reports/:id/conversation", requireUser, async (c) => {
  requireModerator(currentUser(c).user);
  return c.json(await reportConversation(c.env, c.req.param("id")));
});

/** The reported member's photos as they stood at the report, kept for moderators (ADR 049). */
safetyApi.get("/moderation/reports/:id/photos", requireUser, async (c) => {
  requireModerator(currentUser(c).user);
  return c.json(await reportPhotos(c.env, c.req.param("id")));
});

/** One kept photo's bytes, for moderators only, never cached. */
safetyApi.get("/moderation/reports/:id/photos/:photoId", requireUser, async (c) => {
  requireModerator(currentUser(c).user);
  const object = await reportPhotoObject(c.env, c.req.param("id"), c.req.param("photoId"));
  return c.body(object.body, 200, {
    "Content-Type": object.httpMetadata?.contentType ?? "application/octet-stream",
    "Content-Length": String(object.size),
    "Cache-Control": "private, no-store",
    "Content-Disposition": "inline",
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "X-Content-Type-Options": "nosniff",
  });
});

safetyApi.post("/moderation/reports/:id/dismiss", requireUser, async (c) => {
  const moderator = requireModerator(currentUser(c).user);
  return c.json(await dismissReport(c.env, moderator, c.req.param("id")));
});

safetyApi.post("/moderation/members/:id/suspend", requireUser, async (c) => {
  const moderator = requireModerator(currentUser(c).user);
  return c.json(await suspendMember(c.env, moderator, c.req.param("id")));
});

/** A download of everything stored about the member (also before the email is verified). */
safetyApi.get("/my/export", requireUser, async (c) => {
  const { user } = currentUser(c);
  const data = await exportAccount(c.env, user.id);
  return c.body(JSON.stringify(data, null, 2), 200, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Disposition": `attachment; filename="${exportFileName(user.username)}"`,
    "Cache-Control": "private, no-store",
  });
});

/** Deletes the account for good; needs a password confirmation younger than 3 hours (423). */
safetyApi.delete("/my/account", requireUser, requirePasswordConfirmed, async (c) => {
  const { user } = currentUser(c);
  await deleteAccount(c.env, user.id, new URL(c.req.url).origin);
  await signOut(c.get("rc"));
  return c.json({ message: ACCOUNT_DELETED_MESSAGE });
});
