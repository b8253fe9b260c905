import { sql } from "drizzle-orm";
import type Stripe from "stripe";
import { recordStripeInvoicePaid } from "./billing.server";
import { completeStripeCreditPayment } from "./credits.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { HttpError } from "./errors.server";
import { refOf, verifyStripeEvent } from "./payments.server";
import { applyDisputeClosed, applyDisputeOpened, applyRefund } from "./refunds.server";
import {
  APPLIED,
  applyStripeSubscription,
  completeStripeSubscriptionCheckout,
  ignored,
  markStripeSubscriptionPastDue,
  type EventResult,
} from "./subscriptions.server";
import { first, run } from "./sql.server";

export const BAD_SIGNATURE = "Invalid signature.";

/** A claim older than this whose request never finished (the isolate died) may be taken again. */
const CLAIM_LEASE_MS = 5 * 60_000;

/**
 * POST /webhooks/stripe: the event is verified on the raw body (400 when the signature is missing
 * or wrong), then claimed by inserting its id into `stripe_events`: the primary key refuses every
 * other copy, however many arrive at once, so one request applies it and the others answer
 * `duplicate`. Its outcome is recorded: applied, or ignored with why (an empty or unexpected
 * object, an unknown or deleted member, an event we do not handle): those answer 200 too, since
 * Stripe retrying them would change nothing. Only a failure of ours (D1, Stripe unreachable)
 * answers 5xx; the event is then marked failed and Stripe's retry may claim it again. Each effect
 * is also idempotent on its own (the ledger's unique references, the subscription's newest-event
 * time, conditional status moves), so a retry after a failure half-way changes nothing twice.
 */
export async function handleStripeWebhook(
  env: Env,
  rawBody: string,
  signature: string | null | undefined,
): Promise<{ received: true; duplicate: boolean }> {
  const event = await verifyStripeEvent(env, rawBody, signature);
  if (!event) throw new HttpError(400, BAD_SIGNATURE);
  const object = objectOf(event);
  const at = nowIso();
  const claimed = await first(
    env.DB,
    sql`INSERT INTO stripe_events (id, type, received_at, outcome, object_id, claimed_at)
     VALUES (${event.id}, ${String(event.type)}, ${at}, 'processing', ${object?.id ?? null}, ${at})
     ON CONFLICT (id) DO UPDATE SET outcome = 'processing', claimed_at = ${at}, note = NULL
     WHERE stripe_events.outcome = 'failed'
        OR stripe_events.outcome = 'processing' AND stripe_events.claimed_at < ${nowIso(Date.now() - CLAIM_LEASE_MS)}
     RETURNING id`,
  );
  if (!claimed) return { received: true, duplicate: true };
  let result: EventResult;
  try {
    result = object ? await applyEvent(env, event) : ignored("empty or malformed object");
  } catch (error) {
    await run(
      env.DB,
      sql`UPDATE stripe_events SET outcome = 'failed', note = ${String(error instanceof Error ? error.message : error).slice(0, 500)}
       WHERE id = ${event.id}`,
    ).catch(() => undefined);
    throw error;
  }
  await run(
    env.DB,
    sql`UPDATE stripe_events SET outcome = ${result.outcome}, note = ${"note" in result ? result.note : null}
     WHERE id = ${event.id}`,
  );
  return { received: true, duplicate: false };
}

/** The event's object when it is one with an id; null for an empty or malformed event. */
function objectOf(event: Stripe.Event): { id: string; object?: unknown } | null {
  const object: unknown = (event as { data?: { object?: unknown } }).data?.object;
  if (!object || typeof object !== "object") return null;
  const id = (object as { id?: unknown }).id;
  return typeof id === "string" && id ? (object as { id: string }) : null;
}

/** Whether the object is the kind the event type carries (a signed event may still be odd). */
const isKind = (event: Stripe.Event, kind: string) =>
  (event.data.object as { object?: unknown }).object === kind;

async function applyEvent(env: Env, event: Stripe.Event): Promise<EventResult> {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      if (!isKind(event, "checkout.session")) return ignored("not a checkout session");
      const session = event.data.object;
      if (session.mode === "payment") {
        // Delayed payment methods complete the session before the money is in.
        if (session.payment_status !== "paid") return ignored("payment not in yet");
        const done = await completeStripeCreditPayment(
          env,
          session.id,
          session.metadata?.payment_id,
          { chargeRef: refOf(session.payment_intent), customerRef: refOf(session.customer) },
        );
        if (done === "refunded") return ignored("account deleted: the payment refunded");
        return done === "applied" ? APPLIED : ignored("unknown checkout session");
      }
      if (session.mode === "subscription") {
        return completeStripeSubscriptionCheckout(env, session, event.created);
      }
      return ignored("checkout session of an unknown mode");
    }
    case "customer.subscription.created":
    case "customer.subscription.updated":
      if (!isKind(event, "subscription")) return ignored("not a subscription");
      return applyStripeSubscription(env, event.data.object, event.created);
    case "customer.subscription.deleted":
      if (!isKind(event, "subscription")) return ignored("not a subscription");
      return applyStripeSubscription(env, event.data.object, event.created, true);
    case "invoice.paid":
      if (!isKind(event, "invoice")) return ignored("not an invoice");
      return recordStripeInvoicePaid(env, event.data.object, event.created);
    case "invoice.payment_failed": {
      if (!isKind(event, "invoice")) return ignored("not an invoice");
      const invoice = event.data.object;
      const id = refOf(invoice.parent?.subscription_details?.subscription);
      if (!id) return ignored("invoice of no subscription");
      return markStripeSubscriptionPastDue(env, id, event.created);
    }
    case "charge.refunded":
      if (!isKind(event, "charge")) return ignored("not a charge");
      return applyRefund(env, event.data.object);
    case "charge.dispute.created":
      if (!isKind(event, "dispute")) return ignored("not a dispute");
      return applyDisputeOpened(env, event.data.object);
    case "charge.dispute.closed":
      if (!isKind(event, "dispute")) return ignored("not a dispute");
      return applyDisputeClosed(env, event.data.object);
    default:
      return ignored("event type not handled");
  }
}
