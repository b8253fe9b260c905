import { sql } from "drizzle-orm";
import {
  SUBSCRIPTION_MESSAGES,
  type BillingCycle,
  type CurrentSubscription,
  type PlanChangeQuote,
} from "~/schemas/subscription";
import { newId } from "./crypto.server";
import { nowIso } from "./db.server";
import type { PaymentLine } from "./db/money";
import { isProduction, type Env } from "./env.server";
import { HttpError, ValidationError } from "./errors.server";
import type { Job } from "./housekeeping.server";
import {
  changeStripeSubscriptionPrice,
  PAYMENTS_UNAVAILABLE,
  paymentProvider,
  stripeCustomerCredit,
  stripePriceFor,
} from "./payments.server";
import { all, first, statement } from "./sql.server";
import {
  activePlan,
  isCurrent,
  withinPeriod,
  listPlans,
  periodEnd,
  periodOf,
  statusOf,
  subscriptionRow,
  toCurrent,
  toPlan,
  type SubscriptionRow,
} from "./subscriptions.server";
import { dayText } from "~/lib/dates";

/**
 * Plan changes in place (`PUT /my/subscription`, the subscription page's "Change plan") and the
 * test provider's renewals (docs/decisions/008-payments.md "Plan changes and renewals").
 *
 * A change is prorated as Stripe prorates it: a credit for the unused time of the old price and a
 * charge for the rest of the period at the new one; when the cycle changes (monthly ↔ yearly) a
 * new period starts now and the charge is the new price in full. With Stripe the subscription's
 * one item moves to the new plan's Price and Stripe makes the invoice; our row follows its signed
 * webhook. The test provider changes the row at once and records the proration as a payment whose
 * lines are the invoice Stripe would have made, and renews its subscriptions at their period end
 * from the Cron Trigger, as Stripe renews its own.
 */

type Priced = { price_monthly_cents: number; price_yearly_cents: number };

const priceOf = (plan: Priced, cycle: BillingCycle) =>
  cycle === "yearly" ? plan.price_yearly_cents : plan.price_monthly_cents;

const labelOf = (name: string, cycle: BillingCycle) => `${name} (${cycle})`;

// Proration

export interface Proration {
  /**
   * What Stripe is asked for: `always_invoice` (the difference is invoiced and charged now) for an
   * upgrade and for a change of cycle (which Stripe invoices at once anyway); `create_prorations`
   * for a downgrade in the same cycle (the credit waits for the next invoice).
   */
  behavior: "always_invoice" | "create_prorations";
  /** Credit for the unused time of the old price (≥ 0). */
  credit: number;
  /** The new price for the rest of the period, or a whole new period when the cycle changes. */
  charge: number;
  /** The period after the change, and its billing cycle anchor (ms). */
  periodStart: number;
  periodEnd: number;
  anchor: number;
}

/**
 * A change from one price and cycle to another at `now`, as Stripe computes it: each side is its
 * price times the fraction of the period still to run, rounded to the cent.
 */
export function prorate(
  from: {
    amountCents: number;
    cycle: BillingCycle;
    periodStart: number;
    periodEnd: number;
    anchor: number;
  },
  to: { amountCents: number; cycle: BillingCycle },
  now: number,
): Proration {
  const length = from.periodEnd - from.periodStart;
  const unused = length > 0 ? Math.min(1, Math.max(0, (from.periodEnd - now) / length)) : 0;
  const credit = Math.round(from.amountCents * unused);
  if (to.cycle !== from.cycle) {
    return {
      behavior: "always_invoice",
      credit,
      charge: to.amountCents,
      periodStart: now,
      periodEnd: periodEnd(now, to.cycle),
      anchor: now,
    };
  }
  return {
    behavior: to.amountCents > from.amountCents ? "always_invoice" : "create_prorations",
    credit,
    charge: Math.round(to.amountCents * unused),
    periodStart: from.periodStart,
    periodEnd: from.periodEnd,
    anchor: from.anchor,
  };
}

