import { sql } from "drizzle-orm";
import type Stripe from "stripe";
import {
  PAST_DUE_GRACE_DAYS,
  SUBSCRIPTION_MESSAGES,
  type BillingCycle,
  type CurrentSubscription,
  type Plan,
  type SubscriptionStatus,
} from "~/schemas/subscription";
import { activityStatement, recordActivity } from "./activities.server";
import { newId } from "./crypto.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { HttpError, ValidationError } from "./errors.server";
import {
  cancelStripeSubscriptionAtPeriodEnd,
  cancelStripeSubscriptionNow,
  createCheckoutSession,
  expireCheckoutSession,
  invoicePaymentIntent,
  paymentProvider,
  refOf,
  refundPaymentIntent,
} from "./payments.server";
import { plans, subscriptions } from "./db/money";
import { all, allOf, first, firstOf, run, selection, statement } from "./sql.server";
import { memberExists } from "./visibility.server";

/**
 * Subscriptions: the plans on sale, a member's subscription and the perks it gives. A member holds
 * at most one subscription row. It gives its plan's perks while its status is `active` or
 * `cancelled` and its period has not ended; after the period end the member is back to free,
 * computed on read (no job needs to run). The test provider starts a period of one month or one
 * year at once, and renews it at its end from the Cron Trigger as Stripe renews its own
 * (plan-changes.server.ts, which also changes plans in place); with Stripe, Checkout starts it and
 * Stripe's webhooks keep it true.
 */

/** A plan as the API shows it (`perks` read from its JSON). */
const planColumns = {
  id: plans.id,
  name: plans.name,
  price_monthly_cents: plans.priceMonthlyCents,
  price_yearly_cents: plans.priceYearlyCents,
  currency: plans.currency,
  perks: plans.perks,
};
const planFields = selection(planColumns);

type PlanRow = ReturnType<typeof planFields.read>;

export const toPlan = (row: PlanRow): Plan => ({
  id: row.id,
  name: row.name,
  price_monthly_cents: row.price_monthly_cents,
  price_yearly_cents: row.price_yearly_cents,
  currency: row.currency,
  perks: row.perks,
});

export async function listPlans(env: Env): Promise<Plan[]> {
  const results = await allOf(
    env.DB,
    planFields,
    sql`SELECT ${planFields.sql} FROM plans WHERE active = 1 ORDER BY position, id`,
  );
  return results.map(toPlan);
}

/** A member's subscription row and its plan. */
const subscriptionFields = selection({
  ...planColumns,
  status: subscriptions.status,
  billing_cycle: subscriptions.billingCycle,
  provider: subscriptions.provider,
  provider_ref: subscriptions.providerRef,
  current_period_start: subscriptions.currentPeriodStart,
  current_period_end: subscriptions.currentPeriodEnd,
  cancelled_at: subscriptions.cancelledAt,
  price_cents: subscriptions.priceCents,
  billing_anchor: subscriptions.billingAnchor,
  credit_cents: subscriptions.creditCents,
});

export type SubscriptionRow = ReturnType<typeof subscriptionFields.read>;

export async function subscriptionRow(env: Env, userId: string) {
  return firstOf(
    env.DB,
    subscriptionFields,
    sql`SELECT ${subscriptionFields.sql}
     FROM subscriptions JOIN plans ON plans.id = subscriptions.plan_id
     WHERE subscriptions.user_id = ${userId}`,
  );
}

/**
 * How long a renewing (active) subscription whose period ended still counts while the provider
 * has not said how its renewal went (Stripe's webhook, the test provider's cron; docs/decisions/036):
 * a member is never downgraded for the minutes or hours a renewal takes to be heard. A renewal
 * that fails says so (past due, with its own grace); one never heard ends here, and housekeeping
 * marks it expired.
 */
export const RENEWAL_GRACE_MS = 3 * 86_400_000;

/** Whether a stored subscription's period is running (plan changes and quotes need one). */
export const withinPeriod = (
  row: Pick<SubscriptionRow, "status" | "current_period_end">,
  now: number,
) => row.status !== "expired" && Date.parse(row.current_period_end) > now;

/**
 * Whether a stored subscription still counts: it was not ended, and its period has not ended, or
 * it renews and its renewal is not heard yet (RENEWAL_GRACE_MS).
 */
