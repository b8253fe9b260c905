import { z } from "./zod";
import type { SearchFilters } from "./search";
import { safeText } from "./text";

/**
 * Subscriptions (docs/api.md "Subscriptions and payments"): shapes shared by the pages and the
 * server.
 */

export const BILLING_CYCLES = ["monthly", "yearly"] as const;
export type BillingCycle = (typeof BILLING_CYCLES)[number];

export const SUBSCRIPTION_MESSAGES = {
  plan: "Please choose a plan.",
  cycle: "Please choose monthly or yearly billing.",
  reason: "Please tell us why you are cancelling.",
  reasonLength: "The reason may not be longer than 500 characters.",
  alreadySubscribed: "You already have a subscription.",
  notSubscribed: "You have no subscription to cancel.",
  noSubscriptionToChange: "You have no subscription to change. Choose a plan to subscribe.",
  samePlan: "That is already your plan and billing.",
  pastDueChange:
    "Your last payment failed. Update your card under Payments and receipts before changing plans.",
  advancedFilters: "Interests, online now and with a photo are search filters for subscribers.",
} as const;

/** POST /my/subscription. */
export const subscribeSchema = z.object({
  plan_id: z
    .string({ error: SUBSCRIPTION_MESSAGES.plan })
    .trim()
    .min(1, SUBSCRIPTION_MESSAGES.plan)
    .max(64, SUBSCRIPTION_MESSAGES.plan),
  billing_cycle: z.enum(BILLING_CYCLES, { error: SUBSCRIPTION_MESSAGES.cycle }),
});

/**
 * PUT /my/subscription and the subscription page's "Change plan" form: the plan and cycle to
 * change to, in place (the same fields as subscribing).
 */
export const changePlanSchema = subscribeSchema;

/** DELETE /my/subscription. */
export const cancelSubscriptionSchema = z.object({
  reason: safeText(
    z
      .string({ error: SUBSCRIPTION_MESSAGES.reason })
      .trim()
      .min(1, SUBSCRIPTION_MESSAGES.reason)
      .max(500, SUBSCRIPTION_MESSAGES.reasonLength),
    { multiline: true },
  ),
});

export interface Plan {
  id: string;
  name: string;
  price_monthly_cents: number;
  price_yearly_cents: number;
  currency: string;
  perks: string[];
}

/**
 * A member's subscription. `active` counts as subscribed (docs/domain.md "Subscriptions");
 * `cancelled` keeps the perks until current_period_end and renews nothing; `past_due` is a renewal
 * Stripe could not charge.
 */
export type SubscriptionStatus = "active" | "cancelled" | "past_due";

export interface CurrentSubscription {
  status: SubscriptionStatus;
  plan: Plan;
  billing_cycle: BillingCycle;
  current_period_end: string;
  cancelled_at: string | null;
}

/**
 * What changing to another plan or cycle costs now, as the subscription page shows it before the
 * member confirms: the proration Stripe makes (and the test provider mirrors), from the member's
 * period and prices.
 */
export interface PlanChangeQuote {
  plan_id: string;
  plan_name: string;
  billing_cycle: BillingCycle;
  /** The new plan's price for the cycle. */
  price_cents: number;
  currency: string;
  /** Credit for the unused time of the current price. */
  credit_cents: number;
  /** The new price for the rest of the period (or a whole new period when the cycle changes). */
  charge_cents: number;
  /** Charged now: the difference, less credit held; 0 for a downgrade. */
  due_now_cents: number;
  /** Left as credit toward the next payments (a downgrade). */
  credit_kept_cents: number;
  /** Whether the cycle changes: a new period starts now. */
  new_period: boolean;
  /** When the period after the change ends (the next renewal). */
  renews_at: string;
}

export interface SubscriptionStatusResponse {
  currentSubscription: CurrentSubscription | null;
  plans: Plan[];
}

/** The search filters only subscribers may use (a plan's advanced search perk). */
export const ADVANCED_SEARCH_FILTERS = ["interests", "online_only", "with_photo"] as const;

export function usesAdvancedFilters(
  filters: Pick<SearchFilters, (typeof ADVANCED_SEARCH_FILTERS)[number]>,
): boolean {
  return filters.interests.length > 0 || filters.online_only || filters.with_photo;
}

/**
 * How long a past-due subscription keeps its perks while Stripe retries the card
 * (docs/decisions/019-past-due-grace.md).
 */
export const PAST_DUE_GRACE_DAYS = 7;
