import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { creditsOwed, reverseCredits, spendStatements } from "~/server/credits.server";
import { memberPerks } from "~/server/subscriptions.server";
import { NO_BILLING_ACCOUNT } from "~/schemas/payments";
import {
  activitiesOf,
  balanceOf,
  buyPack,
  deliver,
  disputeEvent,
  eventId,
  ledgerOf,
  postWebhook,
  signedEvent,
  standInRequests,
  subscribeTo,
  verifiedMember,
  withStripe,
  type Member,
  ledgerCheckedMembers,
  paidPackCheckout,
  stripeSubscription,
} from "./helpers";

/**
 * Money at the edges (issue #26, docs/api.md "Subscriptions and payments"): webhooks applied once
 * however many copies arrive, events the app cannot use, refunds and disputes with credits partly
 * spent, deletion and suspension with a live subscription, a second subscription.
 */

let counter = 0;
const DAY = 86_400_000;

/** The ledger invariant (helpers.ts), after each test, for every member made here. */
const member = ledgerCheckedMembers();

async function eventRow(id: string) {
  return env.DB.prepare("SELECT outcome, note FROM stripe_events WHERE id = ?1")
    .bind(id)
    .first<{ outcome: string; note: string | null }>();
}

/** A paid Stripe credit purchase: Checkout opened, then its completed event with a PaymentIntent. */
async function paidPack(m: Member, packId = "popular") {
  const res = await withStripe(m.client, "POST", "/my/credits/purchase", { pack_id: packId });
  expect(res.status).toBe(200);
  const payment = await env.DB.prepare(
    "SELECT id, provider_ref, amount_cents FROM payments WHERE user_id = ?1 ORDER BY created_at DESC LIMIT 1",
  )
    .bind(m.id)
    .first<{ id: string; provider_ref: string; amount_cents: number }>();
  const paymentIntent = `pi_${payment!.id}`;
  const done = await deliver(paidPackCheckout(payment!, m, paymentIntent));
  expect(done.status).toBe(200);
  return { paymentId: payment!.id, paymentIntent, amount: payment!.amount_cents };
}

/** Spends credits on something (a gift's ledger row, without the message). */
async function spend(userId: string, amount: number) {
  await env.DB.batch(
    spendStatements(env, {
      userId,
      amount,
      reason: "gift",
      reference: `spent-${userId}-${++counter}`,
    }),
  );
}

const refunded = (paymentIntent: string, amount: number, amountRefunded: number) => ({
  type: "charge.refunded",
  data: {
    object: {
      id: `ch_${paymentIntent}`,
      object: "charge",
      payment_intent: paymentIntent,
      amount,
      amount_refunded: amountRefunded,
      refunded: amountRefunded >= amount,
      metadata: {},
      receipt_url: `https://pay.stripe.com/receipts/${paymentIntent}`,
    },
  },
});

async function liveStripeSubscription(m: Member, id = `sub_${m.id}`) {
  const res = await deliver({
    type: "customer.subscription.created",
    data: { object: stripeSubscription(m, id) },
  });
  expect(res.status).toBe(200);
  expect((await memberPerks(env, m.id)).subscribed).toBe(true);
  return id;
}

