import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./schema";

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
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
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
  },
  (t) => [
    uniqueIndex("subscriptions_provider_ref").on(t.providerRef),
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
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
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
  },
  (t) => [
    uniqueIndex("payments_provider_ref").on(t.provider, t.providerRef),
    index("payments_user").on(t.userId, t.createdAt),
  ],
);

/** Stripe events already handled, by Stripe's event id: a replay changes nothing. */
export const stripeEvents = sqliteTable(
  "stripe_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    receivedAt: text("received_at").notNull(),
  },
  (t) => [index("stripe_events_received_at").on(t.receivedAt)],
);
