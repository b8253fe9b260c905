import { api, ApiError, httpErrorMessage } from "~/lib/http";
import {
  RECENT_TRANSACTIONS,
  type CreditPack,
  type CreditTransaction,
  type PurchaseResponse,
  type UserCredit,
} from "~/schemas/credits";
import { atom } from "./jotai";

/**
 * Credits on the client (docs/domain.md "Client state") with the transitions as pure
 * functions: the balance loads from the server; a purchase that returns a new balance and a
 * transaction replaces the balance and adds the amount to lifetime_earned; a local update adds to
 * lifetime_earned (in) or lifetime_spent (out). The newest 20 transactions are kept.
 */
export interface CreditsState {
  userCredit: UserCredit;
  recentTransactions: CreditTransaction[];
  availablePacks: CreditPack[];
  isLoading: boolean;
  isLoadingPacks: boolean;
  isPurchasing: boolean;
  error: string | null;
  lastUpdated: number | null;
}

export const initialCreditsState: CreditsState = {
  userCredit: { balance: 0, lifetime_earned: 0, lifetime_spent: 0 },
  recentTransactions: [],
  availablePacks: [],
  isLoading: false,
  isLoadingPacks: false,
  isPurchasing: false,
  error: null,
  lastUpdated: null,
};

/**
 * docs/domain.md "Error messages": HTTP failures without a server message, then non-HTTP failures.
 */
export const CREDITS_ERRORS = {
  balance: "Failed to fetch credit balance",
  packs: "Failed to fetch credit packs",
  purchase: "Failed to purchase credits",
  balanceOther: "An error occurred while fetching credit balance",
  packsOther: "An error occurred while fetching credit packs",
  purchaseOther: "An error occurred while purchasing credits",
} as const;

/** The server's message when it gave one, else the HTTP fallback, else the non-HTTP one. */
export function creditsErrorMessage(error: unknown, httpFallback: string, otherFallback: string) {
  if (error instanceof ApiError) {
    return error.message && error.message !== httpErrorMessage(error.status)
      ? error.message
      : httpFallback;
  }
  return otherFallback;
}

const keepRecent = (list: CreditTransaction[]) => list.slice(0, RECENT_TRANSACTIONS);

export const fetchStatusStart = (s: CreditsState): CreditsState => ({
  ...s,
  isLoading: true,
  error: null,
});

export const fetchStatusSuccess = (
  s: CreditsState,
  res: { userCredit: UserCredit; recentTransactions: CreditTransaction[] },
  now = Date.now(),
): CreditsState => ({
  ...s,
  userCredit: res.userCredit,
  recentTransactions: keepRecent(res.recentTransactions),
  isLoading: false,
  error: null,
  lastUpdated: now,
});

export const fetchStatusFailure = (s: CreditsState, error: string): CreditsState => ({
  ...s,
  isLoading: false,
  error,
});

export const fetchPacksStart = (s: CreditsState): CreditsState => ({
  ...s,
  isLoadingPacks: true,
  error: null,
});

export const fetchPacksSuccess = (s: CreditsState, packs: CreditPack[]): CreditsState => ({
  ...s,
  availablePacks: packs,
  isLoadingPacks: false,
});

export const fetchPacksFailure = (s: CreditsState, error: string): CreditsState => ({
  ...s,
  isLoadingPacks: false,
  error,
});

export const purchaseStart = (s: CreditsState): CreditsState => ({
  ...s,
  isPurchasing: true,
  error: null,
});

/** A purchase that completed: the balance replaced, lifetime_earned grown by the amount. */
export const purchaseSuccess = (
  s: CreditsState,
  res: { new_balance: number; transaction: CreditTransaction },
  now = Date.now(),
): CreditsState => ({
  ...s,
  userCredit: {
    ...s.userCredit,
    balance: res.new_balance,
    lifetime_earned: s.userCredit.lifetime_earned + res.transaction.amount,
  },
  recentTransactions: keepRecent([
    res.transaction,
    ...s.recentTransactions.filter((t) => t.id !== res.transaction.id),
  ]),
  isPurchasing: false,
  error: null,
  lastUpdated: now,
});

