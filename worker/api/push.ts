import { Hono } from "hono";
import { pushSubscriptionSchema, pushUnsubscribeSchema } from "~/schemas/push";
import {
  deletePushSubscription,
  localPushServicesAllowed,
  savePushSubscription,
  sendTestPush,
  vapidPublicKey,
} from "~/server/push.server";
import { memberOfUnsubscribeToken, unsubscribeFromDigest } from "~/server/digest.server";
import { parseInput, readBody } from "~/server/validation.server";
import { currentUser, requireUser } from "../middleware/auth";
import type { AppBindings } from "../types";

/** docs/api.md "Away from the app": the member's browsers that allowed pushes (web push). */
export const pushApi = new Hono<AppBindings>();

pushApi.get("/my/push/key", requireUser, (c) => c.json({ public_key: vapidPublicKey(c.env) }));

pushApi.post("/my/push/subscriptions", requireUser, async (c) => {
  const { user, session } = currentUser(c);
  const schema = pushSubscriptionSchema({ allowLocalHttp: localPushServicesAllowed(c.env) });
  const input = parseInput(schema, await readBody(c.req.raw));
  const { id, created } = await savePushSubscription(c.env, user.id, input, session.idHash);
  return c.json({ id }, created ? 201 : 200);
});

pushApi.delete("/my/push/subscriptions", requireUser, async (c) => {
  const { user } = currentUser(c);
  const { endpoint } = parseInput(pushUnsubscribeSchema, await readBody(c.req.raw));
  await deletePushSubscription(c.env, user.id, endpoint);
  return c.body(null, 204);
});

/** Accepted at once; the pushes leave after the answer (a slow push service delays nothing). */
pushApi.post("/my/push/test", requireUser, async (c) => {
  const { user } = currentUser(c);
  vapidPublicKey(c.env); // 503 where push is not configured, rather than a silent 202
  c.executionCtx.waitUntil(sendTestPush(c.env, user.id));
  return c.body(null, 202);
});

/**
 * The unsubscribe link of a digest email, POSTed (docs/decisions/034): by a mail client's
 * one-click (RFC 8058, body `List-Unsubscribe=One-Click`: 200) or by the link's page (its form
 * sends `page=1`: 303 back to the page, which then says it is done). No session and no CSRF token:
 * the signed token authorises it. A token not ours is 400 and changes nothing.
 */
pushApi.post("/email/unsubscribe", async (c) => {
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const token = c.req.query("token") ?? (typeof form.token === "string" ? form.token : "");
  const userId = await memberOfUnsubscribeToken(c.env, token);
  c.header("Cache-Control", "private, no-store");
  c.header("Referrer-Policy", "no-referrer");
  if (userId) await unsubscribeFromDigest(c.env, userId);
  if (form.page === "1") {
    const back = `/email/unsubscribe?token=${encodeURIComponent(token)}${userId ? "&done=1" : ""}`;
    return c.redirect(back, 303);
  }
  return userId
    ? c.json({ message: "Unsubscribed: no more digest emails." }, 200)
    : c.json({ message: "This unsubscribe link is not valid." }, 400);
});
