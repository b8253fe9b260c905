import { describe, expect, it } from "vitest";
import { ApiError } from "~/lib/http";
import type { CurrentSubscription } from "~/schemas/subscription";
import {
  cancelFailure,
  cancelStart,
  cancelSuccess,
  createStart,
  createSuccess,
  fetchSubscriptionStart,
  fetchSubscriptionSuccess,
  initialSubscriptionState,
  isSubscribed,
  SUBSCRIPTION_ERRORS,
  subscriptionErrorMessage,
} from "~/state/subscription";

const plan = {
  id: "plus",
  name: "Plus",
  price_monthly_cents: 999,
  price_yearly_cents: 7999,
  currency: "usd",
  perks: ["150 likes a day"],
};
const active: CurrentSubscription = {
  status: "active",
  plan,
  billing_cycle: "monthly",
  current_period_end: "2026-12-23T10:00:00.000Z",
  cancelled_at: null,
};

describe("subscription state (docs/domain.md: Client state)", () => {
  it("loads the current subscription and the plans; active counts as subscribed", () => {
    const loading = fetchSubscriptionStart(initialSubscriptionState);
    expect(loading.isLoading).toBe(true);
    const loaded = fetchSubscriptionSuccess(loading, {
      currentSubscription: active,
      plans: [plan],
    });
    expect(loaded).toMatchObject({ isLoading: false, availablePlans: [plan] });
    expect(isSubscribed(loaded)).toBe(true);
    expect(isSubscribed(initialSubscriptionState)).toBe(false);
    expect(isSubscribed({ currentSubscription: { ...active, status: "past_due" } })).toBe(false);
  });

  it("create stores the new subscription", () => {
    const created = createSuccess(createStart(initialSubscriptionState), active);
    expect(created).toMatchObject({ isCreating: false, currentSubscription: active });
  });

  it("a successful cancel sets cancelled and cancelled_at to now; a failure keeps it", () => {
    const s = { ...initialSubscriptionState, currentSubscription: active };
    const now = Date.parse("2026-11-23T12:00:00.000Z");
    const cancelled = cancelSuccess(cancelStart(s), now);
    expect(cancelled.currentSubscription).toMatchObject({
      status: "cancelled",
      cancelled_at: "2026-11-23T12:00:00.000Z",
      current_period_end: active.current_period_end,
    });
    expect(isSubscribed(cancelled)).toBe(false);
    const failed = cancelFailure(cancelStart(s), SUBSCRIPTION_ERRORS.cancel);
    expect(failed).toMatchObject({ isCancelling: false, error: "Failed to cancel subscription" });
    expect(failed.currentSubscription).toBe(active);
  });

  it("falls back to docs/domain.md's error messages", () => {
    expect(SUBSCRIPTION_ERRORS).toEqual({
      status: "Failed to fetch subscription status",
      create: "Failed to create subscription",
      cancel: "Failed to cancel subscription",
    });
    expect(
      subscriptionErrorMessage(
        new ApiError(500, "HTTP error! status: 500"),
        SUBSCRIPTION_ERRORS.create,
      ),
    ).toBe("Failed to create subscription");
    expect(
      subscriptionErrorMessage(
        new ApiError(409, "You already have a subscription."),
        SUBSCRIPTION_ERRORS.create,
      ),
    ).toBe("You already have a subscription.");
  });
});
