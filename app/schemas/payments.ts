/**
 * Receipts (docs/api.md "Subscriptions and payments"): shapes shared by the page and the server.
 */

export const PAYMENTS_PER_PAGE = 20;

export const NO_BILLING_ACCOUNT =
  "You have no billing account yet: it starts with your first card payment.";

export type PaymentStatus = "paid" | "refunded" | "partially_refunded" | "disputed";

export interface PaymentView {
  id: string;
  kind: "credits" | "subscription";
  description: string;
  amount_cents: number;
  currency: string;
  status: PaymentStatus;
  created_at: string;
  receipt_url: string | null;
}

/** How a payment's status reads on the receipts page. */
export const PAYMENT_STATUS_LABELS: Record<PaymentStatus, string> = {
  paid: "Paid",
  refunded: "Refunded",
  partially_refunded: "Partly refunded",
  disputed: "Disputed",
};