export const isCurrent = (
  row: Pick<SubscriptionRow, "status" | "current_period_end">,
  now: number,
) =>
  withinPeriod(row, now) ||
  (row.status === "active" && Date.parse(row.current_period_end) > now - RENEWAL_GRACE_MS);

/** The same as SQL on `subscriptions`: its period is over (and a renewal not heard is given up). */
const periodOver = (now: number) => sql`(subscriptions.current_period_end <= ${nowIso(now)}
  AND (subscriptions.status <> 'active'
    OR subscriptions.current_period_end <= ${nowIso(now - RENEWAL_GRACE_MS)}))`;

export function toCurrent(row: SubscriptionRow): CurrentSubscription {
  return {
    status: row.status as SubscriptionStatus,
    plan: toPlan(row),
    billing_cycle: row.billing_cycle,
    current_period_end: row.current_period_end,
    cancelled_at: row.cancelled_at,
  };
}

/** The member's subscription, or null when they have none or it has ended (free). */
export async function currentSubscription(
  env: Env,
  userId: string,
  now = Date.now(),
): Promise<CurrentSubscription | null> {
  const row = await subscriptionRow(env, userId);
  return row && isCurrent(row, now) ? toCurrent(row) : null;
}

/** GET /my/subscription/status. */
export async function subscriptionStatus(env: Env, userId: string, now = Date.now()) {
  const [currentSubscription_, plans] = await Promise.all([
    currentSubscription(env, userId, now),
    listPlans(env),
  ]);
  return { currentSubscription: currentSubscription_, plans };
}

// Perks

export interface Perks {
  subscribed: boolean;
  /** Likes a day; null: the free limit. */
  dailyLikes: number | null;
  advancedSearch: boolean;
  incognito: boolean;
}

const FREE: Perks = {
  subscribed: false,
  dailyLikes: null,
  advancedSearch: false,
  incognito: false,
};

/** A plan's perks as the server enforces them. */
const perkFields = selection({
  dailyLikes: plans.dailyLikes,
  advancedSearch: plans.advancedSearch,
  incognito: plans.incognito,
});

export { PAST_DUE_GRACE_DAYS };
const PAST_DUE_GRACE_MS = PAST_DUE_GRACE_DAYS * 86_400_000;

/**
 * Whether a stored subscription gives its perks at `now`: active or cancelled within its period,
 * or past due for less than the grace period (its period may have ended: the renewal is what
 * failed).
 */
const hasPerks = (now: number) => sql`(subscriptions.status IN ('active', 'cancelled')
    AND NOT ${periodOver(now)}
  OR subscriptions.status = 'past_due'
    AND subscriptions.past_due_since > ${nowIso(now - PAST_DUE_GRACE_MS)})`;

/** The perks a member has now: their plan's while it is active or cancelled within its period. */
export async function memberPerks(env: Env, userId: string, now = Date.now()): Promise<Perks> {
  const row = await firstOf(
    env.DB,
    perkFields,
    sql`SELECT ${perkFields.sql}
     FROM subscriptions JOIN plans ON plans.id = subscriptions.plan_id
     WHERE subscriptions.user_id = ${userId} AND ${hasPerks(now)}`,
  );
  if (!row) return FREE;
  return { subscribed: true, ...row };
}

/** Search: the advanced filters are a perk (403 with the reason otherwise). */
export async function assertSearchFiltersAllowed(
  env: Env,
  userId: string,
  advanced: boolean,
): Promise<void> {
  if (!advanced) return;
  if (!(await memberPerks(env, userId)).advancedSearch) {
    throw new HttpError(403, SUBSCRIPTION_MESSAGES.advancedFilters);
  }
}

// Subscribing and cancelling

/** A plan on sale (422 with the schema's message otherwise). */
export async function activePlan(env: Env, planId: string) {
  const row = await firstOf(
    env.DB,
    planFields,
    sql`SELECT ${planFields.sql} FROM plans WHERE id = ${planId} AND active = 1`,
  );
  if (!row) throw new ValidationError({ plan_id: [SUBSCRIPTION_MESSAGES.plan] });
  return row;
}

/**
 * The end of a period that starts at `from`: one calendar month or one year later (UTC); with
 * `count`, that many periods later, still on `from`'s day of the month (Stripe's billing cycle
 * anchor: 31 January → 28 February → 31 March).
 */
