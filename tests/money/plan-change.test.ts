import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { planChangeQuotes } from "~/server/plan-changes.server";
import { memberPerks } from "~/server/subscriptions.server";
import { registerMember } from "../helpers/members";
import {
  activitiesOf,
  deliver,
  deliverSubscriptionEvent,
  putStandInSubscription,
  standInRequests,
  standInSubscription,
  stripeEnv,
  subscribeTo,
  withStripe,
  type Member,
  ledgerCheckedMembers,
} from "./helpers";

/**
 * Plan changes in place (docs/api.md "Subscriptions and payments": `PUT /my/subscription`), both
 * ways, with Stripe (through the stand-in at the network edge, the row following the signed
 * webhook) and with the test provider (changed at once, the proration recorded as Stripe computes
 * it).
 */

const DAY = 86_400_000;
const unix = (ms: number) => Math.floor(ms / 1000);
const iso = (ms: number) => new Date(ms).toISOString();

/** The ledger invariant (helpers.ts), after each test, for every member made here. */
const member = ledgerCheckedMembers();

interface SubscriptionView {
  status: string;
  plan: { id: string; name: string };
  billing_cycle: string;
  current_period_end: string;
  cancelled_at: string | null;
}

async function current(m: Member) {
  const res = await m.client.json<{ currentSubscription: SubscriptionView | null }>(
    "GET",
    "/my/subscription/status",
  );
  return res.body.currentSubscription;
}

const PRICES = {
  plus: { monthly: 999, yearly: 7999 },
  premium: { monthly: 1999, yearly: 15999 },
} as const;

type PlanId = keyof typeof PRICES;
type Cycle = "monthly" | "yearly";

/**
 * A member whose live Stripe subscription is at the stand-in (as Checkout leaves it) and stored
 * here from its `customer.subscription.created` webhook: a third of its period has run.
 */
async function stripeSubscriber(plan: PlanId, cycle: Cycle) {
  const m = await member();
  const id = `sub_pc_${m.id}`;
  const now = Date.now();
  const length = (cycle === "yearly" ? 360 : 30) * DAY;
  await putStandInSubscription({
    id,
    customer: `cus_${m.id}`,
    price: {
      unit_amount: PRICES[plan][cycle],
      currency: "usd",
      interval: cycle === "yearly" ? "year" : "month",
    },
    metadata: { user_id: m.id, plan_id: plan, billing_cycle: cycle },
    current_period_start: unix(now - length / 3),
    current_period_end: unix(now + (2 * length) / 3),
  });
  const created = await deliverSubscriptionEvent(
    id,
    "customer.subscription.created",
    unix(now) - 5,
  );
  expect(created.status).toBe(200);
  expect((await current(m))?.plan.id).toBe(plan);
  return { m, id };
}

/** The plan change the app sent to Stripe for this subscription (the newest). */
async function changeSent(subscriptionId: string) {
  const updates = (await standInRequests()).filter(
    (r) =>
      r.method === "POST" &&
      r.path === `/v1/subscriptions/${subscriptionId}` &&
      r.params["items[0][price]"] !== undefined,
  );
  return updates.at(-1);
}

async function change(m: Member, plan_id: string, billing_cycle: string) {
  return withStripe<{ subscription: SubscriptionView; message?: string }>(
    m.client,
    "PUT",
    "/my/subscription",
    { plan_id, billing_cycle },
  );
}

