import { sql } from "drizzle-orm";
import {
  NO_BILLING_ACCOUNT,
  PAYMENTS_PER_PAGE,
  type PaymentStatus,
  type PaymentView,
} from "~/schemas/payments";
import type { Env } from "./env.server";
import { HttpError } from "./errors.server";
import { createPortalSession } from "./payments.server";
import { all, first } from "./sql.server";

/**
 * The member's billing: their receipts (`GET /my/payments`, the page /my/payments) and Stripe's
 * customer portal (`POST /my/billing/portal`), where cards and invoices are managed.
 */

/** A completed payment's status: a dispute first (open or lost), then what was refunded. */
const statusOf = (row: {
  amount_cents: number;
  refunded_cents: number;
  dispute_status: string | null;
}): PaymentStatus =>
  row.dispute_status === "open" || row.dispute_status === "lost"
    ? "disputed"
    : row.refunded_cents >= row.amount_cents
      ? "refunded"
      : row.refunded_cents > 0
        ? "partially_refunded"
        : "paid";

/** GET /my/payments: the member's completed payments, newest first, a page at a time. */
export async function listPayments(
  env: Env,
  userId: string,
  { page = 1, perPage = PAYMENTS_PER_PAGE }: { page?: number; perPage?: number } = {},
) {
  const rows = await all<{
    id: string;
    kind: "credits" | "subscription";
    credits: number | null;
    billing_cycle: string | null;
    pack_name: string | null;
    plan_name: string | null;
    amount_cents: number;
    currency: string;
    refunded_cents: number;
    dispute_status: string | null;
    created_at: string;
    receipt_url: string | null;
  }>(
    env.DB,
    sql`SELECT p.id, p.kind, p.credits, p.billing_cycle, cp.name AS pack_name, pl.name AS plan_name,
       p.amount_cents, p.currency, p.refunded_cents, p.dispute_status, p.created_at, p.receipt_url
     FROM payments p
     LEFT JOIN credit_packs cp ON cp.id = p.pack_id
     LEFT JOIN plans pl ON pl.id = p.plan_id
     WHERE p.user_id = ${userId} AND p.status = 'completed'
     ORDER BY p.created_at DESC, p.id DESC
     LIMIT ${perPage + 1} OFFSET ${(page - 1) * perPage}`,
  );
  const payments: PaymentView[] = rows.slice(0, perPage).map((r) => ({
    id: r.id,
    kind: r.kind,
    description:
      r.kind === "credits"
        ? `${r.pack_name ?? "Credits"}: ${r.credits ?? 0} credits`
        : `${r.plan_name ?? "Subscription"} subscription (${r.billing_cycle ?? "monthly"})`,
    amount_cents: r.amount_cents,
    currency: r.currency,
    status: statusOf(r),
    created_at: r.created_at,
    receipt_url: r.receipt_url,
  }));
  return { payments, meta: { page, per_page: perPage, has_more: rows.length > perPage } };
}

/**
 * POST /my/billing/portal: a Stripe customer portal session for the member's customer (from their
 * subscription, else their newest payment that names one); 409 when they have none.
 */
export async function billingPortal(env: Env, userId: string, returnUrl: string) {
  const row = await first<{ customer: string }>(
    env.DB,
    sql`SELECT customer_ref AS customer FROM subscriptions WHERE user_id = ${userId} AND customer_ref IS NOT NULL
     UNION ALL
     SELECT * FROM (SELECT customer_ref FROM payments WHERE user_id = ${userId} AND customer_ref IS NOT NULL
       ORDER BY created_at DESC LIMIT 1)
     LIMIT 1`,
  );
  if (!row) throw new HttpError(409, NO_BILLING_ACCOUNT);
  return { url: await createPortalSession(env, row.customer, returnUrl) };
}
