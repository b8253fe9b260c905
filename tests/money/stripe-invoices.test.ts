import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { memberPerks } from "~/server/subscriptions.server";
import {
  deliver,
  disputeEvent,
  eventId,
  verifiedMember,
  withStripe,
  type Member,
  completeSubscriptionCheckout,
} from "./helpers";

const unix = (ms: number) => Math.floor(ms / 1000);

/** A member subscribed to Premium (monthly) through Stripe Checkout, as the webhook completes it. */
async function stripeSubscriber() {
  const member = await verifiedMember();
  const started = await withStripe(member.client, "POST", "/my/subscription", {
    plan_id: "premium",
    billing_cycle: "monthly",
  });
  expect(started.status).toBe(200);
  const subId = `sub_${member.id}`;
  const customer = `cus_${member.id}`;
  const completed = await completeSubscriptionCheckout(member, {
    subscription: subId,
    customer,
    payment_intent: `pi_first_${member.id}`,
  });
  expect(completed.status).toBe(200);
  return { member, subId, customer };
}

/** An invoice Stripe marks paid, in the shape of the API version the webhook is signed with. */
function paidInvoice(
  id: string,
  fields: {
    subId: string;
    customer: string;
    reason: string;
    amount: number;
    paymentIntent?: string;
    lines?: { description: string; amount: number }[];
    metadata?: Record<string, string>;
  },
) {
  return {
    id,
    object: "invoice",
    billing_reason: fields.reason,
    customer: fields.customer,
    currency: "usd",
    amount_paid: fields.amount,
    status: "paid",
    // Paid after the checkout (a renewal a period later): listed above it.
    status_transitions: { paid_at: unix(Date.now()) + 60 },
    hosted_invoice_url: `https://invoice.stripe.com/i/${id}`,
    parent: {
      type: "subscription_details",
      subscription_details: { subscription: fields.subId, metadata: fields.metadata ?? {} },
    },
    lines: {
      object: "list",
      data: (fields.lines ?? [{ description: "1 × Premium (monthly)", amount: fields.amount }]).map(
        (line, i) => ({ id: `il_${id}_${i}`, object: "line_item", ...line }),
      ),
    },
    payments: {
      object: "list",
      data: fields.paymentIntent
        ? [
            {
              object: "invoice_payment",
              payment: { type: "payment_intent", payment_intent: fields.paymentIntent },
            },
          ]
        : [],
    },
  };
}

async function receipts(member: Member) {
  return member.client.json<{
    payments: { kind: string; description: string; amount_cents: number; status: string }[];
  }>("GET", "/my/payments");
}

const paymentsOf = async (userId: string) =>
  (
    await env.DB.prepare(
      "SELECT plan_id, billing_cycle, amount_cents, purpose, lines, charge_ref, provider_ref, status FROM payments WHERE user_id = ?1 AND kind = 'subscription' ORDER BY created_at, id",
    )
      .bind(userId)
      .all<{
        plan_id: string;
        billing_cycle: string;
        amount_cents: number;
        purpose: string | null;
        lines: string | null;
        charge_ref: string | null;
        provider_ref: string;
        status: string;
      }>()
  ).results;

