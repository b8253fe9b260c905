import { Hono } from "hono";
import { pushSubscriptionSchema, pushUnsubscribeSchema } from "~/schemas/push";
import {
  deletePushSubscription,
  localPushServicesAllowed,
  savePushSubscription,
  sendTestPush,
  vapidPublicKey,
} from "~/server/push.server";
import { parseInput, readBody } from "~/server/validation.server";
import { currentUser, requireUser } from "../middleware/auth";
import type { AppBindings } from "../types";

/** docs/api.md "Away from the app": the member's browsers that allowed pushes (web push). */
export const pushApi = new Hono<AppBindings>();

pushApi.get("/my/push/key", requireUser, (c) => c.json({ public_key: vapidPublicKey(c.env) }));

pushApi.post("/my/push/subscriptions", requireUser, async (c) => {
  const { user } = currentUser(c);
  const schema = pushSubscriptionSchema({ allowLocalHttp: localPushServicesAllowed(c.env) });
  const input = parseInput(schema, await readBody(c.req.raw));
  const { id, created } = await savePushSubscription(c.env, user.id, input);
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
