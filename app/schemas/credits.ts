import { z } from "./zod";

/** Credits (docs/api.md "Credits"): shapes shared by the pages and the server. */

export const PACK_MESSAGE = "Please choose a credit pack.";

/** POST /my/credits/purchase. */
export const purchaseCreditsSchema = z.object({
  pack_id: z.string({ error: PACK_MESSAGE }).trim().min(1, PACK_MESSAGE).max(64, PACK_MESSAGE),
  /** Where the member goes back to after buying (a path of this site, e.g. a conversation). */
  return_to: z.string().max(300).optional().catch(undefined),
});

export interface CreditPack {
  id: string;
  name: string;
  credits: number;
  price_cents: number;
  currency: string;
}

export interface UserCredit {
  balance: number;
  lifetime_earned: number;
  lifetime_spent: number;
}

export interface CreditTransaction {
  id: string;
  amount: number;
  direction: "in" | "out";
  reason: string;
  created_at: string;
}

/** docs/domain.md "Limits and constants": recent transactions kept. */
export const RECENT_TRANSACTIONS = 20;

/** POST /my/credits/purchase: completed at once (test provider) or a Checkout page to pay on. */
export type PurchaseResponse =
  { new_balance: number; transaction: CreditTransaction } | { checkout_url: string };

/** A price in minor units as the member reads it: 499 usd → "$4.99". */
export function formatPrice(cents: number, currency: string): string {
  return new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: currency.toUpperCase(),
  }).format(cents / 100);
}

/** How a ledger reason reads on the credits page. */
export function transactionLabel(t: Pick<CreditTransaction, "reason" | "direction">): string {
  switch (t.reason) {
    case "purchase":
      return "Credits bought";
    case "gift":
      return "Gift sent";
    default:
      return t.direction === "in" ? "Credits added" : "Credits spent";
  }
}

/** The two lists of the gifts page. */
export const GIFT_LISTS = ["received", "sent"] as const;
export type GiftList = (typeof GIFT_LISTS)[number];