export function periodEnd(from: number, cycle: BillingCycle, count = 1): number {
  const d = new Date(from);
  const months = (cycle === "yearly" ? 12 : 1) * count;
  const target = new Date(
    Date.UTC(
      d.getUTCFullYear(),
      d.getUTCMonth() + months,
      1,
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds(),
    ),
  );
  // The same day of the month, or the month's last day (31 January → 28/29 February).
  const lastDay = new Date(
    Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0),
  ).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.getTime();
}

/** A member may subscribe when they hold no subscription, or it has ended or was cancelled. */
const maySubscribe = (now: number) => sql`subscriptions.status IN ('expired', 'cancelled')
  OR ${periodOver(now)}`;

/**
 * POST /my/subscription. The test provider starts the subscription at once: `{subscription}`. With
 * Stripe a Checkout Session in mode subscription opens, and the webhooks start it:
 * `{checkout_url}`. 409 while the member holds a subscription that renews.
 */
export async function subscribe(
  env: Env,
  user: { id: string; email: string },
  input: { plan_id: string; billing_cycle: BillingCycle },
  urls: { success: string; cancel: string },
  now = Date.now(),
): Promise<{ subscription: CurrentSubscription } | { checkout_url: string }> {
  const plan = await activePlan(env, input.plan_id);
  const existing = await subscriptionRow(env, user.id);
  if (existing && isCurrent(existing, now) && existing.status !== "cancelled") {
    throw new HttpError(409, SUBSCRIPTION_MESSAGES.alreadySubscribed);
  }
  const provider = paymentProvider(env);
  const cycle = input.billing_cycle;
  const amount = cycle === "yearly" ? plan.price_yearly_cents : plan.price_monthly_cents;
  const paymentId = newId();
  const payment = {
    id: paymentId,
    userId: user.id,
    planId: plan.id,
    cycle,
    amount,
    currency: plan.currency,
    provider,
  };

  if (provider === "stripe") {
    // One open checkout per member: a second attempt (another tab, a double click) answers the
    // first's page while it can still be paid; one past its expiry no longer counts.
    const open = await openCheckout(env, user.id, now);
    if (open) return { checkout_url: open };
    const session = await createCheckoutSession(env, {
      mode: "subscription",
      paymentId,
      userId: user.id,
      email: user.email,
      line: {
        name: `${plan.name} (${cycle})`,
        amountCents: amount,
        currency: plan.currency,
        interval: cycle === "yearly" ? "year" : "month",
      },
      metadata: { kind: "subscription", plan_id: plan.id, billing_cycle: cycle },
      successUrl: urls.success,
      cancelUrl: urls.cancel,
    });
    try {
      await insertPayment(env, {
        ...payment,
        ref: session.id,
        status: "pending",
        at: nowIso(now),
        checkout: { url: session.url, expiresAt: nowIso(now + CHECKOUT_OPEN_MS) },
      }).run();
    } catch (error) {
      // A concurrent attempt stored its checkout first: that one is the member's; ours closes.
      if (!String(error).includes("UNIQUE")) throw error;
      const first_ = await openCheckout(env, user.id, now);
      if (!first_) throw error;
      await expireCheckoutSession(env, session.id);
      return { checkout_url: first_ };
    }
    return { checkout_url: session.url };
  }

  const start = nowIso(now);
  const end = nowIso(periodEnd(now, cycle));
  const [stored] = await env.DB.batch<{ user_id: string }>([
    upsertSubscription(env, {
      userId: user.id,
      planId: plan.id,
      cycle,
      status: "active",
      provider: "test",
      ref: null,
      eventAt: null,
      start,
      end,
      now: start,
      priceCents: amount,
      onlyIfMaySubscribe: true,
    }),
    insertPayment(env, { ...payment, ref: null, status: "completed", at: start }),
    activityStatement(
      env,
      {
        userId: user.id,
        type: "subscription_started",
        data: { plan: plan.name, billing_cycle: cycle },
      },
      now,
    ),
  ]);
  if (!stored?.results.length) throw new HttpError(409, SUBSCRIPTION_MESSAGES.alreadySubscribed);
  const row = await subscriptionRow(env, user.id);
  return { subscription: toCurrent(row!) };
}

/**
 * How long a Checkout Session is answered again: Stripe's sessions expire after 24 hours; a little
 * less, so that a page answered again can still be paid.
 */