/**
 * What an invoice of `total` takes, given `held` credit (Stripe's customer balance): a positive
 * total is paid from the credit first, the rest is due; a negative one is kept as credit.
 */
export function settle(total: number, held: number) {
  if (total <= 0) return { due: 0, applied: 0, held: held - total };
  const applied = Math.min(held, total);
  return { due: total - applied, applied, held: held - applied };
}

/** The member's subscription as a proration starts from it. */
function prorationFrom(row: SubscriptionRow) {
  const start = Date.parse(row.current_period_start);
  return {
    // The test provider bills what it started at; at Stripe the plan's price is the item's.
    amountCents:
      row.provider === "test"
        ? (row.price_cents ?? priceOf(row, row.billing_cycle))
        : priceOf(row, row.billing_cycle),
    cycle: row.billing_cycle,
    periodStart: start,
    periodEnd: Date.parse(row.current_period_end),
    anchor: row.billing_anchor ? Date.parse(row.billing_anchor) : start,
  };
}

/** A live subscription that may change (409 with why otherwise). */
function assertChangeable(row: SubscriptionRow | null, now: number): asserts row {
  if (!row || !withinPeriod(row, now)) {
    throw new HttpError(409, SUBSCRIPTION_MESSAGES.noSubscriptionToChange);
  }
  if (row.status === "past_due") throw new HttpError(409, SUBSCRIPTION_MESSAGES.pastDueChange);
}

// Changing plan

/**
 * PUT /my/subscription: the member's live subscription changes plan or cycle in place, prorated.
 * 409 without a live subscription (or one past due), 422 for a plan or cycle not on sale or the
 * plan and cycle the member already has. A subscription set to end with its period renews again.
 *
 * With Stripe the answer is the subscription as Stripe answered the change (the new plan, and the
 * new period when the cycle changed); the row changes when `customer.subscription.updated`
 * arrives. The test provider changes the row now and records the proration.
 */
export async function changePlan(
  env: Env,
  userId: string,
  input: { plan_id: string; billing_cycle: BillingCycle },
  now = Date.now(),
): Promise<CurrentSubscription> {
  const plan = await activePlan(env, input.plan_id);
  const cycle = input.billing_cycle;
  const row = await subscriptionRow(env, userId);
  assertChangeable(row, now);
  if (row.id === plan.id && row.billing_cycle === cycle) {
    throw new ValidationError({ plan_id: [SUBSCRIPTION_MESSAGES.samePlan] });
  }
  const proration = prorate(prorationFrom(row), { amountCents: priceOf(plan, cycle), cycle }, now);
  if (row.provider === "stripe") {
    // Only Stripe changes its own subscription (no key here: nobody can).
    if (paymentProvider(env) !== "stripe") throw new HttpError(503, PAYMENTS_UNAVAILABLE);
    return changeAtStripe(env, row, plan, cycle, proration);
  }
  if (isProduction(env)) throw new HttpError(503, PAYMENTS_UNAVAILABLE);
  return changeWithTestProvider(env, userId, row, plan, cycle, proration, now);
}

type PlanRow = Awaited<ReturnType<typeof activePlan>>;

async function changeAtStripe(
  env: Env,
  row: SubscriptionRow,
  plan: PlanRow,
  cycle: BillingCycle,
  proration: Proration,
): Promise<CurrentSubscription> {
  if (!row.provider_ref) throw new HttpError(409, SUBSCRIPTION_MESSAGES.noSubscriptionToChange);
  const priceId = await stripePriceFor(env, {
    planId: plan.id,
    name: labelOf(plan.name, cycle),
    cycle,
    amountCents: priceOf(plan, cycle),
    currency: plan.currency,
  });
  const answered = await changeStripeSubscriptionPrice(env, row.provider_ref, {
    priceId,
    prorationBehavior: proration.behavior,
    metadata: { plan_id: plan.id, billing_cycle: cycle },
  });
  const status = answered ? statusOf(answered) : "expired";
  if (!answered || status === "expired") {
    throw new HttpError(409, SUBSCRIPTION_MESSAGES.noSubscriptionToChange);
  }
  const period = periodOf(answered, Math.floor(Date.parse(row.current_period_end) / 1000));
  return {
    status,
    plan: toPlan(plan),
    billing_cycle: cycle,
    current_period_end: period.end,
    cancelled_at: status === "cancelled" ? row.cancelled_at : null,
  };
}

