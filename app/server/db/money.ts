import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** One line of what a payment charged or credited (`payments.lines`). */
export interface PaymentLine {
  description: string;
  amount_cents: number;
}

const isoNow = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

/** The credit packs on sale (seeded by a migration). Prices in minor units of `currency`. */
export const creditPacks = sqliteTable(
  "credit_packs",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    credits: integer("credits").notNull(),
    priceCents: integer("price_cents").notNull(),
    currency: text("currency").notNull(),
    position: integer("position").notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
  },
  (t) => [
    check("credit_packs_credits_positive", sql`${t.credits} > 0`),
    check("credit_packs_price_positive", sql`${t.priceCents} > 0`),
  ],
);

/**
 * Subscription plans (seeded by a migration): prices per billing cycle, the perks as words for
 * the page, and as the flags and numbers the server enforces.
 */
export const plans = sqliteTable(
  "plans",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    priceMonthlyCents: integer("price_monthly_cents").notNull(),
    priceYearlyCents: integer("price_yearly_cents").notNull(),
    currency: text("currency").notNull(),
    perks: text("perks", { mode: "json" }).$type<string[]>().notNull(),
    dailyLikes: integer("daily_likes").notNull(),
    advancedSearch: integer("advanced_search", { mode: "boolean" }).notNull().default(false),
    incognito: integer("incognito", { mode: "boolean" }).notNull().default(false),
    position: integer("position").notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
  },
  (t) => [
    check("plans_prices_positive", sql`${t.priceMonthlyCents} > 0 AND ${t.priceYearlyCents} > 0`),
  ],
);

/**
 * A member's subscription: one row per member (a new subscription replaces an ended one). The
 * member has the plan's perks while `status` is active or cancelled and `current_period_end` is
 * ahead; after it they are back to free, computed on read. `provider_ref` is Stripe's
 * subscription id; `provider_event_at` the time of the newest Stripe event applied, so that an
 * older event arriving late changes nothing.
 */
export const subscriptions = sqliteTable(
  "subscriptions",
  {
    /** The member's id; kept after the account is deleted (a tombstone id, no personal data). */
    userId: text("user_id").primaryKey(),
    planId: text("plan_id")
      .notNull()
      .references(() => plans.id),
    billingCycle: text("billing_cycle", { enum: ["monthly", "yearly"] }).notNull(),
    status: text("status", { enum: ["active", "cancelled", "past_due", "expired"] }).notNull(),
    provider: text("provider", { enum: ["test", "stripe"] }).notNull(),
    providerRef: text("provider_ref"),
    providerEventAt: integer("provider_event_at"),
    currentPeriodStart: text("current_period_start").notNull(),
    currentPeriodEnd: text("current_period_end").notNull(),
    cancelledAt: text("cancelled_at"),
    cancelReason: text("cancel_reason"),
    createdAt: text("created_at").notNull().default(isoNow),
    updatedAt: text("updated_at").notNull().default(isoNow),
    /** Stripe's customer id (the billing portal, a charge's subscription). */
    customerRef: text("customer_ref"),
    /** When the subscription became past due (the grace period runs from it; ADR 019). */
    pastDueSince: text("past_due_since"),
    /**
     * Test provider: what each period bills (the price it started or last changed at; a later
     * price change in D1 reaches it at no renewal, as a Stripe price attached to a subscription).
     */
    priceCents: integer("price_cents"),
    /**
     * Test provider: the billing cycle anchor, whose day of the month every period ends on (31
     * January → 28 February → 31 March), as Stripe's. Set when it starts and when the cycle changes.
     */
    billingAnchor: text("billing_anchor"),
    /**
     * Test provider: credit held for the member's next payments (a downgrade's proration), as
     * Stripe's customer balance; a renewal or a plan change that charges takes from it first.
     */
    creditCents: integer("credit_cents").notNull().default(0),
    /**
     * The period end a dispute cut short (the subscription ended at once): a dispute closed in our
     * favour gives the member that period back (app/server/refunds.server.ts).
     */
    interruptedPeriodEnd: text("interrupted_period_end"),
  },
  (t) => [
    uniqueIndex("subscriptions_provider_ref").on(t.providerRef),
    index("subscriptions_customer_ref").on(t.customerRef),
    index("subscriptions_period_end").on(t.currentPeriodEnd),
  ],
);

/**
 * Every payment started: a credit pack or a subscription, through the test provider (completed
 * at once) or a Stripe Checkout Session (`provider_ref`, completed by its webhook). The credits a
 * pack grants and the price are copied here when the payment starts.
 */