describe("webhooks: applied once, never a 5xx for an event the app cannot use", () => {
  it("20 copies of one event at once: all 200, applied once (one activity)", async () => {
    const m = await member();
    const id = eventId();
    const { payload, signature } = await signedEvent({
      id,
      type: "customer.subscription.created",
      data: { object: stripeSubscription(m, `sub_many_${m.id}`) },
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => postWebhook(payload, signature)),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    const bodies = await Promise.all(
      answers.map((r) => r.json() as Promise<{ duplicate: boolean }>),
    );
    expect(bodies.filter((b) => !b.duplicate)).toHaveLength(1);
    expect((await activitiesOf(m.id)).map((a) => a.type)).toEqual(["subscription_started"]);
    expect(await eventRow(id)).toEqual({ outcome: "applied", note: null });
  });

  it("an empty object, an unknown object, an unknown member or event type: 200 and recorded", async () => {
    const cases = [
      { type: "customer.subscription.updated", data: { object: {} } },
      { type: "charge.refunded", data: {} },
      { type: "checkout.session.completed", data: { object: { id: "x_1", object: "coupon" } } },
      {
        type: "customer.subscription.created",
        data: { object: stripeSubscription({ id: "nobody-here" }, "sub_nobody") },
      },
      {
        type: "charge.dispute.created",
        data: {
          object: {
            id: "dp_x",
            object: "dispute",
            payment_intent: "pi_unknown",
            amount: 10,
            status: "needs_response",
          },
        },
      },
      { type: "customer.tax_id.created", data: { object: { id: "txi_1", object: "tax_id" } } },
    ];
    for (const event of cases) {
      const id = eventId();
      const res = await deliver({ id, ...event });
      expect(res.status, event.type).toBe(200);
      expect((await eventRow(id))?.outcome, event.type).toBe("ignored");
    }
    // The unknown member's live subscription is cancelled at Stripe: nobody is billed for it.
    const cancels = (await standInRequests()).filter(
      (r) => r.method === "DELETE" && r.path === "/v1/subscriptions/sub_nobody",
    );
    expect(cancels.length).toBeGreaterThanOrEqual(1);
    expect(cancels[0]!.idempotency_key).toBe("cancel-now-unknown-member-sub_nobody");
  });

  it("8 concurrent cancels apply once: one activity", async () => {
    const m = await member();
    await subscribeTo(m.client, "plus");
    await m.client.loadCsrfFromPage("/my/subscription");
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        m.client.json("DELETE", "/my/subscription", { reason: "too expensive" }),
      ),
    );
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    expect(
      (await activitiesOf(m.id)).filter((a) => a.type === "subscription_cancelled"),
    ).toHaveLength(1);
  });
});

