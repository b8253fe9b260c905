import { sql } from "drizzle-orm";
import type Stripe from "stripe";
import { completeStripeCreditPayment } from "./credits.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { HttpError } from "./errors.server";
import { verifyStripeEvent } from "./payments.server";
import {
  applyStripeSubscription,
  completeStripeSubscriptionCheckout,
  markStripeSubscriptionPastDue,
} from "./subscriptions.server";
import { first, run } from "./sql.server";

export const BAD_SIGNATURE = "Invalid signature.";

/**
 * POST /webhooks/stripe: the event is verified on the raw body (400 when the signature is missing
 * or wrong), applied, then its id stored. An event whose id is stored is not applied again; each
 * effect is also idempotent on its own (the ledger's unique payment reference, the subscription's
 * newest-event time), so a retry after a failure half-way, or events out of order, change nothing
 * twice.
 */
export async function handleStripeWebhook(
  env: Env,
  rawBody: string,
  signature: string | null | undefined,
): Promise<{ received: true; duplicate: boolean }> {
  const event = await verifyStripeEvent(env, rawBody, signature);
  if (!event) throw new HttpError(400, BAD_SIGNATURE);
  const seen = await first(env.DB, sql`SELECT 1 AS x FROM stripe_events WHERE id = ${event.id}`);
  if (seen) return { received: true, duplicate: true };
  await applyEvent(env, event);
  await run(
    env.DB,
    sql`INSERT INTO stripe_events (id, type, received_at) VALUES (${event.id}, ${event.type}, ${nowIso()}) ON CONFLICT DO NOTHING`,
  );
  return { received: true, duplicate: false };
}

async function applyEvent(env: Env, event: Stripe.Event): Promise<void> {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const session = event.data.object;
      if (session.mode === "payment") {
        // Delayed payment methods complete the session before the money is in.
        if (session.payment_status !== "paid") return;
        await completeStripeCreditPayment(env, session.id, session.metadata?.payment_id);
      } else if (session.mode === "subscription") {
        await completeStripeSubscriptionCheckout(env, session, event.created);
      }
      return;
    }
    case "customer.subscription.created":
    case "customer.subscription.updated":
      await applyStripeSubscription(env, event.data.object, event.created);
      return;
    case "customer.subscription.deleted":
      await applyStripeSubscription(env, event.data.object, event.created, true);
      return;
    case "invoice.payment_failed": {
      const invoice = event.data.object;
      const ref = invoice.parent?.subscription_details?.subscription;
      const id = typeof ref === "string" ? ref : ref?.id;
      if (id) await markStripeSubscriptionPastDue(env, id, event.created);
      return;
    }
    default:
      // Other events are acknowledged and ignored.
      return;
  }
}
