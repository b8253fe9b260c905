import { Hono } from "hono";
import { purchaseCreditsSchema } from "~/schemas/credits";
import { pageParam } from "~/schemas/query";
import {
  cancelSubscriptionSchema,
  changePlanSchema,
  subscribeSchema,
} from "~/schemas/subscription";
import { billingPortal, listPayments } from "~/server/billing.server";
import { creditStatus, listPacks, purchaseCredits } from "~/server/credits.server";
import { safeRedirect } from "~/server/guards.server";
import { siteUrl } from "~/server/payments.server";
import { handleStripeWebhook } from "~/server/stripe-webhooks.server";
import { count } from "~/server/metrics.server";
import { changePlan } from "~/server/plan-changes.server";
import { cancelSubscription, subscribe, subscriptionStatus } from "~/server/subscriptions.server";
import { parseInput, readBody } from "~/server/validation.server";
import { wantsJson } from "../http";
import { currentUser, requireVerified, verifiedUser } from "../middleware/auth";
import type { AppBindings } from "../types";

/**
 * docs/api.md "Credits" and "Subscriptions and payments", and Stripe's webhook. Everything but the
 * webhook needs a signed-in member with a verified email. The webhook carries no session and no
 * CSRF token: it is signed by Stripe, and checked on the raw body.
 */
export const moneyApi = new Hono<AppBindings>();

moneyApi.get("/my/credits/status", requireVerified, async (c) => {
  const { user } = currentUser(c);
  return c.json(await creditStatus(c.env, user.id));
});

moneyApi.get("/my/credits/packs", requireVerified, async (c) => {
  return c.json({ creditPacks: await listPacks(c.env) });
});

moneyApi.post("/my/credits/purchase", requireVerified, async (c) => {
  const { user } = currentUser(c);
  const input = parseInput(purchaseCreditsSchema, await readBody(c.req.raw));
  const back = safeRedirect(input.return_to, "");
  const query = back ? `?return_to=${encodeURIComponent(back)}` : "";
  const { payment_id, ...result } = await purchaseCredits(c.env, user, input.pack_id, {
    success: siteUrl(c.req.raw, `/my/credits/success${query}`),
    cancel: siteUrl(c.req.raw, `/my/credits/cancel${query}`),
  });
  return c.json({ ...result, payment_id });
});

moneyApi.get("/my/subscription/status", requireVerified, async (c) => {
  const { user } = currentUser(c);
  return c.json(await subscriptionStatus(c.env, user.id));
});

// The subscription page's own form posts to the same path: JSON only when asked for.
moneyApi.post("/my/subscription", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  const input = parseInput(subscribeSchema, await readBody(c.req.raw));
  const result = await subscribe(c.env, user, input, {
    success: siteUrl(c.req.raw, "/my/subscription/success"),
    cancel: siteUrl(c.req.raw, "/my/subscription/cancel"),
  });
  return "subscription" in result ? c.json(result, 201) : c.json(result, 200);
});

// In place, prorated (with Stripe, the row follows its webhook; the answer is what Stripe answered).
moneyApi.put("/my/subscription", requireVerified, async (c) => {
  const { user } = currentUser(c);
  const input = parseInput(changePlanSchema, await readBody(c.req.raw));
  return c.json({ subscription: await changePlan(c.env, user.id, input) });
});

moneyApi.delete("/my/subscription", requireVerified, async (c) => {
  const { user } = currentUser(c);
  const { reason } = parseInput(cancelSubscriptionSchema, await readBody(c.req.raw));
  return c.json({ subscription: await cancelSubscription(c.env, user.id, reason) });
});

// The receipts page lives at the same path: JSON only when asked for (worker/http.ts).
moneyApi.get("/my/payments", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  const page = pageParam.parse(c.req.query("page") ?? 1);
  return c.json(await listPayments(c.env, user.id, { page }));
});

moneyApi.post("/my/billing/portal", requireVerified, async (c) => {
  const { user } = currentUser(c);
  return c.json(await billingPortal(c.env, user.id, siteUrl(c.req.raw, "/my/payments")));
});

moneyApi.post("/webhooks/stripe", async (c) => {
  const raw = await c.req.text();
  try {
    return c.json(await handleStripeWebhook(c.env, raw, c.req.header("Stripe-Signature")));
  } catch (error) {
    // Stripe retries what failed; a run of these is an alert (docs/runbook.md).
    count(c.env, "webhook_failed");
    throw error;
  }
});