describe("cancelling a Stripe subscription", () => {
  it("two cancels at once with different reasons: neither is a 5xx, Stripe is told once per reason", async () => {
    const m = await member();
    const subId = await liveStripeSubscription(m);
    const answers = await Promise.all(
      ["too expensive", "met someone"].map((reason) =>
        withStripe(m.client, "DELETE", "/my/subscription", { reason }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).not.toContain(502);
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    const updates = (await standInRequests()).filter(
      (r) => r.method === "POST" && r.path === `/v1/subscriptions/${subId}`,
    );
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates.every((r) => r.params.cancel_at_period_end === "true")).toBe(true);
  });
});

describe("refunds and disputes take back what the payment bought", () => {
  it("a full refund with credits partly spent: balance 0, the rest owed, gifts paused, the next purchase pays it", async () => {
    const m = await member();
    const { paymentId, paymentIntent, amount } = await paidPack(m, "popular"); // 120 credits
    await spend(m.id, 90);
    const event = refunded(paymentIntent, amount, amount);
    const id = eventId();
    const { payload, signature } = await signedEvent({ id, ...event });
    // The same refund many times at once, and again under another id.
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => postWebhook(payload, signature)),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect((await deliver(event)).status).toBe(200);

    expect(await balanceOf(m.id)).toEqual({
      balance: 0,
      lifetime_earned: 120,
      lifetime_spent: 120,
    });
    expect(await creditsOwed(env, m.id)).toBe(90);
    expect((await ledgerOf(m.id)).filter((l) => l.reason === "refund")).toEqual([
      { amount: 30, direction: "out", reason: "refund", reference: `${paymentId}:refund:120` },
    ]);

    // Gifting is paused while something is owed.
    await expect(spend(m.id, 1)).rejects.toThrow();
    expect(await balanceOf(m.id)).toMatchObject({ balance: 0 });

    // The next purchase (300 credits) pays what is owed first.
    const bought = await buyPack(m.client, "value");
    expect(await balanceOf(m.id)).toEqual({
      balance: 210,
      lifetime_earned: 420,
      lifetime_spent: 210,
    });
    expect(bought.new_balance).toBe(210);
    expect(await creditsOwed(env, m.id)).toBe(0);
    expect((await ledgerOf(m.id)).filter((l) => l.reason === "owed")).toHaveLength(1);
    await spend(m.id, 10);

    const status = await env.DB.prepare("SELECT refunded_cents FROM payments WHERE id = ?1")
      .bind(paymentId)
      .first<{ refunded_cents: number }>();
    expect(status?.refunded_cents).toBe(amount);
  });

  it("partial refunds take back their share, cumulatively, in any order", async () => {
    const m = await member();
    const { paymentIntent, amount } = await paidPack(m, "popular"); // 120 credits for 999
    const half = refunded(paymentIntent, amount, 500); // ceil(120 × 500 / 999) = 61
    const all = refunded(paymentIntent, amount, amount);
    // The full refund arrives before the partial one: the partial one then changes nothing.
    expect((await deliver(all)).status).toBe(200);
    expect((await deliver(half)).status).toBe(200);
    expect(await balanceOf(m.id)).toMatchObject({ balance: 0 });

    const n = await member();
    const second = await paidPack(n, "popular");
    expect((await deliver(refunded(second.paymentIntent, second.amount, 500))).status).toBe(200);
    expect((await balanceOf(n.id)).balance).toBe(120 - 61);
    expect((await deliver(refunded(second.paymentIntent, second.amount, 500))).status).toBe(200);
    expect((await balanceOf(n.id)).balance).toBe(120 - 61);
    expect(
      (await deliver(refunded(second.paymentIntent, second.amount, second.amount))).status,
    ).toBe(200);
    expect((await balanceOf(n.id)).balance).toBe(0);
    expect(await creditsOwed(env, n.id)).toBe(0);
  });

  it("a dispute takes the credits back; won, they come back; lost before opened, taken once", async () => {
    const m = await member();
    const { paymentIntent, amount } = await paidPack(m, "popular");
    await spend(m.id, 20);
    const opened = disputeEvent("charge.dispute.created", paymentIntent, amount);
    expect((await deliver(opened)).status).toBe(200);
    expect((await deliver(opened)).status).toBe(200);
    expect(await balanceOf(m.id)).toMatchObject({ balance: 0 });
    expect(await creditsOwed(env, m.id)).toBe(20);
    const won = disputeEvent("charge.dispute.closed", paymentIntent, amount, "won");
    expect((await deliver(won)).status).toBe(200);
    expect((await deliver(won)).status).toBe(200);
    expect(await balanceOf(m.id)).toMatchObject({ balance: 100 });
    expect(await creditsOwed(env, m.id)).toBe(0);

    // Closed (lost) before the opening event arrives: taken back once; the late open changes nothing.
    const n = await member();
    const second = await paidPack(n, "starter"); // 50 credits
    expect(
      (
        await deliver(
          disputeEvent("charge.dispute.closed", second.paymentIntent, second.amount, "lost"),
        )
      ).status,
    ).toBe(200);
    expect(
      (await deliver(disputeEvent("charge.dispute.created", second.paymentIntent, second.amount)))
        .status,
    ).toBe(200);
    expect(await balanceOf(n.id)).toEqual({ balance: 0, lifetime_earned: 50, lifetime_spent: 50 });
    expect((await ledgerOf(n.id)).filter((l) => l.reason === "dispute")).toHaveLength(1);

    // Won before opened: the late open takes nothing.
    const o = await member();
    const third = await paidPack(o, "starter");
    expect(
      (
        await deliver(
          disputeEvent("charge.dispute.closed", third.paymentIntent, third.amount, "won"),
        )
      ).status,
    ).toBe(200);
    expect(
      (await deliver(disputeEvent("charge.dispute.created", third.paymentIntent, third.amount)))
        .status,
    ).toBe(200);
    expect((await balanceOf(o.id)).balance).toBe(50);
  });

  it("a dispute won after a purchase paid what it left owed gives those credits back", async () => {
    const m = await member();
    const { paymentIntent, amount } = await paidPack(m, "popular"); // 120 credits
    await spend(m.id, 20);
    expect(
      (await deliver(disputeEvent("charge.dispute.created", paymentIntent, amount))).status,
    ).toBe(200);
    expect(await balanceOf(m.id)).toMatchObject({ balance: 0 });
    expect(await creditsOwed(env, m.id)).toBe(20);
    // The next purchase (50 credits) pays the 20 owed first.
    await buyPack(m.client, "starter");
    expect(await balanceOf(m.id)).toMatchObject({ balance: 30 });
    expect(await creditsOwed(env, m.id)).toBe(0);
    // Won: all 120 credits are the member's again, the 20 the purchase paid included.
    expect(
      (await deliver(disputeEvent("charge.dispute.closed", paymentIntent, amount, "won"))).status,
    ).toBe(200);
    expect(await balanceOf(m.id)).toEqual({
      balance: 150,
      lifetime_earned: 290,
      lifetime_spent: 140,
    });
    expect(await creditsOwed(env, m.id)).toBe(0);
  });

  it("a won close that lands inside its opening event's work still gives the credits back", async () => {
    // The opening event took the credits but had not marked the dispute open yet.
    const m = await member();
    const first = await paidPack(m, "popular"); // 120 credits
    await spend(m.id, 20);
    expect(await reverseCredits(env, first.paymentId, 120, "dispute")).toBe(true);
    expect(await balanceOf(m.id)).toMatchObject({ balance: 0 });
    const won = disputeEvent("charge.dispute.closed", first.paymentIntent, first.amount, "won");
    expect((await deliver(won)).status).toBe(200);
    expect(await balanceOf(m.id)).toMatchObject({ balance: 100 });
    expect(await creditsOwed(env, m.id)).toBe(0);

    // The opening event read the payment before the close marked it won: it takes nothing.
    const n = await member();
    const second = await paidPack(n, "starter"); // 50 credits
    expect(
      (
        await deliver(
          disputeEvent("charge.dispute.closed", second.paymentIntent, second.amount, "won"),
        )
      ).status,
    ).toBe(200);
    expect(await reverseCredits(env, second.paymentId, 50, "dispute")).toBe(false);
    expect(await balanceOf(n.id)).toEqual({ balance: 50, lifetime_earned: 50, lifetime_spent: 0 });
    // A refund still takes back what it refunds.
    expect(
      (await deliver(refunded(second.paymentIntent, second.amount, second.amount))).status,
    ).toBe(200);
    expect(await balanceOf(n.id)).toMatchObject({ balance: 0 });
  });

  it("a refunded subscription's perks end and Stripe bills it no more", async () => {
    const m = await member();
    const subId = await liveStripeSubscription(m);
    expect((await deliver(refunded(`pi_renewal_${m.id}`, 999, 999))).status).toBe(200);
    // A renewal charge has no payment row: the customer's subscription is the one it paid.
    const chargeOf = refunded(`pi_renewal_${m.id}`, 999, 999);
    (chargeOf.data.object as Record<string, unknown>).customer = `cus_${m.id}`;
    expect((await deliver(chargeOf)).status).toBe(200);
    expect((await memberPerks(env, m.id)).subscribed).toBe(false);
    expect(
      (await standInRequests()).some(
        (r) => r.method === "DELETE" && r.path === `/v1/subscriptions/${subId}`,
      ),
    ).toBe(true);
  });
});