const CHECKOUT_OPEN_MS = 23 * 3_600_000;

/** The page of the member's open subscription checkout, after closing any that expired. */
async function openCheckout(env: Env, userId: string, now: number): Promise<string | null> {
  await run(
    env.DB,
    sql`UPDATE payments SET status = 'failed', checkout_url = NULL
     WHERE user_id = ${userId} AND kind = 'subscription' AND provider = 'stripe' AND status = 'pending'
       AND (checkout_expires_at IS NULL OR checkout_expires_at <= ${nowIso(now)})`,
  );
  const row = await first<{ checkout_url: string }>(
    env.DB,
    sql`SELECT checkout_url FROM payments
     WHERE user_id = ${userId} AND kind = 'subscription' AND provider = 'stripe' AND status = 'pending'
       AND checkout_url IS NOT NULL`,
  );
  return row?.checkout_url ?? null;
}

function insertPayment(
  env: Env,
  p: {
    id: string;
    userId: string;
    planId: string;
    cycle: BillingCycle;
    amount: number;
    currency: string;
    provider: "test" | "stripe";
    ref: string | null;
    status: "pending" | "completed";
    at: string;
    checkout?: { url: string; expiresAt: string };
  },
) {
  return statement(
    env.DB,
    sql`INSERT INTO payments (id, user_id, kind, plan_id, billing_cycle, amount_cents, currency,
       provider, provider_ref, status, created_at, completed_at, checkout_url, checkout_expires_at)
     VALUES (${p.id}, ${p.userId}, 'subscription', ${p.planId}, ${p.cycle}, ${p.amount}, ${p.currency}, ${p.provider}, ${p.ref}, ${p.status}, ${p.at},
       CASE WHEN ${p.status} = 'completed' THEN ${p.at} END, ${p.checkout?.url ?? null}, ${p.checkout?.expiresAt ?? null})`,
  );
}

interface SubscriptionWrite {
  userId: string;
  planId: string;
  cycle: BillingCycle;
  status: SubscriptionStatus | "expired";
  provider: "test" | "stripe";
  ref: string | null;
  eventAt: number | null;
  start: string;
  end: string;
  now: string;
  cancelledAt?: string | null;
  /** Test provider: what each period bills; the anchor is the start. */
  priceCents?: number | null;
  /** Only over a subscription that has ended or was cancelled (a new subscription). */
  onlyIfMaySubscribe?: boolean;
}

/** Writes the member's one subscription row (RETURNING user_id when it was written). */
function upsertSubscription(env: Env, w: SubscriptionWrite) {
  const price = w.priceCents ?? null;
  const anchor = price === null ? null : w.start;
  return statement(
    env.DB,
    sql`INSERT INTO subscriptions (user_id, plan_id, billing_cycle, status, provider, provider_ref,
       provider_event_at, current_period_start, current_period_end, cancelled_at, cancel_reason,
       created_at, updated_at, price_cents, billing_anchor)
     VALUES (${w.userId}, ${w.planId}, ${w.cycle}, ${w.status}, ${w.provider}, ${w.ref}, ${w.eventAt}, ${w.start}, ${w.end}, ${w.cancelledAt ?? null}, NULL, ${w.now}, ${w.now}, ${price}, ${anchor})
     ON CONFLICT (user_id) DO UPDATE SET plan_id = ${w.planId}, billing_cycle = ${w.cycle}, status = ${w.status},
       provider = ${w.provider}, provider_ref = ${w.ref}, provider_event_at = ${w.eventAt}, current_period_start = ${w.start},
       current_period_end = ${w.end}, cancelled_at = ${w.cancelledAt ?? null}, cancel_reason = NULL, updated_at = ${w.now},
       price_cents = ${price}, billing_anchor = ${anchor}
     WHERE ${w.onlyIfMaySubscribe ? maySubscribe(Date.parse(w.now)) : sql`1`}
     RETURNING user_id`,
  );
}

/**
 * DELETE /my/subscription: cancelled now, with the reason. Access continues to the end of the
 * period and nothing renews (with Stripe, the subscription is set to end with its period first).
 */
