import { sql } from "drizzle-orm";
import type Stripe from "stripe";
import { formatPrice } from "~/schemas/credits";
import {
  NO_BILLING_ACCOUNT,
  PAYMENTS_PER_PAGE,
  type PaymentStatus,
  type PaymentView,
} from "~/schemas/payments";
import type { PaymentLine } from "./db/money";
import type { Env } from "./env.server";
import { newId } from "./crypto.server";
import { nowIso } from "./db.server";
import { HttpError } from "./errors.server";
import { createPortalSession, refOf } from "./payments.server";
import { all, first, run } from "./sql.server";
import { APPLIED, ignored, type EventResult } from "./subscriptions.server";

/**
 * The member's billing: their receipts (`GET /my/payments`, the page /my/payments), what Stripe
 * charged a subscription after its first payment (`invoice.paid`), and Stripe's customer portal
 * (`POST /my/billing/portal`), where cards and invoices are managed.
 */

/** A completed payment's status: a dispute first (open or lost), then what was refunded. */
const statusOf = (row: {
  amount_cents: number;
  refunded_cents: number;
  dispute_status: string | null;
}): PaymentStatus =>
  row.dispute_status === "open" || row.dispute_status === "lost"
    ? "disputed"
    : row.refunded_cents <= 0
      ? "paid"
      : row.refunded_cents >= row.amount_cents
        ? "refunded"
        : "partially_refunded";

/**
 * What a payment was for, as the receipts list says it; a plan change or a renewal also says what
 * its amount is made of (the proration's credit and charge, credit applied or kept).
 */
function describe(r: {
  kind: "credits" | "subscription";
  credits: number | null;
  billing_cycle: string | null;
  pack_name: string | null;
  plan_name: string | null;
  currency: string;
  purpose: "change" | "renewal" | null;
  lines: string | null;
}): string {
  if (r.kind === "credits") return `${r.pack_name ?? "Credits"}: ${r.credits ?? 0} credits`;
  const plan = `${r.plan_name ?? "Subscription"} (${r.billing_cycle ?? "monthly"})`;
  const head =
    r.purpose === "change"
      ? `Plan change to ${plan}, prorated`
      : r.purpose === "renewal"
        ? `${plan} subscription renewed`
        : `${r.plan_name ?? "Subscription"} subscription (${r.billing_cycle ?? "monthly"})`;
  const lines = r.lines ? (JSON.parse(r.lines) as PaymentLine[]) : [];
  if (lines.length === 0) return head;
  const parts = lines.map((l) => `${l.description}: ${formatPrice(l.amount_cents, r.currency)}`);
  return `${head}. ${parts.join("; ")}`;
}

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
    purpose: "change" | "renewal" | null;
    lines: string | null;
  }>(
    env.DB,
    sql`SELECT p.id, p.kind, p.credits, p.billing_cycle, cp.name AS pack_name, pl.name AS plan_name,
       p.amount_cents, p.currency, p.refunded_cents, p.dispute_status, p.created_at, p.receipt_url,
       p.purpose, p.lines
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
    description: describe(r),
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

/**
 * invoice.paid: what Stripe charged a subscription after its first payment (a new period, or a
 * plan change's proration) becomes a payment, so that it is on the receipts page and a refund or
 * dispute of its charge finds it by the PaymentIntent (refunds.server.ts). The first invoice is the
 * checkout's payment already; invoices of no subscription period or change are not ours. The plan
 * is the one the subscription's metadata named when Stripe made the invoice (a plan change writes
 * it), else the subscription's. One row per invoice, however often or concurrently it arrives.
 */
export async function recordStripeInvoicePaid(
  env: Env,
  invoice: Stripe.Invoice,
  eventCreated: number,
): Promise<EventResult> {
  if (invoice.billing_reason === "subscription_create") {
    return ignored("a subscription's first invoice: its checkout's payment");
  }
  const purpose =
    invoice.billing_reason === "subscription_cycle"
      ? "renewal"
      : invoice.billing_reason === "subscription_update"
        ? "change"
        : null;
  if (!purpose) return ignored("invoice of no subscription period or change");
  const details = invoice.parent?.subscription_details;
  const subscriptionRef = refOf(details?.subscription);
  if (!subscriptionRef) return ignored("invoice of no subscription");
  const sub = await first<{
    user_id: string;
    plan_id: string;
    billing_cycle: string;
    customer_ref: string | null;
  }>(
    env.DB,
    sql`SELECT user_id, plan_id, billing_cycle, customer_ref FROM subscriptions
     WHERE provider = 'stripe' AND provider_ref = ${subscriptionRef}`,
  );
  if (!sub) return ignored("invoice of an unknown subscription");
  const cycle = details?.metadata?.billing_cycle;
  const chargeRef =
    (invoice.payments?.data ?? []).map((p) => refOf(p.payment?.payment_intent)).find(Boolean) ??
    null;
  // A renewal is its one line (the plan for the period); a change lists its proration.
  const lines: PaymentLine[] | null =
    purpose === "change"
      ? (invoice.lines?.data ?? []).map((line) => ({
          description: line.description ?? "",
          amount_cents: line.amount,
        }))
      : null;
  const paidAt = nowIso((invoice.status_transitions?.paid_at ?? eventCreated) * 1000);
  await run(
    env.DB,
    sql`INSERT INTO payments (id, user_id, kind, plan_id, billing_cycle, amount_cents, currency,
       provider, provider_ref, status, created_at, completed_at, customer_ref, subscription_ref,
       charge_ref, receipt_url, purpose, lines)
     VALUES (${newId()}, ${sub.user_id}, 'subscription',
       coalesce((SELECT id FROM plans WHERE id = ${details?.metadata?.plan_id ?? null}), ${sub.plan_id}),
       ${cycle === "monthly" || cycle === "yearly" ? cycle : sub.billing_cycle},
       ${invoice.amount_paid}, ${invoice.currency}, 'stripe', ${invoice.id}, 'completed', ${paidAt},
       ${paidAt}, ${refOf(invoice.customer) ?? sub.customer_ref}, ${subscriptionRef}, ${chargeRef},
       ${invoice.hosted_invoice_url ?? null}, ${purpose}, ${lines ? JSON.stringify(lines) : null})
     ON CONFLICT (provider, provider_ref) DO NOTHING`,
  );
  return APPLIED;
}