describe("Stripe invoices after a subscription's first payment", () => {
  it("a renewal's invoice becomes one payment on the receipts, however often it arrives; its refund finds it", async () => {
    const { member, subId, customer } = await stripeSubscriber();

    // The first invoice is the checkout's payment: nothing more is recorded.
    const first = await deliver({
      type: "invoice.paid",
      data: {
        object: paidInvoice(`in_first_${member.id}`, {
          subId,
          customer,
          reason: "subscription_create",
          amount: 1999,
          paymentIntent: `pi_first_${member.id}`,
        }),
      },
    });
    expect(first.status).toBe(200);
    expect(await paymentsOf(member.id)).toHaveLength(1);

    // A month later: the renewal, sent as three events at once and one replayed.
    const renewal = paidInvoice(`in_renew_${member.id}`, {
      subId,
      customer,
      reason: "subscription_cycle",
      amount: 1999,
      paymentIntent: `pi_renew_${member.id}`,
    });
    const sent = await Promise.all(
      [1, 2, 3].map(() => deliver({ type: "invoice.paid", data: { object: renewal } })),
    );
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200]);
    const replayed = await deliver({
      id: eventId(),
      type: "invoice.paid",
      data: { object: renewal },
    });
    expect(replayed.status).toBe(200);
    const rows = await paymentsOf(member.id);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      plan_id: "premium",
      billing_cycle: "monthly",
      amount_cents: 1999,
      purpose: "renewal",
      lines: null,
      charge_ref: `pi_renew_${member.id}`,
      provider_ref: `in_renew_${member.id}`,
      status: "completed",
    });
    const listed = await receipts(member);
    expect(listed.status).toBe(200);
    expect(listed.body.payments[0]).toMatchObject({
      kind: "subscription",
      amount_cents: 1999,
      status: "paid",
    });
    expect(listed.body.payments[0]!.description).toBe("Premium (monthly) subscription renewed");

    // The renewal refunded in full: the payment says so, and the subscription ends.
    const refunded = await deliver({
      type: "charge.refunded",
      data: {
        object: {
          id: `ch_renew_${member.id}`,
          object: "charge",
          amount: 1999,
          amount_refunded: 1999,
          refunded: true,
          currency: "usd",
          customer,
          payment_intent: `pi_renew_${member.id}`,
        },
      },
    });
    expect(refunded.status).toBe(200);
    expect((await receipts(member)).body.payments[0]!.status).toBe("refunded");
    const sub = await env.DB.prepare("SELECT status FROM subscriptions WHERE provider_ref = ?1")
      .bind(subId)
      .first<{ status: string }>();
    expect(sub!.status).toBe("expired");
  });

  it("a plan change's invoice is a payment with its proration lines and the plan it changed to", async () => {
    const { member, subId, customer } = await stripeSubscriber();
    const change = await deliver({
      type: "invoice.paid",
      data: {
        object: paidInvoice(`in_change_${member.id}`, {
          subId,
          customer,
          reason: "subscription_update",
          amount: 3200,
          paymentIntent: `pi_change_${member.id}`,
          // Stripe wrote the new plan into the subscription's metadata before invoicing.
          metadata: { user_id: member.id, plan_id: "plus", billing_cycle: "yearly" },
          lines: [
            { description: "Unused time on Premium (monthly)", amount: -1200 },
            { description: "Remaining time on Plus (yearly)", amount: 4400 },
          ],
        }),
      },
    });
    expect(change.status).toBe(200);
    const rows = await paymentsOf(member.id);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      plan_id: "plus",
      billing_cycle: "yearly",
      amount_cents: 3200,
      purpose: "change",
      charge_ref: `pi_change_${member.id}`,
    });
    expect(JSON.parse(rows[1]!.lines!)).toEqual([
      { description: "Unused time on Premium (monthly)", amount_cents: -1200 },
      { description: "Remaining time on Plus (yearly)", amount_cents: 4400 },
    ]);
    expect((await receipts(member)).body.payments[0]!.description).toBe(
      "Plan change to Plus (yearly), prorated. Unused time on Premium (monthly): -$12.00; Remaining time on Plus (yearly): $44.00",
    );
  });

  it("records nothing for an invoice of a subscription it does not hold, or of no subscription period", async () => {
    const { member, subId, customer } = await stripeSubscriber();
    const stranger = await deliver({
      type: "invoice.paid",
      data: {
        object: paidInvoice("in_of_another", {
          subId: "sub_nobody_here",
          customer,
          reason: "subscription_cycle",
          amount: 999,
        }),
      },
    });
    const manual = await deliver({
      type: "invoice.paid",
      data: {
        object: paidInvoice(`in_manual_${member.id}`, {
          subId,
          customer,
          reason: "manual",
          amount: 500,
        }),
      },
    });
    expect([stranger.status, manual.status]).toEqual([200, 200]);
    expect(await paymentsOf(member.id)).toHaveLength(1);
    const outcomes = await env.DB.prepare(
      "SELECT outcome, note FROM stripe_events WHERE object_id IN ('in_of_another', ?1) ORDER BY note",
    )
      .bind(`in_manual_${member.id}`)
      .all<{ outcome: string; note: string }>();
    expect(outcomes.results).toEqual([
      { outcome: "ignored", note: "invoice of an unknown subscription" },
      { outcome: "ignored", note: "invoice of no subscription period or change" },
    ]);
  });
});

