import { sql } from "drizzle-orm";
import type Stripe from "stripe";
import { reverseCredits, restoreDisputedCredits } from "./credits.server";
import { recordActivity } from "./activities.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { refOf } from "./payments.server";
import { first, run } from "./sql.server";
import { APPLIED, endSubscriptionNow, ignored, type EventResult } from "./subscriptions.server";

/**
 * Refunds and disputes (Stripe's `charge.refunded`, `charge.dispute.created`,
 * `charge.dispute.closed`): what the payment bought is taken back. A credit payment's credits go
 * through the ledger (app/server/credits.server.ts `reverseCredits`: never below zero, what was
 * spent is owed and taken from the next purchase); a subscription's perks end and Stripe bills it
 * no more. The account itself stays usable: a member who disputes a charge is not locked out.
 *
 * Each is applied once and in any order: refunds are cumulative (Stripe's `amount_refunded`), a
 * reversal only ever raises a payment's `credits_reversed` to a target, and a dispute moves
 * through `dispute_status` (none → open → won/lost) by conditional updates, a close that arrives
 * before its open included.
 */

interface PaymentOfCharge {
  id: string;
  user_id: string;
  kind: "credits" | "subscription";
  credits: number | null;
  amount_cents: number;
  subscription_ref: string | null;
  dispute_status: "open" | "won" | "lost" | null;
}

/** Our payment a charge paid: by its PaymentIntent or charge id, or our id in its metadata. */
async function paymentOf(
  env: Env,
  ids: { paymentIntent: string | null; charge: string | null; paymentId: string | null },
) {
  return first<PaymentOfCharge>(
    env.DB,
    sql`SELECT id, user_id, kind, credits, amount_cents, subscription_ref, dispute_status FROM payments
     WHERE provider = 'stripe' AND (charge_ref = ${ids.paymentIntent} OR charge_ref = ${ids.charge}
       OR id = ${ids.paymentId})
     ORDER BY created_at LIMIT 1`,
  );
}

/** A renewal's charge has no payment row: the customer's subscription is the one it paid. */
async function subscriptionOfCustomer(env: Env, customer: string | null) {
  if (!customer) return null;
  const row = await first<{ provider_ref: string }>(
    env.DB,
    sql`SELECT provider_ref FROM subscriptions WHERE customer_ref = ${customer} AND provider = 'stripe'
       AND provider_ref IS NOT NULL ORDER BY updated_at DESC LIMIT 1`,
  );
  return row?.provider_ref ?? null;
}

/** The share of a payment's credits that `cents` of its price stands for, rounded up. */
const creditsFor = (payment: PaymentOfCharge, cents: number) =>
  payment.credits
    ? Math.min(
        payment.credits,
        Math.ceil((payment.credits * Math.min(cents, payment.amount_cents)) / payment.amount_cents),
      )
    : 0;

/** charge.refunded: full or partial (cumulative). */
export async function applyRefund(env: Env, charge: Stripe.Charge): Promise<EventResult> {
  const payment = await paymentOf(env, {
    paymentIntent: refOf(charge.payment_intent),
    charge: charge.id,
    paymentId: charge.metadata?.payment_id ?? null,
  });
  const refunded = charge.amount_refunded ?? 0;
  const full = charge.refunded === true || (charge.amount > 0 && refunded >= charge.amount);
  if (!payment) {
    const subscription = await subscriptionOfCustomer(env, refOf(charge.customer));
    if (
      subscription &&
      full &&
      (await endSubscriptionNow(env, { providerRef: subscription }, "refunded"))
    ) {
      return APPLIED;
    }
    return ignored("refund of a charge we hold no payment for");
  }
  await run(
    env.DB,
    sql`UPDATE payments SET refunded_cents = max(refunded_cents, ${Math.min(refunded, payment.amount_cents)}),
       receipt_url = coalesce(receipt_url, ${charge.receipt_url ?? null})
     WHERE id = ${payment.id}`,
  );
  if (payment.kind === "credits") {
    const target = full ? (payment.credits ?? 0) : creditsFor(payment, refunded);
    if (target > 0) await reverseCredits(env, payment.id, target, "refund");
  } else if (full && payment.subscription_ref) {
    await endSubscriptionNow(env, { providerRef: payment.subscription_ref }, "refunded");
  }
  return APPLIED;
}