/** A purchase that continues on a checkout page: nothing changes until it completes. */
export const purchaseRedirected = (s: CreditsState): CreditsState => ({ ...s, isPurchasing: true });

export const purchaseFailure = (s: CreditsState, error: string): CreditsState => ({
  ...s,
  isPurchasing: false,
  error,
});

/** A change the client learned of (a gift sent): the balance and the lifetime total move. */
export const localBalanceUpdate = (
  s: CreditsState,
  transaction: CreditTransaction,
  now = Date.now(),
): CreditsState => {
  const signed = transaction.direction === "in" ? transaction.amount : -transaction.amount;
  return {
    ...s,
    userCredit: {
      balance: s.userCredit.balance + signed,
      lifetime_earned:
        s.userCredit.lifetime_earned + (transaction.direction === "in" ? transaction.amount : 0),
      lifetime_spent:
        s.userCredit.lifetime_spent + (transaction.direction === "out" ? transaction.amount : 0),
    },
    recentTransactions: keepRecent([transaction, ...s.recentTransactions]),
    lastUpdated: now,
  };
};

export const creditsStateAtom = atom<CreditsState>(initialCreditsState);

/** GET /my/credits/status. */
export const loadCreditStatusAtom = atom(null, async (get, set) => {
  set(creditsStateAtom, fetchStatusStart(get(creditsStateAtom)));
  try {
    const res = await api<{ userCredit: UserCredit; recentTransactions: CreditTransaction[] }>(
      "/my/credits/status",
    );
    set(creditsStateAtom, fetchStatusSuccess(get(creditsStateAtom), res));
    return res;
  } catch (error) {
    set(
      creditsStateAtom,
      fetchStatusFailure(
        get(creditsStateAtom),
        creditsErrorMessage(error, CREDITS_ERRORS.balance, CREDITS_ERRORS.balanceOther),
      ),
    );
    return null;
  }
});

/** GET /my/credits/packs. */
export const loadCreditPacksAtom = atom(null, async (get, set) => {
  set(creditsStateAtom, fetchPacksStart(get(creditsStateAtom)));
  try {
    const res = await api<{ creditPacks: CreditPack[] }>("/my/credits/packs");
    set(creditsStateAtom, fetchPacksSuccess(get(creditsStateAtom), res.creditPacks));
  } catch (error) {
    set(
      creditsStateAtom,
      fetchPacksFailure(
        get(creditsStateAtom),
        creditsErrorMessage(error, CREDITS_ERRORS.packs, CREDITS_ERRORS.packsOther),
      ),
    );
  }
});

/**
 * POST /my/credits/purchase. Resolves to the response (a completed purchase, or a checkout page
 * the caller sends the browser to), or null when it failed.
 */
export const purchaseCreditsAtom = atom(
  null,
  async (get, set, { packId, returnTo }: { packId: string; returnTo?: string | null }) => {
    set(creditsStateAtom, purchaseStart(get(creditsStateAtom)));
    try {
      const res = await api<PurchaseResponse & { payment_id?: string }>("/my/credits/purchase", {
        method: "POST",
        body: { pack_id: packId, ...(returnTo ? { return_to: returnTo } : {}) },
      });
      set(
        creditsStateAtom,
        "checkout_url" in res
          ? purchaseRedirected(get(creditsStateAtom))
          : purchaseSuccess(get(creditsStateAtom), res),
      );
      return res;
    } catch (error) {
      set(
        creditsStateAtom,
        purchaseFailure(
          get(creditsStateAtom),
          creditsErrorMessage(error, CREDITS_ERRORS.purchase, CREDITS_ERRORS.purchaseOther),
        ),
      );
      return null;
    }
  },
);
