import { env, SELF } from "cloudflare:test";
import Stripe from "stripe";
import { afterEach, expect } from "vitest";
import type { Env } from "~/server/env.server";
import type { JsonResult, TestClient } from "../helpers/client";
import { fetchWith } from "../helpers/worker";
import { verifiedMember } from "../helpers/members";

export type Member = Awaited<ReturnType<typeof verifiedMember>>;

/** The Worker's environment with a Stripe key: payments go to Stripe (the local stand-in). */
export const stripeEnv = (): Env => ({ ...env, STRIPE_SECRET_KEY: "sk_test_heartline_standin" });

export interface StandInRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  idempotency_key: string | undefined;
  replayed: boolean;
  params: Record<string, string>;
}

/**
 * A JSON call from a signed-in browser to the Worker running with a Stripe key (SELF always runs
 * the test configuration, which has none).
 */
export async function withStripe<T = Record<string, unknown>>(
  client: TestClient,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonResult<T>> {
  if (!client.csrfToken) await client.loadCsrfFromPage("/login");
  const res = await fetchWith({ STRIPE_SECRET_KEY: "sk_test_heartline_standin" }, path, {
    method,
    ip: client.ip,
    headers: {
      Accept: "application/json",
      Cookie: client.cookieHeader(),
      "X-CSRF-Token": client.csrfToken,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

/** What the app sent to the Stripe stand-in, oldest first. */
export async function standInRequests(): Promise<StandInRequest[]> {
  return (await fetch(`${env.STRIPE_API_BASE}/__requests`)).json();
}

/** A Stripe event as Stripe would send it: JSON, and its signature header. */
export async function signedEvent(
  event: { id: string; type: string; created?: number; data: { object: Record<string, unknown> } },
  secret = env.STRIPE_WEBHOOK_SECRET!,
) {
  const payload = JSON.stringify({
    object: "event",
    api_version: "2026-10-28.endive",
    livemode: false,
    created: event.created ?? Math.floor(Date.now() / 1000),
    ...event,
  });
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret,
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
  return { payload, signature };
}

/** Posts a body to the webhook as Stripe does: no session, no CSRF token. */
export async function postWebhook(payload: string, signature?: string) {
  return SELF.fetch("http://localhost/webhooks/stripe", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(signature ? { "Stripe-Signature": signature } : {}),
    },
    body: payload,
  });
}

/** A new Stripe event id. */
export const eventId = () => `evt_${crypto.randomUUID()}`;

/** Signs an event (a new id unless it names one) and posts it to the webhook as Stripe does. */
export async function deliver(event: {
  id?: string;
  type: string;
  created?: number;
  data: unknown;
}) {
  const { payload, signature } = await signedEvent({
    id: event.id ?? eventId(),
    ...event,
  } as Parameters<typeof signedEvent>[0]);
  const res = await postWebhook(payload, signature);
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    payload,
    signature,
  };
}

/**
 * Stripe's `checkout.session.completed` for a credit pack the member paid: the event as Stripe
 * sends it for the Checkout Session that POST /my/credits/purchase opened (`payment`).
 */
export function paidPackCheckout(
  payment: { id: string; provider_ref: string },
  member: { id: string },
  paymentIntent: string,
) {
  return {
    type: "checkout.session.completed",
    data: {
      object: {
        id: payment.provider_ref,
        object: "checkout.session",
        mode: "payment",
        payment_status: "paid",
        status: "complete",
        payment_intent: paymentIntent,
        customer: `cus_${member.id}`,
        metadata: { kind: "credits", payment_id: payment.id, user_id: member.id },
      },
    },
  };
}

/**
 * Completes the subscription Checkout that POST /my/subscription opened for the member, as Stripe
 * does: `checkout.session.completed` for that session, naming the Stripe subscription.
 */
export async function completeSubscriptionCheckout(
  member: { id: string },
  fields: { subscription: string; customer?: string; payment_intent?: string; created?: number },
) {
  const session = await env.DB.prepare(
    "SELECT provider_ref FROM payments WHERE user_id = ?1 AND kind = 'subscription'",
  )
    .bind(member.id)
    .first<{ provider_ref: string }>();
  const { created, ...object } = fields;
  return deliver({
    type: "checkout.session.completed",
    ...(created === undefined ? {} : { created }),
    data: {
      object: {
        id: session!.provider_ref,
        object: "checkout.session",
        mode: "subscription",
        payment_status: "paid",
        ...object,
        metadata: { kind: "subscription", user_id: member.id },
      },
    },
  });
}

/** A signed `charge.dispute.*` event about the charge of `paymentIntent`, as Stripe sends it. */
export const disputeEvent = (
  type: string,
  paymentIntent: string,
  amount: number,
  status = "needs_response",
) => ({
  type,
  data: {
    object: {
      id: `dp_${paymentIntent}`,
      object: "dispute",
      charge: `ch_${paymentIntent}`,
      payment_intent: paymentIntent,
      amount,
      status,
      metadata: {},
    },
  },
});

/** A Stripe subscription object, active for a month from now, for member `m` (as webhooks carry it). */
export function stripeSubscription(
  m: { id: string },
  id: string,
  extra: Record<string, unknown> = {},
) {
  const start = Math.floor(Date.now() / 1000);
  return {
    id,
    object: "subscription",
    status: "active",
    customer: `cus_${m.id}`,
    cancel_at_period_end: false,
    cancel_at: null,
    canceled_at: null,
    ended_at: null,
    start_date: start,
    latest_invoice: `in_${id}`,
    metadata: { user_id: m.id, plan_id: "plus", billing_cycle: "monthly" },
    items: {
      object: "list",
      data: [{ current_period_start: start, current_period_end: start + 30 * 86_400 }],
    },
    ...extra,
  };
}

export async function balanceOf(userId: string) {
  return (
    (await env.DB.prepare(
      "SELECT balance, lifetime_earned, lifetime_spent FROM user_credits WHERE user_id = ?1",
    )
      .bind(userId)
      .first<{ balance: number; lifetime_earned: number; lifetime_spent: number }>()) ?? {
      balance: 0,
      lifetime_earned: 0,
      lifetime_spent: 0,
    }
  );
}

export async function ledgerOf(userId: string) {
  const { results } = await env.DB.prepare(
    "SELECT amount, direction, reason, reference FROM credit_transactions WHERE user_id = ?1 ORDER BY created_at, id",
  )
    .bind(userId)
    .all<{ amount: number; direction: string; reason: string; reference: string }>();
  return results;
}

export async function activitiesOf(userId: string) {
  const { results } = await env.DB.prepare(
    "SELECT type, data FROM activities WHERE user_id = ?1 ORDER BY seq",
  )
    .bind(userId)
    .all<{ type: string; data: string }>();
  return results.map((r) => ({
    type: r.type,
    data: JSON.parse(r.data) as Record<string, unknown>,
  }));
}

/** Buys a pack through the API (the test provider) and fails the test unless it completed. */
export async function buyPack(client: TestClient, packId: string) {
  const res = await client.json<{
    new_balance: number;
    transaction: {
      id: string;
      amount: number;
      direction: string;
      reason: string;
      created_at: string;
    };
  }>("POST", "/my/credits/purchase", { pack_id: packId });
  if (res.status !== 200)
    throw new Error(`purchase failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Subscribes through the API (the test provider) and fails the test unless it started. */
export async function subscribeTo(client: TestClient, planId: string, cycle = "monthly") {
  const res = await client.json<{ subscription: Record<string, unknown> }>(
    "POST",
    "/my/subscription",
    { plan_id: planId, billing_cycle: cycle },
  );
  if (res.status !== 201)
    throw new Error(`subscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.subscription;
}

/**
 * The ledger invariant for one member: balance = lifetime_earned − lifetime_spent = the ledger's
 * sum; what is owed = what refunds and disputes could not take from the balance − what later
 * purchases paid back − what won disputes forgave (each gives back all it took: what it does not
 * credit again is forgiven).
 */
export async function expectLedgerInvariant(userId: string) {
  const totals = await env.DB.prepare(
    "SELECT balance, lifetime_earned, lifetime_spent, owed FROM user_credits WHERE user_id = ?1",
  )
    .bind(userId)
    .first<{ balance: number; lifetime_earned: number; lifetime_spent: number; owed: number }>();
  const sums = await env.DB.prepare(
    `SELECT coalesce(sum(CASE WHEN direction = 'in' THEN amount END), 0) AS earned,
       coalesce(sum(CASE WHEN direction = 'out' THEN amount END), 0) AS spent,
       coalesce(sum(CASE WHEN reason = 'owed' THEN amount END), 0) AS repaid,
       coalesce(sum(CASE WHEN reason = 'dispute_won' THEN amount END), 0) AS returned
     FROM credit_transactions WHERE user_id = ?1`,
  )
    .bind(userId)
    .first<{ earned: number; spent: number; repaid: number; returned: number }>();
  const owed = await env.DB.prepare(
    `SELECT coalesce(sum(r.owed), 0) AS owed,
       coalesce(sum(CASE WHEN r.reason = 'dispute' AND p.dispute_status = 'won' THEN r.credits END), 0) AS won
     FROM credit_reversals r JOIN payments p ON p.id = r.payment_id
     WHERE r.user_id = ?1`,
  )
    .bind(userId)
    .first<{ owed: number; won: number }>();
  const t = totals ?? { balance: 0, lifetime_earned: 0, lifetime_spent: 0, owed: 0 };
  expect(t.balance).toBeGreaterThanOrEqual(0);
  expect(t.balance).toBe(t.lifetime_earned - t.lifetime_spent);
  expect(t.lifetime_earned).toBe(sums!.earned);
  expect(t.lifetime_spent).toBe(sums!.spent);
  expect(t.owed).toBe(owed!.owed - sums!.repaid - (owed!.won - sums!.returned));
}

/** A Stripe subscription at the stand-in, as a completed Checkout leaves it. */
export interface StandInSubscription {
  id: string;
  status: string;
  customer: string | null;
  cancel_at_period_end: boolean;
  latest_invoice: string | null;
  metadata: Record<string, string>;
  items: {
    data: {
      id: string;
      price: {
        id: string;
        unit_amount: number;
        currency: string;
        recurring: { interval: string };
        lookup_key: string | null;
      };
      current_period_start: number;
      current_period_end: number;
    }[];
  };
}

/** Puts a live subscription at the stand-in (what a completed Checkout leaves at Stripe). */
export async function putStandInSubscription(fixture: {
  id: string;
  customer?: string;
  price: { unit_amount: number; currency: string; interval: "month" | "year" };
  metadata: Record<string, string>;
  current_period_start: number;
  current_period_end: number;
}): Promise<StandInSubscription> {
  const res = await fetch(`${env.STRIPE_API_BASE}/__subscriptions`, {
    method: "POST",
    body: JSON.stringify(fixture),
  });
  return res.json();
}

/** The subscription as the stand-in has it now. */
export async function standInSubscription(id: string): Promise<StandInSubscription> {
  const res = await fetch(`${env.STRIPE_API_BASE}/__subscriptions/${id}`);
  if (res.status !== 200) throw new Error(`no subscription ${id} at the stand-in`);
  return res.json();
}

/** Stripe's webhook about a subscription, with the subscription as the stand-in has it now. */
export async function deliverSubscriptionEvent(
  id: string,
  type = "customer.subscription.updated",
  created?: number,
) {
  const object = { ...(await standInSubscription(id)), object: "subscription" };
  return deliver({ type, ...(created === undefined ? {} : { created }), data: { object } });
}

export { verifiedMember };

/**
 * Checks the ledger invariant after each test of the calling file for every member made by the
 * returned `member()`.
 */
export function ledgerCheckedMembers() {
  const touched = new Set<string>();
  afterEach(async () => {
    for (const userId of touched) await expectLedgerInvariant(userId);
    touched.clear();
  });
  return async function member() {
    const m = await verifiedMember();
    touched.add(m.id);
    return m;
  };
}