describe("deletion and suspension with a live subscription", () => {
  it("deleting the account cancels at Stripe before it answers; money records stay; a later webhook is 200", async () => {
    const m = await member();
    const subId = await liveStripeSubscription(m);
    await paidPack(m, "starter");
    const res = await m.client.json("DELETE", "/my/account");
    expect(res.status).toBe(200);
    const cancel = (await standInRequests()).filter(
      (r) => r.method === "DELETE" && r.path === `/v1/subscriptions/${subId}`,
    );
    expect(cancel).toHaveLength(1);
    expect(cancel[0]!.idempotency_key).toBe(`cancel-now-deleted-${subId}`);

    const count = async (table: string) =>
      (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE user_id = ?1`)
        .bind(m.id)
        .first<{ n: number }>())!.n;
    expect(await count("users".replace("users", "payments"))).toBe(1);
    expect(await count("subscriptions")).toBe(1);
    expect(await count("credit_transactions")).toBe(1);
    const user = await env.DB.prepare("SELECT 1 FROM users WHERE id = ?1").bind(m.id).first();
    expect(user).toBeNull();
    const sub = await env.DB.prepare("SELECT status FROM subscriptions WHERE user_id = ?1")
      .bind(m.id)
      .first<{ status: string }>();
    expect(sub?.status).toBe("expired");

    // Stripe's next event about the deleted member: 200 and recorded, nothing written for them.
    const id = eventId();
    const late = await deliver({
      id,
      type: "customer.subscription.updated",
      data: { object: stripeSubscription(m, subId, { status: "active" }) },
    });
    expect(late.status).toBe(200);
    expect(await eventRow(id)).toEqual({ outcome: "ignored", note: "unknown or deleted member" });
  });

  it("suspending the member stops renewal at Stripe; the perks last to the period end", async () => {
    const m = await member();
    const subId = await liveStripeSubscription(m);
    const mod = await verifiedMember();
    await env.DB.prepare("UPDATE users SET role = 'moderator' WHERE id = ?1").bind(mod.id).run();
    const res = await mod.client.json("POST", `/moderation/members/${m.id}/suspend`);
    expect(res.status).toBe(200);
    const stop = (await standInRequests()).filter(
      (r) => r.method === "POST" && r.path === `/v1/subscriptions/${subId}`,
    );
    expect(stop).toHaveLength(1);
    expect(stop[0]!.params.cancel_at_period_end).toBe("true");
    const sub = await env.DB.prepare("SELECT status FROM subscriptions WHERE user_id = ?1")
      .bind(m.id)
      .first<{ status: string }>();
    expect(sub?.status).toBe("cancelled");
    expect((await memberPerks(env, m.id)).subscribed).toBe(true);
    expect((await memberPerks(env, m.id, Date.now() + 31 * DAY)).subscribed).toBe(false);
  });
});

describe("one live subscription per member", () => {
  it("a second subscription Stripe reports is cancelled and refunded at once, and recorded", async () => {
    const m = await member();
    const first = await liveStripeSubscription(m, `sub_first_${m.id}`);
    const secondId = `sub_second_${m.id}`;
    const id = eventId();
    const res = await deliver({
      id,
      type: "customer.subscription.created",
      data: {
        object: stripeSubscription(m, secondId, {
          metadata: { user_id: m.id, plan_id: "premium", billing_cycle: "monthly" },
        }),
      },
    });
    expect(res.status).toBe(200);
    const requests = await standInRequests();
    expect(
      requests.some((r) => r.method === "DELETE" && r.path === `/v1/subscriptions/${secondId}`),
    ).toBe(true);
    const refund = requests.filter(
      (r) => r.path === "/v1/refunds" && r.params.payment_intent === `pi_of_in_${secondId}`,
    );
    expect(refund).toHaveLength(1);
    expect(refund[0]!.idempotency_key).toBe(`refund-duplicate-pi_of_in_${secondId}`);
    expect(await eventRow(id)).toEqual({
      outcome: "ignored",
      note: "second live subscription: cancelled and refunded",
    });
    const sub = await env.DB.prepare(
      "SELECT provider_ref, plan_id FROM subscriptions WHERE user_id = ?1",
    )
      .bind(m.id)
      .first<{ provider_ref: string; plan_id: string }>();
    expect(sub).toEqual({ provider_ref: first, plan_id: "plus" });
    expect((await activitiesOf(m.id)).some((a) => a.data.status === "duplicate_refunded")).toBe(
      true,
    );
  });

  it("every write the app sends to Stripe carries its own idempotency key", async () => {
    const requests = await standInRequests();
    const writes = requests.filter((r) => r.method === "POST" || r.method === "DELETE");
    expect(writes.length).toBeGreaterThan(0);
    // A key names one change: Stripe refuses it on a request with other parameters.
    const requestOfKey = new Map<string, string>();
    for (const w of writes) {
      expect(w.idempotency_key, `${w.method} ${w.path}`).toBeTruthy();
      expect(w.idempotency_key!.startsWith("stripe-node-retry-"), w.path).toBe(false);
      const request = JSON.stringify([w.method, w.path, w.params]);
      const first = requestOfKey.get(w.idempotency_key!) ?? request;
      requestOfKey.set(w.idempotency_key!, first);
      expect(request, w.idempotency_key).toBe(first);
    }
  });
});

const html = async (m: Member, path: string) => {
  const res = await m.client.fetch(path, { headers: { Accept: "text/html" } });
  return { status: res.status, text: (await res.text()).replaceAll("<!-- -->", "") };
};

describe("one open checkout, receipts and the customer portal", () => {
  it("a second subscribe while a checkout is open answers the same checkout_url", async () => {
    const m = await member();
    const first = await withStripe<{ checkout_url: string }>(m.client, "POST", "/my/subscription", {
      plan_id: "plus",
      billing_cycle: "monthly",
    });
    expect(first.status).toBe(200);
    const again = await Promise.all(
      Array.from({ length: 3 }, () =>
        withStripe<{ checkout_url: string }>(m.client, "POST", "/my/subscription", {
          plan_id: "premium",
          billing_cycle: "yearly",
        }),
      ),
    );
    for (const res of again) expect(res.body.checkout_url).toBe(first.body.checkout_url);
    const pending = await env.DB.prepare(
      "SELECT count(*) AS n FROM payments WHERE user_id = ?1 AND status = 'pending'",
    )
      .bind(m.id)
      .first<{ n: number }>();
    expect(pending?.n).toBe(1);
    // Past its expiry the checkout no longer counts: a new one opens.
    await env.DB.prepare(
      "UPDATE payments SET checkout_expires_at = '2000-01-01T00:00:00.000Z' WHERE user_id = ?1",
    )
      .bind(m.id)
      .run();
    const fresh = await withStripe<{ checkout_url: string }>(m.client, "POST", "/my/subscription", {
      plan_id: "plus",
      billing_cycle: "monthly",
    });
    expect(fresh.body.checkout_url).not.toBe(first.body.checkout_url);
  });

  it("GET /my/payments: newest first, paginated, a status per payment; the receipts page shows them", async () => {
    const m = await member();
    const a = await paidPack(m, "starter");
    const b = await paidPack(m, "popular");
    const c = await paidPack(m, "value");
    await buyPack(m.client, "big");
    expect((await deliver(refunded(a.paymentIntent, a.amount, a.amount))).status).toBe(200);
    expect((await deliver(refunded(b.paymentIntent, b.amount, 100))).status).toBe(200);
    expect(
      (await deliver(disputeEvent("charge.dispute.created", c.paymentIntent, c.amount))).status,
    ).toBe(200);
    const res = await m.client.json<{
      payments: {
        description: string;
        status: string;
        amount_cents: number;
        receipt_url: string | null;
      }[];
      meta: { has_more: boolean };
    }>("GET", "/my/payments");
    expect(res.status).toBe(200);
    expect(res.body.payments.map((p) => [p.description, p.status])).toEqual([
      ["Big: 800 credits", "paid"],
      ["Value: 300 credits", "disputed"],
      ["Popular: 120 credits", "partially_refunded"],
      ["Starter: 50 credits", "refunded"],
    ]);
    expect(res.body.payments[3]!.receipt_url).toBe(
      `https://pay.stripe.com/receipts/${a.paymentIntent}`,
    );
    expect(res.body.meta.has_more).toBe(false);
    // Past the last page: nothing; a page number that is not one reads page 1.
    const past = await m.client.json<{ payments: unknown[]; meta: { page: number } }>(
      "GET",
      "/my/payments?page=2",
    );
    expect(past.body).toMatchObject({ payments: [], meta: { page: 2 } });
    for (const odd of ["-3", "abc", "1e300"]) {
      const first = await m.client.json<{ payments: unknown[]; meta: { page: number } }>(
        "GET",
        `/my/payments?page=${odd}`,
      );
      expect(first.body.meta.page).toBe(1);
      expect(first.body.payments).toHaveLength(4);
    }

    const page = await html(m, "/my/payments");
    expect(page.status).toBe(200);
    for (const word of ["Big: 800 credits", "Disputed", "Partly refunded", "Refunded", "$4.99"]) {
      expect(page.text).toContain(word);
    }
    const other = await member();
    expect(
      (await other.client.json<{ payments: unknown[] }>("GET", "/my/payments")).body.payments,
    ).toEqual([]);
  });

  it("POST /my/billing/portal: the portal's url for a Stripe customer, 409 without one", async () => {
    const none = await member();
    const refused = await none.client.json("POST", "/my/billing/portal");
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ message: NO_BILLING_ACCOUNT });

    const m = await member();
    await liveStripeSubscription(m);
    const res = await m.client.json<{ url: string }>("POST", "/my/billing/portal");
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
    const sent = (await standInRequests()).filter((r) => r.path === "/v1/billing_portal/sessions");
    expect(sent.at(-1)!.params.customer).toBe(`cus_${m.id}`);
    expect(sent.at(-1)!.params.return_url).toBe("http://localhost/my/payments");
  });

  it("the account page says what deleting does to the subscription before the member confirms", async () => {
    const m = await member();
    await subscribeTo(m.client, "plus");
    const page = await html(m, "/settings/account");
    expect(page.text).toContain("Your Plus subscription would renew on");
    expect(page.text).toContain("Deleting your account cancels it at once");
    const free = await member();
    expect((await html(free, "/settings/account")).text).not.toContain("subscription-warning");
  });
});