export async function cancelSubscription(
  env: Env,
  userId: string,
  reason: string,
  now = Date.now(),
): Promise<CurrentSubscription> {
  const row = await subscriptionRow(env, userId);
  if (!row || !isCurrent(row, now) || row.status === "cancelled") {
    throw new HttpError(409, SUBSCRIPTION_MESSAGES.notSubscribed);
  }
  if (row.provider === "stripe" && row.provider_ref) {
    await cancelStripeSubscriptionAtPeriodEnd(env, row.provider_ref, reason);
  }
  const at = nowIso(now);
  // Concurrent cancels: one update finds the subscription not cancelled yet; only it records
  // the activity (the activity's insert reads the row that update wrote, by its time).
  const activityId = newId();
  await env.DB.batch([
    statement(
      env.DB,
      sql`UPDATE subscriptions SET status = 'cancelled', cancelled_at = ${at}, cancel_reason = ${reason},
         updated_at = ${at}
       WHERE user_id = ${userId} AND status <> 'cancelled'`,
    ),
    statement(
      env.DB,
      sql`INSERT INTO activities (id, user_id, type, other_user_id, data, created_at, seq)
       SELECT ${activityId}, ${userId}, 'subscription_cancelled', NULL,
         ${JSON.stringify({ plan: row.name, reason, status: "cancelled" })}, ${at},
         (SELECT coalesce(max(seq), 0) + 1 FROM activities WHERE user_id = ${userId})
       WHERE changes() = 1`,
    ),
  ]);
  return toCurrent((await subscriptionRow(env, userId))!);
}

// Stripe's side of a subscription (from app/server/stripe-webhooks.server.ts)

const fromUnix = (seconds: number) => nowIso(seconds * 1000);

/** The status we keep for a Stripe subscription. */
export function statusOf(sub: Stripe.Subscription): SubscriptionStatus | "expired" {
  switch (sub.status) {
    case "active":
    case "trialing":
      return sub.cancel_at_period_end || sub.cancel_at ? "cancelled" : "active";
    case "past_due":
    case "unpaid":
      return "past_due";
    default:
      // canceled, incomplete, incomplete_expired, paused: no perks.
      return "expired";
  }
}

export function periodOf(sub: Stripe.Subscription, fallbackEnd: number) {
  const item = sub.items?.data?.[0];
  const start = item?.current_period_start ?? sub.start_date;
  const end = item?.current_period_end ?? fallbackEnd;
  return { start: fromUnix(start), end: fromUnix(end) };
}

/** What a Stripe event changes the activity by: the subscription as it was stored before. */
const storedFields = selection({
  status: subscriptions.status,
  plan_id: subscriptions.planId,
  billing_cycle: subscriptions.billingCycle,
  provider_ref: subscriptions.providerRef,
  cancelled_at: subscriptions.cancelledAt,
});

const planNameFields = selection({ name: plans.name });

/** What applying a Stripe event did: applied, or ignored and why (recorded with the event). */
export type EventResult = { outcome: "applied" } | { outcome: "ignored"; note: string };
export const APPLIED: EventResult = { outcome: "applied" };
export const ignored = (note: string): EventResult => ({ outcome: "ignored", note });

/** A Stripe subscription that still bills (or may). */
const isLiveAtStripe = (sub: Stripe.Subscription) =>
  ["active", "trialing", "past_due", "unpaid", "incomplete"].includes(sub.status);

/**
 * customer.subscription.created/updated/deleted: the member's subscription as Stripe has it now.
 * The member and plan come from the metadata Checkout put on it. An event older than the newest
 * applied (`provider_event_at`) changes nothing, so events arriving out of order are harmless.
 *
 * A subscription of a member who is gone (deleted, or never ours) is recorded as ignored, and
 * cancelled at Stripe if it still bills. A second live subscription of a member who holds one
 * (two tabs, two paid Checkout Sessions) is cancelled at Stripe at once and its payment refunded;
 * the member keeps the first.
 */