/** The lines of the invoice Stripe makes for a change (they add up to what is due). */
function changeLines(
  row: SubscriptionRow,
  plan: PlanRow,
  cycle: BillingCycle,
  proration: Proration,
  settled: ReturnType<typeof settle>,
  total: number,
  now: number,
): PaymentLine[] {
  const lines: PaymentLine[] = [
    {
      description: `Unused time on ${labelOf(row.name, row.billing_cycle)} after ${dayText(now, "short")}`,
      amount_cents: -proration.credit,
    },
    {
      description:
        cycle === row.billing_cycle
          ? `Remaining time on ${labelOf(plan.name, cycle)} after ${dayText(now, "short")}`
          : `${labelOf(plan.name, cycle)}, ${dayText(proration.periodStart, "short")} to ${dayText(proration.periodEnd, "short")}`,
      amount_cents: proration.charge,
    },
  ];
  if (settled.applied > 0) {
    lines.push({ description: "Credit applied", amount_cents: -settled.applied });
  }
  if (total < 0) {
    lines.push({ description: "Kept as credit for your next payments", amount_cents: -total });
  }
  return lines;
}

async function changeWithTestProvider(
  env: Env,
  userId: string,
  row: SubscriptionRow,
  plan: PlanRow,
  cycle: BillingCycle,
  proration: Proration,
  now: number,
): Promise<CurrentSubscription> {
  const total = proration.charge - proration.credit;
  const settled = settle(total, row.credit_cents);
  const at = nowIso(now);
  const lines = changeLines(row, plan, cycle, proration, settled, total, now);
  // The change applies only over the subscription as it was read: a concurrent change or cancel
  // finds it changed and records nothing; the payment and the activity follow the update alone.
  const [updated] = await env.DB.batch<{ user_id: string }>([
    statement(
      env.DB,
      sql`UPDATE subscriptions SET plan_id = ${plan.id}, billing_cycle = ${cycle}, status = 'active',
         current_period_start = ${nowIso(proration.periodStart)}, current_period_end = ${nowIso(proration.periodEnd)},
         billing_anchor = ${nowIso(proration.anchor)}, price_cents = ${priceOf(plan, cycle)},
         credit_cents = ${settled.held}, cancelled_at = NULL, cancel_reason = NULL, updated_at = ${at}
       WHERE user_id = ${userId} AND provider = 'test' AND plan_id = ${row.id}
         AND billing_cycle = ${row.billing_cycle} AND status = ${row.status}
         AND current_period_end = ${row.current_period_end} AND credit_cents = ${row.credit_cents}
       RETURNING user_id`,
    ),
    statement(
      env.DB,
      sql`INSERT INTO payments (id, user_id, kind, plan_id, billing_cycle, amount_cents, currency,
         provider, status, created_at, completed_at, purpose, lines)
       SELECT ${newId()}, ${userId}, 'subscription', ${plan.id}, ${cycle}, ${settled.due}, ${plan.currency},
         'test', 'completed', ${at}, ${at}, 'change', ${JSON.stringify(lines)}
       WHERE changes() = 1`,
    ),
    statement(
      env.DB,
      sql`INSERT INTO activities (id, user_id, type, other_user_id, data, created_at, seq)
       SELECT ${newId()}, ${userId}, 'subscription_changed', NULL,
         ${JSON.stringify({
           plan: plan.name,
           billing_cycle: cycle,
           status: "active",
           from_plan: row.name,
           from_billing_cycle: row.billing_cycle,
         })}, ${at},
         (SELECT coalesce(max(seq), 0) + 1 FROM activities WHERE user_id = ${userId})
       WHERE changes() = 1`,
    ),
  ]);
  const stored = await subscriptionRow(env, userId);
  if (!updated?.results.length) {
    // The same change sent twice (a double click): the first made it, the second answers it.
    if (stored && stored.id === plan.id && stored.billing_cycle === cycle && isCurrent(stored, now))
      return toCurrent(stored);
    throw new HttpError(409, "Your subscription changed meanwhile. Please reload and try again.");
  }
  return toCurrent(stored!);
}

