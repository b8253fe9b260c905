import { api } from "~/lib/http";
import type {
  BillingCycle,
  CurrentSubscription,
  Plan,
  SubscriptionStatusResponse,
} from "~/schemas/subscription";
import { creditsErrorMessage } from "./credits";
import { atom } from "./jotai";

/**
 * The subscription on the client (docs/domain.md "Client state"): the current subscription and
 * the plans on sale, with flags for loading, creating and cancelling. `active` counts as
 * subscribed; a successful cancel sets the status to `cancelled` and cancelled_at to now.
 */
export interface SubscriptionState {
  currentSubscription: CurrentSubscription | null;
  availablePlans: Plan[];
  isLoading: boolean;
  isCreating: boolean;
  isCancelling: boolean;
  error: string | null;
}

export const initialSubscriptionState: SubscriptionState = {
  currentSubscription: null,
  availablePlans: [],
  isLoading: false,
  isCreating: false,
  isCancelling: false,
  error: null,
};

/** docs/domain.md "Error messages". */
export const SUBSCRIPTION_ERRORS = {
  status: "Failed to fetch subscription status",
  create: "Failed to create subscription",
  cancel: "Failed to cancel subscription",
} as const;

export const subscriptionErrorMessage = (error: unknown, fallback: string) =>
  creditsErrorMessage(error, fallback, fallback);

/** docs/domain.md "Client state": status 'active' counts as subscribed. */
export const isSubscribed = (s: Pick<SubscriptionState, "currentSubscription">) =>
  s.currentSubscription?.status === "active";

export const fetchSubscriptionStart = (s: SubscriptionState): SubscriptionState => ({
  ...s,
  isLoading: true,
  error: null,
});

export const fetchSubscriptionSuccess = (
  s: SubscriptionState,
  res: SubscriptionStatusResponse,
): SubscriptionState => ({
  ...s,
  currentSubscription: res.currentSubscription,
  availablePlans: res.plans,
  isLoading: false,
  error: null,
});

export const fetchSubscriptionFailure = (s: SubscriptionState, error: string) => ({
  ...s,
  isLoading: false,
  error,
});

export const createStart = (s: SubscriptionState): SubscriptionState => ({
  ...s,
  isCreating: true,
  error: null,
});

export const createSuccess = (
  s: SubscriptionState,
  subscription: CurrentSubscription,
): SubscriptionState => ({ ...s, currentSubscription: subscription, isCreating: false });

export const createFailure = (s: SubscriptionState, error: string): SubscriptionState => ({
  ...s,
  isCreating: false,
  error,
});

export const cancelStart = (s: SubscriptionState): SubscriptionState => ({
  ...s,
  isCancelling: true,
  error: null,
});

/**
 * docs/domain.md "Client state": after a successful cancel the status is 'cancelled' and
 * cancelled_at now.
 */
export const cancelSuccess = (s: SubscriptionState, now = Date.now()): SubscriptionState => ({
  ...s,
  currentSubscription: s.currentSubscription
    ? {
        ...s.currentSubscription,
        status: "cancelled",
        cancelled_at: new Date(now).toISOString(),
      }
    : null,
  isCancelling: false,
  error: null,
});

export const cancelFailure = (s: SubscriptionState, error: string): SubscriptionState => ({
  ...s,
  isCancelling: false,
  error,
});

export const subscriptionStateAtom = atom<SubscriptionState>(initialSubscriptionState);

/** GET /my/subscription/status. */
export const loadSubscriptionAtom = atom(null, async (get, set) => {
  set(subscriptionStateAtom, fetchSubscriptionStart(get(subscriptionStateAtom)));
  try {
    const res = await api<SubscriptionStatusResponse>("/my/subscription/status");
    set(subscriptionStateAtom, fetchSubscriptionSuccess(get(subscriptionStateAtom), res));
  } catch (error) {
    set(
      subscriptionStateAtom,
      fetchSubscriptionFailure(
        get(subscriptionStateAtom),
        subscriptionErrorMessage(error, SUBSCRIPTION_ERRORS.status),
      ),
    );
  }
});

/** POST /my/subscription: started at once, or a checkout page to send the browser to. */
export const createSubscriptionAtom = atom(
  null,
  async (get, set, input: { plan_id: string; billing_cycle: BillingCycle }) => {
    set(subscriptionStateAtom, createStart(get(subscriptionStateAtom)));
    try {
      const res = await api<{ subscription: CurrentSubscription } | { checkout_url: string }>(
        "/my/subscription",
        { method: "POST", body: input },
      );
      if ("subscription" in res) {
        set(subscriptionStateAtom, createSuccess(get(subscriptionStateAtom), res.subscription));
      }
      return res;
    } catch (error) {
      set(
        subscriptionStateAtom,
        createFailure(
          get(subscriptionStateAtom),
          subscriptionErrorMessage(error, SUBSCRIPTION_ERRORS.create),
        ),
      );
      return null;
    }
  },
);

/** DELETE /my/subscription. Resolves to true when it is cancelled. */
export const cancelSubscriptionAtom = atom(null, async (get, set, reason: string) => {
  set(subscriptionStateAtom, cancelStart(get(subscriptionStateAtom)));
  try {
    await api("/my/subscription", { method: "DELETE", body: { reason } });
    set(subscriptionStateAtom, cancelSuccess(get(subscriptionStateAtom)));
    return true;
  } catch (error) {
    set(
      subscriptionStateAtom,
      cancelFailure(
        get(subscriptionStateAtom),
        subscriptionErrorMessage(error, SUBSCRIPTION_ERRORS.cancel),
      ),
    );
    return false;
  }
});
