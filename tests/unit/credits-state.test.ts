import { describe, expect, it } from "vitest";
import { ApiError } from "~/lib/http";
import type { CreditTransaction } from "~/schemas/credits";
import {
  CREDITS_ERRORS,
  creditsErrorMessage,
  fetchPacksSuccess,
  fetchStatusFailure,
  fetchStatusStart,
  fetchStatusSuccess,
  initialCreditsState,
  localBalanceUpdate,
  purchaseFailure,
  purchaseStart,
  purchaseSuccess,
} from "~/state/credits";

const tx = (id: string, amount: number, direction: "in" | "out" = "in"): CreditTransaction => ({
  id,
  amount,
  direction,
  reason: direction === "in" ? "purchase" : "gift",
  created_at: "2026-11-23T10:00:00.000Z",
});

describe("credits state (docs/domain.md: Client state)", () => {
  it("the balance loads from the server; newest 20 transactions kept", () => {
    const loading = fetchStatusStart({ ...initialCreditsState, error: "old" });
    expect(loading).toMatchObject({ isLoading: true, error: null });
    const many = Array.from({ length: 25 }, (_, i) => tx(`t${i}`, 5));
    const loaded = fetchStatusSuccess(
      loading,
      {
        userCredit: { balance: 40, lifetime_earned: 50, lifetime_spent: 10 },
        recentTransactions: many,
      },
      1000,
    );
    expect(loaded.userCredit).toEqual({ balance: 40, lifetime_earned: 50, lifetime_spent: 10 });
    expect(loaded.recentTransactions).toHaveLength(20);
    expect(loaded).toMatchObject({ isLoading: false, lastUpdated: 1000 });
  });

  it("a purchase replaces the balance and grows lifetime_earned by the transaction amount", () => {
    const s = fetchStatusSuccess(initialCreditsState, {
      userCredit: { balance: 5, lifetime_earned: 50, lifetime_spent: 45 },
      recentTransactions: [tx("a", 50)],
    });
    const bought = purchaseSuccess(purchaseStart(s), {
      new_balance: 125,
      transaction: tx("b", 120),
    });
    expect(bought.userCredit).toEqual({ balance: 125, lifetime_earned: 170, lifetime_spent: 45 });
    expect(bought.recentTransactions.map((t) => t.id)).toEqual(["b", "a"]);
    expect(bought.isPurchasing).toBe(false);
  });

  it("a local update adds to lifetime_earned when in, lifetime_spent when out", () => {
    const s = {
      ...initialCreditsState,
      userCredit: { balance: 50, lifetime_earned: 50, lifetime_spent: 0 },
    };
    const spent = localBalanceUpdate(s, tx("g", 5, "out"));
    expect(spent.userCredit).toEqual({ balance: 45, lifetime_earned: 50, lifetime_spent: 5 });
    const earned = localBalanceUpdate(spent, tx("p", 50, "in"));
    expect(earned.userCredit).toEqual({ balance: 95, lifetime_earned: 100, lifetime_spent: 5 });
    expect(earned.recentTransactions.map((t) => t.id)).toEqual(["p", "g"]);
  });

  it("packs load; failures store docs/domain.md's fallback messages unless the server said why", () => {
    const packs = [
      { id: "starter", name: "Starter", credits: 50, price_cents: 499, currency: "usd" },
    ];
    expect(fetchPacksSuccess(initialCreditsState, packs).availablePacks).toEqual(packs);
    expect(
      creditsErrorMessage(
        new ApiError(500, "HTTP error! status: 500"),
        CREDITS_ERRORS.balance,
        CREDITS_ERRORS.balanceOther,
      ),
    ).toBe("Failed to fetch credit balance");
    expect(
      creditsErrorMessage(
        new TypeError("offline"),
        CREDITS_ERRORS.balance,
        CREDITS_ERRORS.balanceOther,
      ),
    ).toBe("An error occurred while fetching credit balance");
    expect(
      creditsErrorMessage(
        new ApiError(422, "Please choose a credit pack."),
        CREDITS_ERRORS.purchase,
        CREDITS_ERRORS.purchaseOther,
      ),
    ).toBe("Please choose a credit pack.");
    expect(CREDITS_ERRORS).toMatchObject({
      packs: "Failed to fetch credit packs",
      purchase: "Failed to purchase credits",
    });
    expect(fetchStatusFailure(fetchStatusStart(initialCreditsState), "x")).toMatchObject({
      isLoading: false,
      error: "x",
    });
    expect(purchaseFailure(purchaseStart(initialCreditsState), "y")).toMatchObject({
      isPurchasing: false,
      error: "y",
    });
  });
});