export async function applyStripeSubscription(
  env: Env,
  sub: Stripe.Subscription,
  eventCreated: number,
  deleted = false,
): Promise<EventResult> {
  const userId = sub.metadata?.user_id;
  const planId = sub.metadata?.plan_id;
  const cycle = sub.metadata?.billing_cycle === "yearly" ? "yearly" : "monthly";
  if (!sub.id || !userId || !planId) return ignored("subscription without our metadata");
  if (!(await memberExists(env, userId))) {
    if (!deleted && isLiveAtStripe(sub)) {
      // Started for an account deleted since (a checkout already in flight) or never ours: it
      // ends now, and what its first invoice took goes back.
      await cancelStripeSubscriptionNow(env, sub.id, "unknown-member");
      const invoice = refOf(sub.latest_invoice);
      const intent = invoice ? await invoicePaymentIntent(env, invoice) : null;
      if (intent) await refundPaymentIntent(env, intent, "account_deleted");
    }
    return ignored("unknown or deleted member");
  }
  const before = await firstOf(
    env.DB,
    storedFields,
    sql`SELECT ${storedFields.sql} FROM subscriptions WHERE user_id = ${userId}`,
  );
  const status = deleted ? "expired" : statusOf(sub);
  const period = periodOf(sub, sub.ended_at ?? eventCreated);
  const cancelledAt =
    status === "cancelled" || deleted
      ? (before?.cancelled_at ?? (sub.canceled_at ? fromUnix(sub.canceled_at) : nowIso()))
      : null;
  const at = nowIso();
  const customer = refOf(sub.customer);
  const pastDueSince = status === "past_due" ? fromUnix(eventCreated) : null;
  const written = await first(
    env.DB,
    sql`INSERT INTO subscriptions (user_id, plan_id, billing_cycle, status, provider, provider_ref,
       provider_event_at, current_period_start, current_period_end, cancelled_at, created_at,
       updated_at, customer_ref, past_due_since)
     VALUES (${userId}, ${planId}, ${cycle}, ${status}, 'stripe', ${sub.id}, ${eventCreated}, ${period.start}, ${period.end}, ${cancelledAt}, ${at}, ${at}, ${customer}, ${pastDueSince})
     ON CONFLICT (user_id) DO UPDATE SET plan_id = ${planId}, billing_cycle = ${cycle}, status = ${status},
       provider = 'stripe', provider_ref = ${sub.id}, provider_event_at = ${eventCreated}, current_period_start = ${period.start},
       current_period_end = ${period.end}, cancelled_at = ${cancelledAt}, updated_at = ${at},
       customer_ref = coalesce(${customer}, subscriptions.customer_ref),
       price_cents = NULL, billing_anchor = NULL,
       past_due_since = CASE WHEN ${status} = 'past_due'
         THEN coalesce(CASE WHEN subscriptions.status = 'past_due' THEN subscriptions.past_due_since END, ${pastDueSince})
         END
     WHERE subscriptions.provider_ref IS ${sub.id} AND coalesce(subscriptions.provider_event_at, 0) <= ${eventCreated}
        OR subscriptions.provider_ref IS NOT ${sub.id} AND (subscriptions.status IN ('expired', 'cancelled')
          OR ${periodOver(Date.parse(at))} OR subscriptions.provider = 'test')
     RETURNING user_id`,
  );
  if (!written) {
    if (before && before.provider_ref !== sub.id && !deleted && isLiveAtStripe(sub)) {
      return refuseSecondSubscription(env, userId, sub);
    }
    return ignored("older than the newest event applied");
  }
  const plan = await firstOf(
    env.DB,
    planNameFields,
    sql`SELECT ${planNameFields.sql} FROM plans WHERE id = ${planId}`,
  );
  const type =
    before?.provider_ref !== sub.id
      ? "subscription_started"
      : status === "cancelled" && before?.status !== "cancelled"
        ? "subscription_cancelled"
        : status !== before?.status || planId !== before?.plan_id || cycle !== before?.billing_cycle
          ? "subscription_changed"
          : null;
  if (type) {
    // One activity per change, however many copies of the event arrive: its id is the change's.
    await env.DB.batch([
      activityStatement(
        env,
        { userId, type, data: { plan: plan?.name ?? planId, billing_cycle: cycle, status } },
        Date.now(),
        { id: `${sub.id}.${type}.${status}.${eventCreated}` },
      ),
    ]).catch((error: unknown) => {
      if (!String(error).includes("UNIQUE")) throw error;
    });
  }
  return APPLIED;
}

/**
 * A second live subscription for a member who holds one: Stripe is told to end it now and to
 * refund what its first invoice took; the member's activity says so. The payment row of its
 * Checkout Session (if any) is marked refunded.
 */
