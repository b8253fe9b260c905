import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { memberPerks, PAST_DUE_GRACE_DAYS, RENEWAL_GRACE_MS } from "~/server/subscriptions.server";
import {
  activitiesOf,
  deliver as deliverSigned,
  eventId,
  standInRequests,
  subscribeTo,
  verifiedMember,
  withStripe,
  type Member,
  completeSubscriptionCheckout,
} from "./helpers";

const DAY = 86_400_000;
const near = (iso: unknown, ms: number, slack = 60_000) =>
  Math.abs(Date.parse(String(iso)) - ms) < slack;

async function status(member: Member) {
  return member.client.json<{
    currentSubscription: {
      status: string;
      plan: { id: string };
      billing_cycle: string;
      current_period_end: string;
      cancelled_at: string | null;
    } | null;
    plans: unknown[];
  }>("GET", "/my/subscription/status");
}

describe("subscriptions through the test provider", () => {
  it("lists the plans; a new member has none", async () => {
    const member = await verifiedMember();
    const res = await status(member);
    expect(res.status).toBe(200);
    expect(res.body.currentSubscription).toBeNull();
    expect(res.body.plans).toEqual([
      {
        id: "plus",
        name: "Plus",
        price_monthly_cents: 999,
        price_yearly_cents: 7999,
        currency: "usd",
        perks: ["150 likes a day", "Advanced search filters"],
      },
      {
        id: "premium",
        name: "Premium",
        price_monthly_cents: 1999,
        price_yearly_cents: 15999,
        currency: "usd",
        perks: ["500 likes a day", "Advanced search filters", "Incognito browsing"],
      },
    ]);
  });

  it("create: active at once for a month (201); a second one is 409; bad input is 422", async () => {
    const member = await verifiedMember();
    const now = Date.now();
    const sub = await subscribeTo(member.client, "plus");
    expect(sub).toMatchObject({ status: "active", billing_cycle: "monthly", cancelled_at: null });
    expect((sub.plan as { id: string }).id).toBe("plus");
    const end = Date.parse(String(sub.current_period_end));
    expect(end - now).toBeGreaterThanOrEqual(28 * DAY - 60_000);
    expect(end - now).toBeLessThanOrEqual(31 * DAY + 60_000);
    expect((await status(member)).body.currentSubscription).toEqual(sub);

    const again = await member.client.json("POST", "/my/subscription", {
      plan_id: "premium",
      billing_cycle: "monthly",
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: "You already have a subscription." });

    const other = await verifiedMember();
    const badPlan = await other.client.json("POST", "/my/subscription", {
      plan_id: "gold",
      billing_cycle: "monthly",
    });
    expect(badPlan.status).toBe(422);
    expect(badPlan.body).toMatchObject({ errors: { plan_id: ["Please choose a plan."] } });
    const badCycle = await other.client.json("POST", "/my/subscription", {
      plan_id: "plus",
      billing_cycle: "weekly",
    });
    expect(badCycle.body).toMatchObject({
      errors: { billing_cycle: ["Please choose monthly or yearly billing."] },
    });
    expect((await status(other)).body.currentSubscription).toBeNull();
    expect((await activitiesOf(member.id)).map((a) => [a.type, a.data.plan])).toEqual([
      ["subscription_started", "Plus"],
    ]);
  });

  it("yearly billing runs for a year", async () => {
    const member = await verifiedMember();
    const sub = await subscribeTo(member.client, "premium", "yearly");
    const end = Date.parse(String(sub.current_period_end));
    expect(end - Date.now()).toBeGreaterThan(364 * DAY);
    expect(end - Date.now()).toBeLessThan(367 * DAY);
  });

  it("cancel: needs a reason; cancelled now, perks until the period end, then free", async () => {
    const member = await verifiedMember();
    const sub = await subscribeTo(member.client, "plus");

    const noReason = await member.client.json("DELETE", "/my/subscription", { reason: " " });
    expect(noReason.status).toBe(422);
    expect(noReason.body).toMatchObject({
      errors: { reason: ["Please tell us why you are cancelling."] },
    });
    const hostile = await member.client.json("DELETE", "/my/subscription", {
      reason: "Too pricey \u202Egnp.exe\u001b[31m",
    });
    expect(hostile.status).toBe(422);
    expect(hostile.body).toMatchObject({
      errors: { reason: ["This text contains characters that are not allowed."] },
    });

    const cancelled = await member.client.json<{ subscription: Record<string, unknown> }>(
      "DELETE",
      "/my/subscription",
      { reason: "Met someone here" },
    );
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.subscription).toMatchObject({
      status: "cancelled",
      current_period_end: sub.current_period_end,
    });
    expect(near(cancelled.body.subscription.cancelled_at, Date.now())).toBe(true);
    expect((await status(member)).body.currentSubscription?.status).toBe("cancelled");
    expect((await memberPerks(env, member.id)).subscribed).toBe(true);
    expect(
      (await member.client.json("DELETE", "/my/subscription", { reason: "again" })).status,
    ).toBe(409);
    const row = await env.DB.prepare("SELECT cancel_reason FROM subscriptions WHERE user_id = ?1")
      .bind(member.id)
      .first<{ cancel_reason: string }>();
    expect(row?.cancel_reason).toBe("Met someone here");

    // The period ends: nothing renewed, the member is free again (computed on read).
    await env.DB.prepare("UPDATE subscriptions SET current_period_end = ?2 WHERE user_id = ?1")
      .bind(member.id, new Date(Date.now() - 1000).toISOString())
      .run();
    expect((await status(member)).body.currentSubscription).toBeNull();
    expect(await memberPerks(env, member.id)).toMatchObject({
      subscribed: false,
      incognito: false,
    });
    // And may subscribe again.
    expect((await subscribeTo(member.client, "premium")).status).toBe("active");
    expect((await activitiesOf(member.id)).map((a) => a.type)).toEqual([
      "subscription_started",
      "subscription_cancelled",
      "subscription_started",
    ]);
  });

  it("a renewing subscription keeps counting while its renewal is not heard, and ends when it never is", async () => {
    const member = await verifiedMember();
    await subscribeTo(member.client, "plus");
    expect((await member.client.json("DELETE", "/my/subscription", {})).status).toBe(422);
    const periodEnded = (msAgo: number) =>
      env.DB.prepare("UPDATE subscriptions SET current_period_end = ?2 WHERE user_id = ?1")
        .bind(member.id, new Date(Date.now() - msAgo).toISOString())
        .run();
    const likesADay = async () => (await memberPerks(env, member.id)).dailyLikes;
    const plusLikes = await likesADay();
    expect(plusLikes).not.toBeNull();

    // The period ended an hour ago and no renewal was heard yet: still subscribed, perks and
    // all, and a second subscription is refused (it would be billed twice).
    await periodEnded(3_600_000);
    expect((await status(member)).body.currentSubscription?.status).toBe("active");
    expect(await likesADay()).toBe(plusLikes);
    const page = await member.client.fetch("/my/subscription", {
      headers: { Accept: "text/html" },
    });
    expect(await page.text()).toContain(
      "Renewing now: your perks continue while the payment goes through.",
    );
    expect(
      (
        await member.client.json("POST", "/my/subscription", {
          plan_id: "plus",
          billing_cycle: "monthly",
        })
      ).status,
    ).toBe(409);
    // A plan change waits for the renewal (its proration needs a running period).
    const change = await member.client.json("PUT", "/my/subscription", {
      plan_id: "premium",
      billing_cycle: "monthly",
    });
    expect(change.status).toBe(409);

    // Never heard: past the grace it is over, perks and all.
    await periodEnded(RENEWAL_GRACE_MS + 1);
    expect((await status(member)).body.currentSubscription).toBeNull();
    expect(await likesADay()).toBeNull();
    const cancel = await member.client.json("DELETE", "/my/subscription", { reason: "x" });
    expect(cancel.status).toBe(409);
  });
});