describe("changing plan with Stripe", () => {
  it("upgrade: the one item moves to Premium's price, invoiced now; the row and perks follow the webhook", async () => {
    const { m, id } = await stripeSubscriber("plus", "monthly");
    const before = await standInSubscription(id);
    expect(await memberPerks(env, m.id)).toMatchObject({ dailyLikes: 150, incognito: false });

    const res = await change(m, "premium", "monthly");
    expect(res.status).toBe(200);
    // The answer is the subscription as Stripe answered the change: the requested plan.
    expect(res.body.subscription).toMatchObject({
      status: "active",
      plan: { id: "premium", name: "Premium" },
      billing_cycle: "monthly",
      cancelled_at: null,
      current_period_end: iso(before.items.data[0]!.current_period_end * 1000),
    });

    const after = await standInSubscription(id);
    const price = after.items.data[0]!.price;
    expect(price).toMatchObject({
      unit_amount: 1999,
      currency: "usd",
      recurring: { interval: "month" },
      lookup_key: "heartline_premium_monthly_1999_usd",
    });
    const sent = await changeSent(id);
    expect(sent?.params).toMatchObject({
      "items[0][id]": before.items.data[0]!.id,
      "items[0][price]": price.id,
      proration_behavior: "always_invoice",
      cancel_at_period_end: "false",
      "metadata[plan_id]": "premium",
      "metadata[billing_cycle]": "monthly",
    });
    expect(Object.keys(sent!.params).filter((k) => k.startsWith("items["))).toHaveLength(2);
    expect(sent?.idempotency_key).toMatch(new RegExp(`^change-plan-${id}-${price.id}-`));
    expect(sent?.replayed).toBe(false);
    // The price was found (or made once) by its lookup key.
    const lookups = (await standInRequests()).filter(
      (r) =>
        r.method === "GET" &&
        r.path === "/v1/prices" &&
        r.params["lookup_keys[0]"] === "heartline_premium_monthly_1999_usd",
    );
    expect(lookups.length).toBeGreaterThanOrEqual(1);
    const made = (await standInRequests()).filter(
      (r) => r.method === "POST" && r.path === "/v1/prices" && r.params.unit_amount === "1999",
    );
    expect(made[0]?.idempotency_key).toBe("price-heartline_premium_monthly_1999_usd");
    expect(made[0]?.params).toMatchObject({
      "recurring[interval]": "month",
      "product_data[name]": "Premium (monthly)",
      lookup_key: "heartline_premium_monthly_1999_usd",
    });

    // Stripe is the truth: until its webhook arrives the row (and the perks) are as they were.
    expect((await current(m))?.plan.id).toBe("plus");
    expect((await memberPerks(env, m.id)).incognito).toBe(false);

    expect((await deliverSubscriptionEvent(id)).status).toBe(200);
    expect(await current(m)).toMatchObject({
      status: "active",
      plan: { id: "premium" },
      billing_cycle: "monthly",
    });
    expect(await memberPerks(env, m.id)).toMatchObject({
      subscribed: true,
      dailyLikes: 500,
      incognito: true,
    });
    expect((await activitiesOf(m.id)).at(-1)).toMatchObject({
      type: "subscription_changed",
      data: { plan: "Premium", billing_cycle: "monthly", status: "active" },
    });
  });

  it("downgrade: Premium yearly to Plus yearly leaves the credit for the next invoice; perks follow down", async () => {
    const { m, id } = await stripeSubscriber("premium", "yearly");
    const res = await change(m, "plus", "yearly");
    expect(res.status).toBe(200);
    expect(res.body.subscription).toMatchObject({ plan: { id: "plus" }, billing_cycle: "yearly" });
    const sent = await changeSent(id);
    expect(sent?.params).toMatchObject({
      proration_behavior: "create_prorations",
      "metadata[plan_id]": "plus",
      "metadata[billing_cycle]": "yearly",
    });
    expect((await standInSubscription(id)).items.data[0]!.price).toMatchObject({
      unit_amount: 7999,
      recurring: { interval: "year" },
    });
    expect((await memberPerks(env, m.id)).incognito).toBe(true);

    await deliverSubscriptionEvent(id);
    expect(await current(m)).toMatchObject({ plan: { id: "plus" }, billing_cycle: "yearly" });
    expect(await memberPerks(env, m.id)).toMatchObject({
      subscribed: true,
      dailyLikes: 150,
      advancedSearch: true,
      incognito: false,
    });
  });

  it("a change of cycle starts a new period now (Stripe resets the anchor) and is invoiced at once", async () => {
    const { m, id } = await stripeSubscriber("premium", "monthly");
    const res = await change(m, "premium", "yearly");
    expect(res.status).toBe(200);
    const end = Date.parse(res.body.subscription.current_period_end);
    expect(end - Date.now()).toBeGreaterThan(364 * DAY);
    expect(end - Date.now()).toBeLessThan(367 * DAY);
    expect((await changeSent(id))?.params.proration_behavior).toBe("always_invoice");

    await deliverSubscriptionEvent(id);
    expect(await current(m)).toMatchObject({
      plan: { id: "premium" },
      billing_cycle: "yearly",
      current_period_end: res.body.subscription.current_period_end,
    });
  });

  it("a subscription set to end with its period is resumed by a change", async () => {
    const { m, id } = await stripeSubscriber("plus", "monthly");
    const cancel = await withStripe(m.client, "DELETE", "/my/subscription", { reason: "Too much" });
    expect(cancel.status).toBe(200);
    await deliverSubscriptionEvent(id);
    expect((await current(m))?.status).toBe("cancelled");

    const res = await change(m, "premium", "monthly");
    expect(res.status).toBe(200);
    expect(res.body.subscription).toMatchObject({ status: "active", cancelled_at: null });
    expect((await changeSent(id))?.params.cancel_at_period_end).toBe("false");
    await deliverSubscriptionEvent(id);
    expect(await current(m)).toMatchObject({
      status: "active",
      plan: { id: "premium" },
      cancelled_at: null,
    });
  });

  it("the estimate takes the credit the customer holds at Stripe first, as Stripe's invoice will", async () => {
    const { m } = await stripeSubscriber("plus", "monthly");
    const premium = async () =>
      (await planChangeQuotes(stripeEnv(), m.id)).find(
        (q) => q.plan_id === "premium" && q.billing_cycle === "monthly",
      )!;
    const before = await premium();
    const total = before.charge_cents - before.credit_cents;
    expect(total).toBeGreaterThan(500);
    expect(before.due_now_cents).toBe(total);

    // An earlier downgrade left $5.00 of credit on the customer (a negative balance at Stripe).
    await fetch(`${env.STRIPE_API_BASE}/__customers/cus_${m.id}`, {
      method: "POST",
      body: JSON.stringify({ balance: -500 }),
    });
    expect((await premium()).due_now_cents).toBe(total - 500);
    expect(
      (await standInRequests()).some(
        (r) => r.method === "GET" && r.path === `/v1/customers/cus_${m.id}`,
      ),
    ).toBe(true);

    // More credit than the change costs: nothing to pay now.
    await fetch(`${env.STRIPE_API_BASE}/__customers/cus_${m.id}`, {
      method: "POST",
      body: JSON.stringify({ balance: -5000 }),
    });
    expect((await premium()).due_now_cents).toBe(0);
  });

  it("a subscription Stripe no longer has: 409, and nothing changes", async () => {
    const m = await member();
    const id = `sub_gone_${m.id}`;
    const now = unix(Date.now());
    await deliver({
      type: "customer.subscription.created",
      created: now - 5,
      data: {
        object: {
          id,
          object: "subscription",
          status: "active",
          cancel_at_period_end: false,
          metadata: { user_id: m.id, plan_id: "plus", billing_cycle: "monthly" },
          items: {
            object: "list",
            data: [{ current_period_start: now - 86_400, current_period_end: now + 86_400 * 29 }],
          },
        },
      },
    });
    expect((await current(m))?.plan.id).toBe("plus");
    const res = await change(m, "premium", "monthly");
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(
      "You have no subscription to change. Choose a plan to subscribe.",
    );
    expect((await current(m))?.plan.id).toBe("plus");
    expect(await changeSent(id)).toBeUndefined();
  });
});

