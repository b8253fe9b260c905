import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  deliver,
  standInRequests,
  verifiedMember,
  withStripe,
  paidPackCheckout,
  stripeSubscription,
} from "./helpers";

/**
 * A Checkout already in flight when its member deleted the account (deletion expires the open
 * sessions at Stripe, but a payment may complete in between): the money goes back.
 */
describe("a payment completed after the account was deleted", () => {
  it("a credit pack: refunded in full at Stripe, no credits given, the payment says refunded", async () => {
    const m = await verifiedMember();
    const started = await withStripe(m.client, "POST", "/my/credits/purchase", {
      pack_id: "popular",
    });
    expect(started.status).toBe(200);
    const payment = await env.DB.prepare(
      "SELECT id, provider_ref, amount_cents FROM payments WHERE user_id = ?1",
    )
      .bind(m.id)
      .first<{ id: string; provider_ref: string; amount_cents: number }>();
    expect((await m.client.json("DELETE", "/my/account")).status).toBe(200);

    const intent = `pi_after_delete_${payment!.id}`;
    const completed = paidPackCheckout(payment!, m, intent);
    expect((await deliver(completed)).status).toBe(200);
    // Stripe sends it again: still one refund (the same idempotency key), still no credits.
    expect((await deliver(completed)).status).toBe(200);

    const refunds = (await standInRequests()).filter(
      (r) => r.path === "/v1/refunds" && r.params.payment_intent === intent,
    );
    expect(refunds.length).toBeGreaterThan(0);
    expect(new Set(refunds.map((r) => r.idempotency_key))).toEqual(
      new Set([`refund-account_deleted-${intent}`]),
    );
    expect(refunds[0]!.params).toMatchObject({
      reason: "requested_by_customer",
      "metadata[heartline]": "account_deleted",
    });
    const after = await env.DB.prepare(
      "SELECT status, refunded_cents, amount_cents, charge_ref FROM payments WHERE id = ?1",
    )
      .bind(payment!.id)
      .first<{
        status: string;
        refunded_cents: number;
        amount_cents: number;
        charge_ref: string;
      }>();
    expect(after).toEqual({
      status: "completed",
      refunded_cents: payment!.amount_cents,
      amount_cents: payment!.amount_cents,
      charge_ref: intent,
    });
    const granted = await env.DB.prepare(
      "SELECT count(*) AS n FROM credit_transactions WHERE user_id = ?1",
    )
      .bind(m.id)
      .first<{ n: number }>();
    expect(granted!.n).toBe(0);
    const outcome = await env.DB.prepare(
      "SELECT outcome, note FROM stripe_events WHERE object_id = ?1 ORDER BY received_at LIMIT 1",
    )
      .bind(payment!.provider_ref)
      .first<{ outcome: string; note: string }>();
    expect(outcome).toEqual({ outcome: "ignored", note: "account deleted: the payment refunded" });
  });

  it("a subscription: ended at Stripe now, and its first invoice refunded", async () => {
    const m = await verifiedMember();
    expect((await m.client.json("DELETE", "/my/account")).status).toBe(200);
    const subId = `sub_after_delete_${m.id}`;
    const created = await deliver({
      type: "customer.subscription.created",
      data: {
        object: stripeSubscription(m, subId, {
          metadata: { user_id: m.id, plan_id: "premium", billing_cycle: "monthly" },
          items: { object: "list", data: [] },
        }),
      },
    });
    expect(created.status).toBe(200);
    const sent = await standInRequests();
    expect(sent.some((r) => r.method === "DELETE" && r.path === `/v1/subscriptions/${subId}`)).toBe(
      true,
    );
    const refund = sent.find(
      (r) => r.path === "/v1/refunds" && r.params.payment_intent === `pi_of_in_${subId}`,
    );
    expect(refund?.params).toMatchObject({ reason: "requested_by_customer" });
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM subscriptions WHERE user_id = ?1")
        .bind(m.id)
        .first<{ n: number }>(),
    ).toEqual({ n: 0 });
  });
});