async function refuseSecondSubscription(
  env: Env,
  userId: string,
  sub: Stripe.Subscription,
): Promise<EventResult> {
  await cancelStripeSubscriptionNow(env, sub.id, "duplicate");
  const invoice = refOf(sub.latest_invoice);
  const intent = invoice ? await invoicePaymentIntent(env, invoice) : null;
  if (intent) await refundPaymentIntent(env, intent, "duplicate");
  const payment = await first<{ id: string }>(
    env.DB,
    sql`SELECT id FROM payments
     WHERE user_id = ${userId} AND kind = 'subscription' AND provider = 'stripe'
       AND subscription_ref = ${sub.id}`,
  );
  const at = nowIso();
  await env.DB.batch([
    ...(payment
      ? [
          statement(
            env.DB,
            sql`UPDATE payments SET refunded_cents = amount_cents, charge_ref = coalesce(charge_ref, ${intent})
             WHERE id = ${payment.id} AND ${intent} IS NOT NULL`,
          ),
        ]
      : []),
    activityStatement(
      env,
      {
        userId,
        type: "subscription_changed",
        data: { status: "duplicate_refunded", subscription: sub.id, refunded: !!intent },
      },
      Date.parse(at),
      { id: `${sub.id}.duplicate` },
    ),
  ]).catch((error: unknown) => {
    if (!String(error).includes("UNIQUE")) throw error;
  });
  return intent
    ? ignored("second live subscription: cancelled and refunded")
    : ignored("second live subscription: cancelled (no payment to refund yet)");
}

/**
 * checkout.session.completed (mode subscription): the payment is completed and the member
 * subscribed at once, for the period Stripe bills; the subscription events that follow (or came
 * first) carry Stripe's own period.
 */
export async function completeStripeSubscriptionCheckout(
  env: Env,
  session: Stripe.Checkout.Session,
  eventCreated: number,
): Promise<EventResult> {
  const subscriptionId = refOf(session.subscription);
  const payment = await first<{
    id: string;
    user_id: string;
    plan_id: string;
    billing_cycle: BillingCycle;
  }>(
    env.DB,
    sql`SELECT id, user_id, plan_id, billing_cycle FROM payments
     WHERE provider = 'stripe' AND provider_ref = ${session.id} AND kind = 'subscription'`,
  );
  if (!payment) return ignored("unknown checkout session");
  if (!subscriptionId) return ignored("checkout session without a subscription");
  await run(
    env.DB,
    sql`UPDATE payments SET status = 'completed', completed_at = coalesce(completed_at, ${nowIso()}),
       checkout_url = NULL, checkout_expires_at = NULL, subscription_ref = ${subscriptionId},
       customer_ref = coalesce(${refOf(session.customer)}, customer_ref),
       charge_ref = coalesce(charge_ref, ${refOf(session.payment_intent)})
     WHERE id = ${payment.id}`,
  );
  // The subscription's own events carry its period; until one arrives, the cycle's.
  const known = await first(
    env.DB,
    sql`SELECT 1 AS x FROM subscriptions WHERE provider_ref = ${subscriptionId}`,
  );
  if (known) return APPLIED;
  const start = eventCreated;
  return applyStripeSubscription(
    env,
    {
      id: subscriptionId,
      status: "active",
      customer: refOf(session.customer),
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      start_date: start,
      latest_invoice: refOf(session.invoice),
      metadata: {
        user_id: payment.user_id,
        plan_id: payment.plan_id,
        billing_cycle: payment.billing_cycle,
      },
      items: {
        data: [
          {
            current_period_start: start,
            current_period_end: Math.floor(periodEnd(start * 1000, payment.billing_cycle) / 1000),
          },
        ],
      },
    } as unknown as Stripe.Subscription,
    // Older than any event of the subscription itself, which then wins.
    0,
  );
}

/**
 * invoice.payment_failed: a renewal Stripe could not charge; the subscription is past due from
 * now (the grace period runs from the first failure, not from each retry).
 */
export async function markStripeSubscriptionPastDue(
  env: Env,
  subscriptionId: string,
  eventCreated: number,
): Promise<EventResult> {
  const row = await first<{ user_id: string; plan: string }>(
    env.DB,
    sql`UPDATE subscriptions SET status = 'past_due', provider_event_at = ${eventCreated}, updated_at = ${nowIso()},
       past_due_since = coalesce(past_due_since, ${fromUnix(eventCreated)})
     WHERE provider_ref = ${subscriptionId} AND coalesce(provider_event_at, 0) <= ${eventCreated}
       AND status IN ('active', 'cancelled')
     RETURNING user_id, (SELECT name FROM plans WHERE id = plan_id) AS plan`,
  );
  if (!row) return ignored("no live subscription to mark past due");
  await recordActivity(env, {
    userId: row.user_id,
    type: "subscription_changed",
    data: { plan: row.plan, status: "past_due" },
  });
  return APPLIED;
}