/**
 * What each other plan and cycle would cost the member now (the subscription page shows it before
 * they confirm); none when they hold no subscription that may change. With Stripe this is our
 * estimate of its proration (its invoice is the final word), less the credit the customer holds
 * at Stripe, which Stripe takes first.
 */
export async function planChangeQuotes(
  env: Env,
  userId: string,
  now = Date.now(),
): Promise<PlanChangeQuote[]> {
  const row = await subscriptionRow(env, userId);
  if (!row || !withinPeriod(row, now) || row.status === "past_due") return [];
  const from = prorationFrom(row);
  const held = row.provider === "test" ? row.credit_cents : await stripeCredit(env, userId);
  const quotes: PlanChangeQuote[] = [];
  for (const plan of await listPlans(env)) {
    for (const cycle of ["monthly", "yearly"] as const) {
      if (plan.id === row.id && cycle === row.billing_cycle) continue;
      const price = priceOf(plan, cycle);
      const p = prorate(from, { amountCents: price, cycle }, now);
      const total = p.charge - p.credit;
      const settled = settle(total, held);
      quotes.push({
        plan_id: plan.id,
        plan_name: plan.name,
        billing_cycle: cycle,
        price_cents: price,
        currency: plan.currency,
        credit_cents: p.credit,
        charge_cents: p.charge,
        due_now_cents: settled.due,
        credit_kept_cents: Math.max(0, -total),
        new_period: cycle !== row.billing_cycle,
        renews_at: nowIso(p.periodEnd),
      });
    }
  }
  return quotes;
}

/** The credit the member's Stripe customer holds (none without a customer). */
async function stripeCredit(env: Env, userId: string): Promise<number> {
  const row = await first<{ customer_ref: string | null }>(
    env.DB,
    sql`SELECT customer_ref FROM subscriptions WHERE user_id = ${userId}`,
  );
  return row?.customer_ref ? stripeCustomerCredit(env, row.customer_ref) : 0;
}

// The test provider's renewals

interface DueRow {
  user_id: string;
  plan_id: string;
  name: string;
  currency: string;
  billing_cycle: BillingCycle;
  status: "active" | "cancelled";
  current_period_start: string;
  current_period_end: string;
  billing_anchor: string | null;
  price_cents: number;
  credit_cents: number;
}

/** The end of the period after the one ending at `end`, on the anchor's day of the month. */
export function nextPeriodEnd(anchor: number, cycle: BillingCycle, end: number): number {
  let count = 1;
  while (periodEnd(anchor, cycle, count) <= end) count++;
  return periodEnd(anchor, cycle, count);
}

/**
 * One due subscription of the test provider at its period end: renewed for the next period (a
 * renewal payment recorded, credit held taken first), or, when it was cancelled, ended (as
 * Stripe ends one set to cancel at its period end). Returns 1 when it changed it.
 */