describe("past_due: what the member sees", () => {
  it("the subscription page says the payment failed, how long the perks last and where to fix the card", async () => {
    const m = await member();
    const subId = await liveStripeSubscription(m);
    const res = await deliver({
      type: "invoice.payment_failed",
      data: {
        object: {
          id: `in_failed_${m.id}`,
          object: "invoice",
          parent: { type: "subscription_details", subscription_details: { subscription: subId } },
        },
      },
    });
    expect(res.status).toBe(200);
    expect((await memberPerks(env, m.id)).subscribed).toBe(true);
    const page = await html(m, "/my/subscription");
    expect(page.text).toContain("Payment failed");
    expect(page.text).toContain("Your perks continue for 7 days from the failed payment");
    expect(page.text).toContain('href="/my/payments"');
  });
});

describe("the gifts page's index", () => {
  it("reads a page of gifts in the index's order, sorting nothing", async () => {
    for (const mine of ["sender_id", "recipient_id"]) {
      const { results } = await env.DB.prepare(
        `EXPLAIN QUERY PLAN SELECT gift_messages.message_id FROM gift_messages
         JOIN gifts ON gifts.id = gift_messages.gift_id WHERE ${mine} = ?1
         ORDER BY gift_messages.sent_at DESC, gift_messages.message_id DESC LIMIT 21`,
      )
        .bind("someone")
        .all<{ detail: string }>();
      const plan = results.map((r) => r.detail).join("\n");
      expect(plan).toContain(
        `USING INDEX gift_messages_${mine === "sender_id" ? "sender" : "recipient"}`,
      );
      expect(plan).not.toContain("TEMP B-TREE");
    }
  });
});