export const payments = sqliteTable(
  "payments",
  {
    id: text("id").primaryKey(),
    /** The member's id; kept after the account is deleted (a tombstone id, no personal data). */
    userId: text("user_id").notNull(),
    kind: text("kind", { enum: ["credits", "subscription"] }).notNull(),
    packId: text("pack_id").references(() => creditPacks.id),
    planId: text("plan_id").references(() => plans.id),
    billingCycle: text("billing_cycle", { enum: ["monthly", "yearly"] }),
    credits: integer("credits"),
    amountCents: integer("amount_cents").notNull(),
    currency: text("currency").notNull(),
    provider: text("provider", { enum: ["test", "stripe"] }).notNull(),
    providerRef: text("provider_ref"),
    status: text("status", { enum: ["pending", "completed", "failed"] }).notNull(),
    createdAt: text("created_at").notNull().default(isoNow),
    completedAt: text("completed_at"),
    /** A Stripe Checkout Session still open: its page, answered again to a second attempt. */
    checkoutUrl: text("checkout_url"),
    checkoutExpiresAt: text("checkout_expires_at"),
    /** Stripe's customer id. */
    customerRef: text("customer_ref"),
    /** Stripe's subscription a subscription payment started. */
    subscriptionRef: text("subscription_ref"),
    /** Stripe's PaymentIntent of the charge (refunds and disputes name it). */
    chargeRef: text("charge_ref"),
    receiptUrl: text("receipt_url"),
    /** What Stripe has refunded of it so far (cumulative, in minor units). */
    refundedCents: integer("refunded_cents").notNull().default(0),
    disputeStatus: text("dispute_status", { enum: ["open", "won", "lost"] }),
    /** How many of the credits it bought were taken back (refunds and disputes together). */
    creditsReversed: integer("credits_reversed").notNull().default(0),
    /**
     * A subscription payment of the test provider after its start: `change` (a plan change,
     * prorated) or `renewal` (a new period). Null: a purchase or a subscription's first payment.
     */
    purpose: text("purpose", { enum: ["change", "renewal"] }),
    /**
     * What the amount is made of, as the lines of a Stripe invoice: `[{description, amount_cents}]`
     * (a credit is negative; the lines add up to `amount_cents`). Null: one line, the description.
     */
    lines: text("lines", { mode: "json" }).$type<PaymentLine[]>(),
  },
  (t) => [
    uniqueIndex("payments_provider_ref").on(t.provider, t.providerRef),
    index("payments_user").on(t.userId, t.createdAt),
    index("payments_charge_ref").on(t.chargeRef),
    index("payments_subscription_ref").on(t.subscriptionRef),
    uniqueIndex("payments_open_subscription_checkout")
      .on(t.userId)
      .where(
        sql`${t.kind} = 'subscription' AND ${t.status} = 'pending' AND ${t.provider} = 'stripe'`,
      ),
    check("payments_refunded_in_range", sql`${t.refundedCents} >= 0`),
    check(
      "payments_dispute_status",
      sql`${t.disputeStatus} IS NULL OR ${t.disputeStatus} IN ('open', 'won', 'lost')`,
    ),
  ],
);

/**
 * Credits a refund or a dispute took back from one payment: `taken` from the balance (a ledger
 * entry out, reason refund or dispute, referenced by this row's id) and `owed` (already spent:
 * taken from the member's next purchase). `taken + owed = credits`.
 */
export const creditReversals = sqliteTable(
  "credit_reversals",
  {
    id: text("id").primaryKey(),
    paymentId: text("payment_id").notNull(),
    userId: text("user_id").notNull(),
    reason: text("reason", { enum: ["refund", "dispute"] }).notNull(),
    credits: integer("credits").notNull(),
    taken: integer("taken").notNull(),
    owed: integer("owed").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("credit_reversals_payment").on(t.paymentId),
    check("credit_reversals_reason", sql`${t.reason} IN ('refund', 'dispute')`),
    check(
      "credit_reversals_sum",
      sql`${t.credits} > 0 AND ${t.taken} >= 0 AND ${t.owed} >= 0 AND ${t.taken} + ${t.owed} = ${t.credits}`,
    ),
  ],
);

/**
 * Every signed Stripe event received, by Stripe's event id: claimed by its insert (the primary key
 * refuses a second copy, however many arrive at once), then its outcome: `applied`, `ignored`
 * (with why in `note`: an empty or unknown object, an unknown or deleted member), or `failed`
 * (Stripe retries it, and the retry may claim it again). `processing` is a claim in flight.
 */
export const stripeEvents = sqliteTable(
  "stripe_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    receivedAt: text("received_at").notNull(),
    outcome: text("outcome", { enum: ["processing", "applied", "ignored", "failed"] })
      .notNull()
      .default("applied"),
    note: text("note"),
    objectId: text("object_id"),
    claimedAt: text("claimed_at"),
  },
  (t) => [index("stripe_events_received_at").on(t.receivedAt)],
);