function disputeIds(dispute: Stripe.Dispute) {
  return {
    paymentIntent: refOf(dispute.payment_intent),
    charge: refOf(dispute.charge),
    paymentId: dispute.metadata?.payment_id ?? null,
  };
}

/** What a dispute takes back: the disputed share of the payment's credits, or its subscription. */
async function takeBackDisputed(env: Env, payment: PaymentOfCharge, dispute: Stripe.Dispute) {
  if (payment.kind === "credits") {
    const target = creditsFor(payment, dispute.amount || payment.amount_cents);
    if (target > 0) await reverseCredits(env, payment.id, target, "dispute");
  } else if (payment.subscription_ref) {
    await endSubscriptionNow(env, { providerRef: payment.subscription_ref }, "disputed");
  }
}

/** charge.dispute.created: the money is held by the bank; what it bought is taken back now. */
export async function applyDisputeOpened(env: Env, dispute: Stripe.Dispute): Promise<EventResult> {
  const payment = await paymentOf(env, disputeIds(dispute));
  if (!payment) return ignored("dispute of a charge we hold no payment for");
  if (payment.dispute_status === "won") return ignored("dispute already closed in our favour");
  await takeBackDisputed(env, payment, dispute);
  await run(
    env.DB,
    sql`UPDATE payments SET dispute_status = 'open' WHERE id = ${payment.id} AND dispute_status IS NULL`,
  );
  return APPLIED;
}

/**
 * charge.dispute.closed: lost, the credits stay taken back (taken now if the opening event never
 * came); won (or an inquiry closed), the credits come back. A close before its open marks the
 * payment so that the late open changes nothing.
 */
export async function applyDisputeClosed(env: Env, dispute: Stripe.Dispute): Promise<EventResult> {
  const payment = await paymentOf(env, disputeIds(dispute));
  if (!payment) return ignored("dispute of a charge we hold no payment for");
  if (dispute.status === "lost") {
    await takeBackDisputed(env, payment, dispute);
    await run(
      env.DB,
      sql`UPDATE payments SET dispute_status = 'lost' WHERE id = ${payment.id}
       AND (dispute_status IS NULL OR dispute_status = 'open')`,
    );
    return APPLIED;
  }
  if (payment.kind === "subscription" && payment.subscription_ref) {
    await restoreDisputedSubscription(env, payment.user_id, payment.subscription_ref);
  }
  await restoreDisputedCredits(env, payment.id);
  return APPLIED;
}

/**
 * A dispute closed in our favour: the charge stands, so the member gets back the period the
 * dispute cut short, as a subscription set to end with it (Stripe's was cancelled when the dispute
 * opened and bills nothing more; they may subscribe again). Only the subscription that dispute
 * ended, while nothing replaced it and the period has not run out meanwhile; once.
 */
async function restoreDisputedSubscription(env: Env, userId: string, subscriptionRef: string) {
  const at = nowIso();
  const restored = await first<{ plan: string }>(
    env.DB,
    sql`UPDATE subscriptions SET status = 'cancelled', current_period_end = interrupted_period_end,
       interrupted_period_end = NULL, cancel_reason = 'dispute won: ends with its period',
       updated_at = ${at}
     WHERE user_id = ${userId} AND provider_ref = ${subscriptionRef} AND status = 'expired'
       AND cancel_reason = 'account disputed' AND interrupted_period_end > ${at}
     RETURNING (SELECT name FROM plans WHERE id = plan_id) AS plan`,
  );
  if (restored) {
    await recordActivity(env, {
      userId,
      type: "subscription_changed",
      data: { plan: restored.plan, status: "cancelled", reason: "dispute_won" },
    });
  }
}
