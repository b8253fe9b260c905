import { Hono, type Context } from "hono";
import { appealSchema, rejectVerificationSchema } from "~/schemas/verification";
import {
  appellantOf,
  denyAppeal,
  grantAppeal,
  listOpenAppeals,
  standingOf,
  submitAppeal,
} from "~/server/appeals.server";
import { unauthenticated } from "~/server/errors.server";
import { requireModerator } from "~/server/reports.server";
import { parseInput, readBody } from "~/server/validation.server";
import {
  approveVerification,
  listPendingVerifications,
  pendingSelfie,
  readSelfieUpload,
  rejectVerification,
  submitSelfie,
  verificationOf,
} from "~/server/verification.server";
import { currentUser, requireUser, verifiedUser } from "../middleware/auth";
import { wantsJson } from "../http";
import type { AppBindings } from "../types";

/**
 * Photo verification and appeals (API.md "Unmatch, verification, appeals and message safety",
 * docs/decisions/042). /my/verification and /my/appeal are pages too: a browser's request falls
 * through to them.
 */
export const verificationApi = new Hono<AppBindings>();

/** The app's address the request came to (the links of the emails a decision sends). */
const originOf = (c: Context<AppBindings>) => new URL(c.req.url).origin;

verificationApi.get("/my/verification", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  return c.json(await verificationOf(c.env, user.id));
});

verificationApi.post("/my/verification", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  return c.json(await submitSelfie(c.env, user.id, await readSelfieUpload(c.req.raw)), 202);
});

verificationApi.get("/moderation/verifications", requireUser, async (c) => {
  requireModerator(currentUser(c).user);
  return c.json({ verifications: await listPendingVerifications(c.env) });
});

/** A waiting selfie, for moderators only, never cached; gone once decided. */
verificationApi.get("/moderation/verifications/:id/selfie", requireUser, async (c) => {
  requireModerator(currentUser(c).user);
  const object = await pendingSelfie(c.env, c.req.param("id"));
  return c.body(object.body, 200, {
    "Content-Type": object.httpMetadata?.contentType ?? "application/octet-stream",
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
  });
});

verificationApi.post("/moderation/verifications/:id/approve", requireUser, async (c) => {
  const moderator = requireModerator(currentUser(c).user);
  return c.json(await approveVerification(c.env, moderator, c.req.param("id"), originOf(c)));
});

verificationApi.post("/moderation/verifications/:id/reject", requireUser, async (c) => {
  const moderator = requireModerator(currentUser(c).user);
  const { reason } = parseInput(rejectVerificationSchema, await readBody(c.req.raw));
  return c.json(await rejectVerification(c.env, moderator, c.req.param("id"), reason, originOf(c)));
});

/** The signed-in member, or a suspended member through their appeal cookie (401 otherwise). */
async function appellant(c: Context<AppBindings>) {
  const id = await appellantOf(c.env, c.req.raw, c.get("rc").user);
  if (!id) throw unauthenticated();
  return id;
}

verificationApi.get("/my/appeal", async (c, next) => {
  if (!wantsJson(c)) return next();
  return c.json(await standingOf(c.env, await appellant(c)));
});

verificationApi.post("/my/appeal", async (c, next) => {
  if (!wantsJson(c)) return next();
  const id = await appellant(c);
  const input = parseInput(appealSchema, await readBody(c.req.raw));
  return c.json(await submitAppeal(c.env, id, input), 201);
});

verificationApi.get("/moderation/appeals", requireUser, async (c) => {
  requireModerator(currentUser(c).user);
  return c.json({ appeals: await listOpenAppeals(c.env) });
});

verificationApi.post("/moderation/appeals/:id/grant", requireUser, async (c) => {
  const moderator = requireModerator(currentUser(c).user);
  return c.json(await grantAppeal(c.env, moderator, c.req.param("id"), originOf(c)));
});

verificationApi.post("/moderation/appeals/:id/deny", requireUser, async (c) => {
  const moderator = requireModerator(currentUser(c).user);
  return c.json(await denyAppeal(c.env, moderator, c.req.param("id"), originOf(c)));
});