const unix = (ms: number) => Math.floor(ms / 1000);

function stripeSubscription(
  member: Member,
  id: string,
  fields: { start: number; end: number; status?: string; cancel_at_period_end?: boolean },
) {
  return {
    id,
    object: "subscription",
    status: fields.status ?? "active",
    cancel_at_period_end: fields.cancel_at_period_end ?? false,
    cancel_at: null,
    canceled_at: fields.cancel_at_period_end ? unix(Date.now()) : null,
    ended_at: null,
    start_date: fields.start,
    metadata: { user_id: member.id, plan_id: "premium", billing_cycle: "monthly" },
    items: {
      object: "list",
      data: [{ current_period_start: fields.start, current_period_end: fields.end }],
    },
  };
}

async function deliver(event: {
  id?: string;
  type: string;
  created?: number;
  data: { object: Record<string, unknown> };
}) {
  expect((await deliverSigned(event)).status).toBe(200);
}

describe("subscriptions through Stripe", () => {
  it("checkout, each webhook kind, cancel at period end, out-of-order events", async () => {
    const member = await verifiedMember();
    const res = await withStripe<{ checkout_url: string }>(
      member.client,
      "POST",
      "/my/subscription",
      {
        plan_id: "premium",
        billing_cycle: "monthly",
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    const sent = (await standInRequests()).find(
      (r) => r.path === "/v1/checkout/sessions" && r.params["metadata[user_id]"] === member.id,
    );
    expect(sent!.params).toMatchObject({
      mode: "subscription",
      "line_items[0][price_data][unit_amount]": "1999",
      "line_items[0][price_data][currency]": "usd",
      "line_items[0][price_data][recurring][interval]": "month",
      "line_items[0][price_data][product_data][name]": "Premium (monthly)",
      "metadata[kind]": "subscription",
      "metadata[plan_id]": "premium",
      "metadata[billing_cycle]": "monthly",
      "subscription_data[metadata][user_id]": member.id,
      "subscription_data[metadata][plan_id]": "premium",
      success_url: "http://localhost/my/subscription/success?session_id={CHECKOUT_SESSION_ID}",
      cancel_url: "http://localhost/my/subscription/cancel",
    });
    // Nothing yet: Checkout has not completed.
    expect((await status(member)).body.currentSubscription).toBeNull();

    const subId = `sub_${member.id}`;
    const t0 = unix(Date.now());

    // checkout.session.completed (mode subscription): subscribed at once.
    expect(
      (await completeSubscriptionCheckout(member, { subscription: subId, created: t0 })).status,
    ).toBe(200);
    let current = (await status(member)).body.currentSubscription;
    expect(current).toMatchObject({ status: "active", billing_cycle: "monthly" });
    expect(current!.plan.id).toBe("premium");
    expect((await memberPerks(env, member.id)).incognito).toBe(true);

    // customer.subscription.updated: Stripe's own period wins.
    const periodEnd = t0 + 30 * 86_400;
    const updated = {
      id: eventId(),
      type: "customer.subscription.updated",
      created: t0 + 5,
      data: { object: stripeSubscription(member, subId, { start: t0, end: periodEnd }) },
    };
    await deliver(updated);
    current = (await status(member)).body.currentSubscription;
    expect(current!.current_period_end).toBe(new Date(periodEnd * 1000).toISOString());

    // Cancel from the app: Stripe is told to end it with the period; cancelled here at once.
    const cancel = await withStripe<{ subscription: { status: string } }>(
      member.client,
      "DELETE",
      "/my/subscription",
      { reason: "Too expensive" },
    );
    expect(cancel.status).toBe(200);
    expect(cancel.body.subscription.status).toBe("cancelled");
    const update = (await standInRequests()).find((r) => r.path === `/v1/subscriptions/${subId}`);
    expect(update?.method).toBe("POST");
    expect(update?.params).toMatchObject({
      cancel_at_period_end: "true",
      "cancellation_details[comment]": "Too expensive",
    });

    // Stripe confirms; then an older update (sent before, arriving late) changes nothing.
    await deliver({
      type: "customer.subscription.updated",
      created: t0 + 20,
      data: {
        object: stripeSubscription(member, subId, {
          start: t0,
          end: periodEnd,
          cancel_at_period_end: true,
        }),
      },
    });
    await deliver({
      type: "customer.subscription.updated",
      created: t0 + 10,
      data: { object: stripeSubscription(member, subId, { start: t0, end: periodEnd }) },
    });
    // The first update replayed: stored by id, not applied again.
    await deliver(updated);
    expect((await status(member)).body.currentSubscription).toMatchObject({
      status: "cancelled",
      current_period_end: new Date(periodEnd * 1000).toISOString(),
    });

    // invoice.payment_failed: past due; the perks last through the grace period (ADR 019), then end.
    await deliver({
      type: "invoice.payment_failed",
      created: t0 + 30,
      data: {
        object: {
          id: "in_failed",
          object: "invoice",
          parent: { type: "subscription_details", subscription_details: { subscription: subId } },
        },
      },
    });
    expect((await status(member)).body.currentSubscription?.status).toBe("past_due");
    expect((await memberPerks(env, member.id)).subscribed).toBe(true);
    const graceOver = (t0 + 30) * 1000 + PAST_DUE_GRACE_DAYS * DAY + 1000;
    expect((await memberPerks(env, member.id, graceOver - 2000)).subscribed).toBe(true);
    expect((await memberPerks(env, member.id, graceOver)).subscribed).toBe(false);

    // customer.subscription.deleted: back to free.
    await deliver({
      type: "customer.subscription.deleted",
      created: t0 + 40,
      data: {
        object: stripeSubscription(member, subId, { start: t0, end: t0 + 40, status: "canceled" }),
      },
    });
    expect((await status(member)).body.currentSubscription).toBeNull();
    expect(await memberPerks(env, member.id)).toMatchObject({ subscribed: false });
    expect((await activitiesOf(member.id)).map((a) => [a.type, a.data.status])).toEqual([
      ["subscription_started", "active"],
      ["subscription_cancelled", "cancelled"],
      ["subscription_changed", "past_due"],
      ["subscription_changed", "expired"],
    ]);
  });

  it("a subscription event that arrives before checkout completes starts it with Stripe's period", async () => {
    const member = await verifiedMember();
    const t0 = unix(Date.now());
    const subId = `sub_early_${member.id}`;
    await deliver({
      type: "customer.subscription.created",
      created: t0,
      data: { object: stripeSubscription(member, subId, { start: t0, end: t0 + 31 * 86_400 }) },
    });
    expect((await status(member)).body.currentSubscription).toMatchObject({
      status: "active",
      current_period_end: new Date((t0 + 31 * 86_400) * 1000).toISOString(),
    });
  });
});