async function renewOrEnd(env: Env, row: DueRow, now: number): Promise<number> {
  const at = nowIso(now);
  if (row.status === "cancelled") {
    const [ended] = await env.DB.batch<{ user_id: string }>([
      statement(
        env.DB,
        sql`UPDATE subscriptions SET status = 'expired', updated_at = ${at}
         WHERE user_id = ${row.user_id} AND provider = 'test' AND status = 'cancelled'
           AND current_period_end = ${row.current_period_end}
         RETURNING user_id`,
      ),
      statement(
        env.DB,
        sql`INSERT INTO activities (id, user_id, type, other_user_id, data, created_at, seq)
         SELECT ${newId()}, ${row.user_id}, 'subscription_changed', NULL,
           ${JSON.stringify({ plan: row.name, billing_cycle: row.billing_cycle, status: "expired" })}, ${at},
           (SELECT coalesce(max(seq), 0) + 1 FROM activities WHERE user_id = ${row.user_id})
         WHERE changes() = 1`,
      ),
    ]);
    return ended?.results.length ? 1 : 0;
  }
  const start = Date.parse(row.current_period_end);
  const anchor = Date.parse(row.billing_anchor ?? row.current_period_start);
  const end = nextPeriodEnd(anchor, row.billing_cycle, start);
  const settled = settle(row.price_cents, row.credit_cents);
  const lines: PaymentLine[] = [
    {
      description: `${labelOf(row.name, row.billing_cycle)}, ${dayText(start, "short")} to ${dayText(end, "short")}`,
      amount_cents: row.price_cents,
    },
  ];
  if (settled.applied > 0) {
    lines.push({ description: "Credit applied", amount_cents: -settled.applied });
  }
  const renewedAt = nowIso(start);
  const [renewed] = await env.DB.batch<{ user_id: string }>([
    statement(
      env.DB,
      sql`UPDATE subscriptions SET current_period_start = ${renewedAt}, current_period_end = ${nowIso(end)},
         credit_cents = ${settled.held}, updated_at = ${at}
       WHERE user_id = ${row.user_id} AND provider = 'test' AND status = 'active'
         AND current_period_end = ${row.current_period_end} AND credit_cents = ${row.credit_cents}
       RETURNING user_id`,
    ),
    // One payment per period: the reference names the period it renews from.
    statement(
      env.DB,
      sql`INSERT INTO payments (id, user_id, kind, plan_id, billing_cycle, amount_cents, currency,
         provider, provider_ref, status, created_at, completed_at, purpose, lines)
       SELECT ${newId()}, ${row.user_id}, 'subscription', ${row.plan_id}, ${row.billing_cycle}, ${settled.due},
         ${row.currency}, 'test', ${`renewal:${row.user_id}:${renewedAt}`}, 'completed', ${renewedAt}, ${renewedAt},
         'renewal', ${JSON.stringify(lines)}
       WHERE changes() = 1`,
    ),
  ]);
  return renewed?.results.length ? 1 : 0;
}

/**
 * The Cron Trigger's job (worker/scheduled.ts): every subscription of the test provider whose
 * period has ended by `now` (the trigger's time) renews or, cancelled, ends; in bounded batches.
 * One that missed several periods (no trigger ran) renews once per period, each paid. Stripe's
 * subscriptions are left to Stripe's webhooks; in production the test provider does not run.
 */
export const TEST_PROVIDER_RENEWALS: Job = {
  name: "test_provider_renewals",
  async run(env, now, { batchSize, maxBatches }) {
    if (isProduction(env)) return { deleted: 0, batches: 0, done: true };
    let changed = 0;
    for (let batches = 1; batches <= maxBatches; batches++) {
      const due = await all<DueRow>(
        env.DB,
        sql`SELECT s.user_id, s.plan_id, p.name, p.currency, s.billing_cycle, s.status,
           s.current_period_start, s.current_period_end, s.billing_anchor, s.credit_cents,
           coalesce(s.price_cents,
             CASE s.billing_cycle WHEN 'yearly' THEN p.price_yearly_cents ELSE p.price_monthly_cents END) AS price_cents
         FROM subscriptions s JOIN plans p ON p.id = s.plan_id
         WHERE s.current_period_end <= ${nowIso(now)} AND s.provider = 'test'
           AND s.status IN ('active', 'cancelled')
         ORDER BY s.current_period_end
         LIMIT ${batchSize}`,
      );
      let changedNow = 0;
      for (const row of due) changedNow += await renewOrEnd(env, row, now);
      changed += changedNow;
      // A short batch is the last, unless it renewed one that may still be due for another period.
      if (due.length === 0 || (due.length < batchSize && changedNow === 0)) {
        return { deleted: changed, batches, done: true };
      }
    }
    return { deleted: changed, batches: maxBatches, done: false };
  },
};