describe("a disputed subscription charge", () => {
  const dispute = (paymentIntent: string, type: string, status: string) =>
    disputeEvent(type, paymentIntent, 1999, status);
  const subscriptionOf = (userId: string) =>
    env.DB.prepare(
      "SELECT status, current_period_end, interrupted_period_end, cancel_reason FROM subscriptions WHERE user_id = ?1",
    )
      .bind(userId)
      .first<{
        status: string;
        current_period_end: string;
        interrupted_period_end: string | null;
        cancel_reason: string | null;
      }>();

  it("ends the perks when opened; won, gives the period back to its end, once, with no renewal", async () => {
    const { member } = await stripeSubscriber();
    const before = await subscriptionOf(member.id);
    expect(before?.status).toBe("active");
    expect(Date.parse(before!.current_period_end)).toBeGreaterThan(Date.now() + 20 * 86_400_000);
    expect((await memberPerks(env, member.id)).subscribed).toBe(true);

    const payment = `pi_first_${member.id}`;
    expect(
      (await deliver(dispute(payment, "charge.dispute.created", "needs_response"))).status,
    ).toBe(200);
    expect((await memberPerks(env, member.id)).subscribed).toBe(false);
    expect(await subscriptionOf(member.id)).toMatchObject({
      status: "expired",
      interrupted_period_end: before!.current_period_end,
    });

    // The bank sides with us: the charge stands, so the member has the period they paid for.
    const won = dispute(payment, "charge.dispute.closed", "won");
    const answers = await Promise.all([1, 2].map(() => deliver(won)));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(await subscriptionOf(member.id)).toMatchObject({
      status: "cancelled",
      current_period_end: before!.current_period_end,
      interrupted_period_end: null,
    });
    expect((await memberPerks(env, member.id)).subscribed).toBe(true);
    const status = await member.client.json<{
      currentSubscription: { status: string; current_period_end: string } | null;
    }>("GET", "/my/subscription/status");
    expect(status.body.currentSubscription).toMatchObject({
      status: "cancelled",
      current_period_end: before!.current_period_end,
    });
    const back = await env.DB.prepare(
      "SELECT data FROM activities WHERE user_id = ?1 AND type = 'subscription_changed' AND data LIKE '%dispute_won%'",
    )
      .bind(member.id)
      .all();
    expect(back.results).toHaveLength(1);
  });

  it("a partial refund keeps the plan (what was still paid for); the full refund ends it", async () => {
    const { member } = await stripeSubscriber();
    const refund = (refundedCents: number) => ({
      type: "charge.refunded",
      data: {
        object: {
          id: `ch_pi_first_${member.id}`,
          object: "charge",
          payment_intent: `pi_first_${member.id}`,
          amount: 1999,
          amount_refunded: refundedCents,
          refunded: refundedCents >= 1999,
          metadata: {},
        },
      },
    });
    expect((await deliver(refund(500))).status).toBe(200);
    expect((await memberPerks(env, member.id)).subscribed).toBe(true);
    expect((await subscriptionOf(member.id))?.status).toBe("active");
    expect((await deliver(refund(1999))).status).toBe(200);
    expect((await memberPerks(env, member.id)).subscribed).toBe(false);
    // A refund is not a dispute: nothing is kept to give back.
    expect((await subscriptionOf(member.id))?.interrupted_period_end).toBeNull();
  });

  it("a lost dispute, or a won one after the period ran out, gives nothing back", async () => {
    const lost = await stripeSubscriber();
    const pi = `pi_first_${lost.member.id}`;
    await deliver(dispute(pi, "charge.dispute.created", "needs_response"));
    await deliver(dispute(pi, "charge.dispute.closed", "lost"));
    expect((await subscriptionOf(lost.member.id))?.status).toBe("expired");
    expect((await memberPerks(env, lost.member.id)).subscribed).toBe(false);

    const late = await stripeSubscriber();
    const latePi = `pi_first_${late.member.id}`;
    await deliver(dispute(latePi, "charge.dispute.created", "needs_response"));
    // Weeks pass: the period the dispute cut short is over before the bank decides.
    await env.DB.prepare("UPDATE subscriptions SET interrupted_period_end = ?1 WHERE user_id = ?2")
      .bind(new Date(Date.now() - 86_400_000).toISOString(), late.member.id)
      .run();
    expect((await deliver(dispute(latePi, "charge.dispute.closed", "won"))).status).toBe(200);
    expect((await subscriptionOf(late.member.id))?.status).toBe("expired");
    expect((await memberPerks(env, late.member.id)).subscribed).toBe(false);
  });
});