// Ending a subscription from outside: deletion, suspension, refunds and disputes

/**
 * The member's subscription ends now, at Stripe first (nothing more is billed), then here
 * (status expired, no perks). Used when the account is deleted, and when its charge is fully
 * refunded or disputed. Returns whether a live subscription was ended.
 */
export async function endSubscriptionNow(
  env: Env,
  where: { userId: string } | { providerRef: string },
  why: "deleted" | "refunded" | "disputed",
): Promise<boolean> {
  const row = await first<{ user_id: string; provider: string; provider_ref: string | null }>(
    env.DB,
    "userId" in where
      ? sql`SELECT user_id, provider, provider_ref FROM subscriptions WHERE user_id = ${where.userId} AND status <> 'expired'`
      : sql`SELECT user_id, provider, provider_ref FROM subscriptions WHERE provider_ref = ${where.providerRef} AND status <> 'expired'`,
  );
  if (!row) return false;
  if (row.provider === "stripe" && row.provider_ref) {
    await cancelStripeSubscriptionNow(env, row.provider_ref, why);
  }
  const at = nowIso();
  const ended = await first<{ plan: string }>(
    env.DB,
    sql`UPDATE subscriptions SET status = 'expired', current_period_end = min(current_period_end, ${at}),
       cancelled_at = coalesce(cancelled_at, ${at}), cancel_reason = coalesce(cancel_reason, ${`account ${why}`}),
       interrupted_period_end = ${why === "disputed" ? sql`current_period_end` : null},
       past_due_since = NULL, updated_at = ${at}
     WHERE user_id = ${row.user_id} AND status <> 'expired'
     RETURNING (SELECT name FROM plans WHERE id = plan_id) AS plan`,
  );
  if (ended && why !== "deleted") {
    await recordActivity(env, {
      userId: row.user_id,
      type: "subscription_changed",
      data: { plan: ended.plan, status: "expired", reason: why },
    });
  }
  return !!ended;
}

/**
 * A suspended account renews nothing: its subscription is set to end with its period (at Stripe
 * first), and reads as cancelled. The member keeps what they paid for until the period end.
 */
export async function stopRenewal(env: Env, userId: string): Promise<boolean> {
  const row = await first<{ provider: string; provider_ref: string | null }>(
    env.DB,
    sql`SELECT provider, provider_ref FROM subscriptions
     WHERE user_id = ${userId} AND status IN ('active', 'past_due')`,
  );
  if (!row) return false;
  if (row.provider === "stripe" && row.provider_ref) {
    await cancelStripeSubscriptionAtPeriodEnd(
      env,
      row.provider_ref,
      "account suspended",
      "suspended",
    );
  }
  const at = nowIso();
  const stopped = await first(
    env.DB,
    sql`UPDATE subscriptions SET status = 'cancelled', cancelled_at = ${at}, cancel_reason = 'account suspended',
       updated_at = ${at}
     WHERE user_id = ${userId} AND status IN ('active', 'past_due')
     RETURNING user_id`,
  );
  return !!stopped;
}

/**
 * An account being deleted: its subscription ends now at Stripe and here, and its open Checkout
 * Sessions expire so that nothing can be paid for an account that is gone.
 */
export async function endMoneyOf(env: Env, userId: string): Promise<void> {
  await endSubscriptionNow(env, { userId }, "deleted");
  const open = await all<{ id: string; provider_ref: string }>(
    env.DB,
    sql`SELECT id, provider_ref FROM payments
     WHERE user_id = ${userId} AND provider = 'stripe' AND status = 'pending' AND provider_ref IS NOT NULL`,
  );
  for (const payment of open) {
    await expireCheckoutSession(env, payment.provider_ref);
    await run(
      env.DB,
      sql`UPDATE payments SET status = 'failed', checkout_url = NULL, checkout_expires_at = NULL
       WHERE id = ${payment.id} AND status = 'pending'`,
    );
  }
}