describe("the Stripe stand-in checks a plan change as Stripe does", () => {
  const post = async (path: string, params: Record<string, string>) => {
    const res = await fetch(`${env.STRIPE_API_BASE}${path}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "Idempotency-Key": `test-${crypto.randomUUID()}`,
      },
      body: new URLSearchParams(params),
    });
    return {
      status: res.status,
      body: (await res.json()) as { error?: { message: string; param?: string } },
    };
  };

  it("unknown subscription 404; no item, another item or an unknown price 400", async () => {
    const id = `sub_checks_${crypto.randomUUID()}`;
    const now = unix(Date.now());
    const sub = await putStandInSubscription({
      id,
      price: { unit_amount: 999, currency: "usd", interval: "month" },
      metadata: {},
      current_period_start: now,
      current_period_end: now + 30 * 86_400,
    });
    const item = sub.items.data[0]!;
    const price = item.price.id;

    const unknown = await post(`/v1/subscriptions/sub_nobody_${crypto.randomUUID()}`, {
      "items[0][id]": item.id,
      "items[0][price]": price,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.message).toMatch(/^No such subscription/);

    const noItem = await post(`/v1/subscriptions/${id}`, { "items[0][price]": price });
    expect(noItem.status).toBe(400);
    expect(noItem.body.error?.param).toBe("items[0][id]");

    const otherItem = await post(`/v1/subscriptions/${id}`, {
      "items[0][id]": "si_other",
      "items[0][price]": price,
    });
    expect(otherItem.status).toBe(400);
    expect(otherItem.body.error?.message).toBe("No such subscription item: 'si_other'");

    const noPrice = await post(`/v1/subscriptions/${id}`, {
      "items[0][id]": item.id,
      "items[0][price]": "price_does_not_exist",
    });
    expect(noPrice.status).toBe(400);
    expect(noPrice.body.error).toMatchObject({
      message: "No such price: 'price_does_not_exist'",
      param: "items[0][price]",
    });

    const badProration = await post(`/v1/subscriptions/${id}`, {
      "items[0][id]": item.id,
      "items[0][price]": price,
      proration_behavior: "sometimes",
    });
    expect(badProration.status).toBe(400);
    // Nothing of the refused calls changed it.
    expect((await standInSubscription(id)).items.data[0]!.price.id).toBe(price);
  });
});

/** Sets the member's test-provider period so that a third of it has run (30 days, 20 to go). */
async function twoThirdsLeft(userId: string) {
  const now = Date.now();
  const start = iso(now - 10 * DAY);
  const end = iso(now + 20 * DAY);
  await env.DB.prepare(
    "UPDATE subscriptions SET current_period_start = ?2, current_period_end = ?3, billing_anchor = ?2 WHERE user_id = ?1",
  )
    .bind(userId, start, end)
    .run();
  return { start, end };
}

async function paymentsOf(m: Member) {
  const res = await m.client.json<{
    payments: {
      kind: string;
      description: string;
      amount_cents: number;
      status: string;
    }[];
  }>("GET", "/my/payments");
  return res.body.payments;
}

async function subscriptionRow(userId: string) {
  return env.DB.prepare(
    "SELECT plan_id, billing_cycle, status, price_cents, credit_cents, current_period_start, current_period_end, billing_anchor FROM subscriptions WHERE user_id = ?1",
  )
    .bind(userId)
    .first<{
      plan_id: string;
      billing_cycle: string;
      status: string;
      price_cents: number;
      credit_cents: number;
      current_period_start: string;
      current_period_end: string;
      billing_anchor: string;
    }>();
}

async function put(m: Member, plan_id: string, billing_cycle: string) {
  return m.client.json<{ subscription: SubscriptionView }>("PUT", "/my/subscription", {
    plan_id,
    billing_cycle,
  });
}

describe("changing plan with the test provider", () => {
  it("upgrade: changed at once, the proration charged and shown on the receipts", async () => {
    const m = await member();
    await subscribeTo(m.client, "plus");
    const { end } = await twoThirdsLeft(m.id);

    const res = await put(m, "premium", "monthly");
    expect(res.status).toBe(200);
    expect(res.body.subscription).toMatchObject({
      status: "active",
      plan: { id: "premium" },
      billing_cycle: "monthly",
      current_period_end: end,
    });
    expect(await current(m)).toEqual(res.body.subscription);
    expect(await subscriptionRow(m.id)).toMatchObject({
      plan_id: "premium",
      price_cents: 1999,
      credit_cents: 0,
      current_period_end: end,
    });
    expect(await memberPerks(env, m.id)).toMatchObject({ dailyLikes: 500, incognito: true });

    // Stripe's proration: 2/3 of Plus's $9.99 credited (6.66), 2/3 of Premium's $19.99 charged
    // (13.33): $6.67 now.
    const [latest, first] = await paymentsOf(m);
    expect(latest).toMatchObject({ kind: "subscription", amount_cents: 667, status: "paid" });
    expect(latest!.description).toMatch(/^Plan change to Premium \(monthly\), prorated\. /);
    expect(latest!.description).toMatch(/Unused time on Plus \(monthly\) after [^:]+: -\$6\.66/);
    expect(latest!.description).toMatch(
      /Remaining time on Premium \(monthly\) after [^:]+: \$13\.33/,
    );
    expect(first).toMatchObject({ amount_cents: 999, description: "Plus subscription (monthly)" });
    const stored = await env.DB.prepare(
      "SELECT purpose, lines FROM payments WHERE user_id = ?1 AND purpose = 'change'",
    )
      .bind(m.id)
      .first<{ purpose: string; lines: string }>();
    const lines = JSON.parse(stored!.lines) as { amount_cents: number }[];
    expect(lines.map((l) => l.amount_cents)).toEqual([-666, 1333]);
    expect((await activitiesOf(m.id)).at(-1)).toMatchObject({
      type: "subscription_changed",
      data: { plan: "Premium", billing_cycle: "monthly", from_plan: "Plus" },
    });
  });

  it("downgrade: nothing to pay now, the difference kept as credit for the next payments", async () => {
    const m = await member();
    await subscribeTo(m.client, "premium");
    await twoThirdsLeft(m.id);

    const res = await put(m, "plus", "monthly");
    expect(res.status).toBe(200);
    expect(res.body.subscription.plan.id).toBe("plus");
    expect(await subscriptionRow(m.id)).toMatchObject({
      plan_id: "plus",
      price_cents: 999,
      credit_cents: 667,
    });
    expect(await memberPerks(env, m.id)).toMatchObject({ dailyLikes: 150, incognito: false });
    const [latest] = await paymentsOf(m);
    expect(latest).toMatchObject({ amount_cents: 0, status: "paid" });
    expect(latest!.description).toMatch(
      /Unused time on Premium \(monthly\) after [^:]+: -\$13\.33/,
    );
    expect(latest!.description).toMatch(/Remaining time on Plus \(monthly\) after [^:]+: \$6\.66/);
    expect(latest!.description).toContain("Kept as credit for your next payments: $6.67");

    // Back up: the credit held pays for part of it.
    const up = await put(m, "premium", "monthly");
    expect(up.status).toBe(200);
    const [again] = await paymentsOf(m);
    // 13.33 for the rest of the period − 6.66 unused Plus = 6.67, all paid from the credit.
    expect(again).toMatchObject({ amount_cents: 0 });
    expect(again!.description).toContain("Credit applied: -$6.67");
    expect((await subscriptionRow(m.id))?.credit_cents).toBe(0);
  });

  it("a change of cycle starts a new period now: the new price in full, less the unused time", async () => {
    const m = await member();
    await subscribeTo(m.client, "plus");
    await twoThirdsLeft(m.id);
    const before = Date.now();

    const res = await put(m, "plus", "yearly");
    expect(res.status).toBe(200);
    const row = await subscriptionRow(m.id);
    expect(row).toMatchObject({ plan_id: "plus", billing_cycle: "yearly", price_cents: 7999 });
    expect(Date.parse(row!.current_period_start)).toBeGreaterThanOrEqual(before - 1000);
    expect(row!.billing_anchor).toBe(row!.current_period_start);
    const length = Date.parse(row!.current_period_end) - Date.parse(row!.current_period_start);
    expect(length).toBeGreaterThanOrEqual(365 * DAY);
    expect(length).toBeLessThanOrEqual(366 * DAY);
    expect(res.body.subscription.current_period_end).toBe(row!.current_period_end);
    const [latest] = await paymentsOf(m);
    expect(latest).toMatchObject({ amount_cents: 7999 - 666 });
    expect(latest!.description).toMatch(/Plus \(yearly\), [^:]+ to [^:]+: \$79\.99/);
  });

  it("a subscription cancelled at its period end is resumed by a change", async () => {
    const m = await member();
    await subscribeTo(m.client, "plus");
    await m.client.json("DELETE", "/my/subscription", { reason: "Too pricey" });
    expect((await current(m))?.status).toBe("cancelled");
    const res = await put(m, "premium", "monthly");
    expect(res.status).toBe(200);
    expect(res.body.subscription).toMatchObject({
      status: "active",
      cancelled_at: null,
      plan: { id: "premium" },
    });
    const row = await env.DB.prepare(
      "SELECT status, cancelled_at, cancel_reason FROM subscriptions WHERE user_id = ?1",
    )
      .bind(m.id)
      .first();
    expect(row).toEqual({ status: "active", cancelled_at: null, cancel_reason: null });
  });

  it("the same change twice at once is made once", async () => {
    const m = await member();
    await subscribeTo(m.client, "plus");
    await m.client.loadCsrfFromPage("/my/subscription");
    const answers = await Promise.all([put(m, "premium", "yearly"), put(m, "premium", "yearly")]);
    // The other finds it changed (409), or already changed (422: that is already the plan).
    expect(answers.every((a) => [200, 409, 422].includes(a.status))).toBe(true);
    expect(answers.some((a) => a.status === 200)).toBe(true);
    const changes = await env.DB.prepare(
      "SELECT count(*) AS n FROM payments WHERE user_id = ?1 AND purpose = 'change'",
    )
      .bind(m.id)
      .first<{ n: number }>();
    expect(changes?.n).toBe(1);
  });
});

describe("plan change errors", () => {
  it("no live subscription: 409 with a clear message (none, or one that ended)", async () => {
    const m = await member();
    const none = await put(m, "premium", "monthly");
    expect(none.status).toBe(409);
    expect(none.body).toEqual({
      message: "You have no subscription to change. Choose a plan to subscribe.",
    });

    await subscribeTo(m.client, "plus");
    await env.DB.prepare("UPDATE subscriptions SET current_period_end = ?2 WHERE user_id = ?1")
      .bind(m.id, iso(Date.now() - 1000))
      .run();
    expect((await put(m, "premium", "monthly")).status).toBe(409);
  });

  it("the same plan and cycle, a plan or cycle that does not exist: 422 with the schema's message", async () => {
    const m = await member();
    await subscribeTo(m.client, "plus");
    const same = await put(m, "plus", "monthly");
    expect(same.status).toBe(422);
    expect(same.body).toMatchObject({
      errors: { plan_id: ["That is already your plan and billing."] },
    });
    const gold = await put(m, "gold", "monthly");
    expect(gold.status).toBe(422);
    expect(gold.body).toMatchObject({ errors: { plan_id: ["Please choose a plan."] } });
    const weekly = await put(m, "premium", "weekly");
    expect(weekly.status).toBe(422);
    expect(weekly.body).toMatchObject({
      errors: { billing_cycle: ["Please choose monthly or yearly billing."] },
    });
    expect((await subscriptionRow(m.id))?.plan_id).toBe("plus");
    const changes = await env.DB.prepare(
      "SELECT count(*) AS n FROM payments WHERE user_id = ?1 AND purpose IS NOT NULL",
    )
      .bind(m.id)
      .first<{ n: number }>();
    expect(changes?.n).toBe(0);
  });

  it("past due: 409 until the card is fixed", async () => {
    const m = await member();
    await subscribeTo(m.client, "plus");
    await env.DB.prepare(
      "UPDATE subscriptions SET status = 'past_due', past_due_since = ?2 WHERE user_id = ?1",
    )
      .bind(m.id, iso(Date.now()))
      .run();
    const res = await put(m, "premium", "monthly");
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      message:
        "Your last payment failed. Update your card under Payments and receipts before changing plans.",
    });
  });

  it("needs a verified member and the page's CSRF token", async () => {
    const m = await member();
    await subscribeTo(m.client, "plus");
    const noToken = await m.client.json(
      "PUT",
      "/my/subscription",
      { plan_id: "premium", billing_cycle: "monthly" },
      { csrf: null },
    );
    expect(noToken.status).toBe(419);
    expect((await subscriptionRow(m.id))?.plan_id).toBe("plus");

    const unverified = await registerMember();
    const res = await unverified.client.json("PUT", "/my/subscription", {
      plan_id: "premium",
      billing_cycle: "monthly",
    });
    expect(res.status).toBe(403);
  });
});

describe("the subscription page's Change plan", () => {
  const html = async (m: Member, res?: Response) => {
    const page =
      res ?? (await m.client.fetch("/my/subscription", { headers: { Accept: "text/html" } }));
    return { status: page.status, text: (await page.text()).replaceAll("<!-- -->", "") };
  };

  it("shows each other plan with what it costs now, prorated; its form changes the plan", async () => {
    const m = await member();
    expect((await html(m)).text).not.toContain("Change plan");
    await subscribeTo(m.client, "plus");
    await twoThirdsLeft(m.id);
    const page = await html(m);
    expect(page.text).toContain("Change plan");
    expect(page.text).toContain("is prorated");
    for (const button of [
      "Change to Plus, yearly",
      "Change to Premium, monthly",
      "Change to Premium, yearly",
    ]) {
      expect(page.text).toContain(button);
    }
    expect(page.text).not.toContain("Change to Plus, monthly");
    expect(page.text).toContain(
      "Pay $6.67 now: $13.33 for the rest of this period, less $6.66 for the unused part of your plan.",
    );

    await m.client.loadCsrfFromPage("/my/subscription");
    const done = await html(
      m,
      await m.client.form("/my/subscription", { plan_id: "premium", billing_cycle: "monthly" }),
    );
    expect(done.status).toBe(200);
    expect(done.text).toContain("Your plan is now Premium (monthly).");
    expect((await subscriptionRow(m.id))?.plan_id).toBe("premium");
    expect(await html(m)).toMatchObject({ text: expect.stringContaining("Nothing to pay now") });

    const same = await html(
      m,
      await m.client.form("/my/subscription", { plan_id: "premium", billing_cycle: "monthly" }),
    );
    expect(same.status).toBe(422);
    expect(same.text).toContain("That is already your plan and billing.");
  });
});
