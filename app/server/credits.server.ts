import { sql } from "drizzle-orm";
import {
  PACK_MESSAGE,
  RECENT_TRANSACTIONS,
  type CreditPack,
  type CreditTransaction,
  type PurchaseResponse,
  type UserCredit,
} from "~/schemas/credits";
import { activityStatement } from "./activities.server";
import { newId } from "./crypto.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { HttpError, ValidationError } from "./errors.server";
import { log } from "./log.server";
import { createCheckoutSession, paymentProvider } from "./payments.server";
import { creditTransactions, userCredits } from "./db/chat";
import { creditPacks, payments } from "./db/money";
import { allOf, firstOf, run, selection, statement } from "./sql.server";

/**
 * Credits: a ledger (`credit_transactions`, one row per credit in or out) and the running totals
 * in `user_credits` kept equal to it. Every change is one D1 batch (one transaction) holding the
 * ledger row and the totals update; a CHECK constraint keeps the balance at zero or above, so a
 * spend that would overdraw fails the whole batch it is part of (including, for a gift, the
 * message that carries it). New members start with no credits.
 */

export const INSUFFICIENT_CREDITS_MESSAGE = "Not enough credits";
export const notEnoughCredits = () => new HttpError(402, INSUFFICIENT_CREDITS_MESSAGE);

export type { UserCredit };

/** A member's totals as the API shows them. */
const totalsFields = selection({
  balance: userCredits.balance,
  lifetime_earned: userCredits.lifetimeEarned,
  lifetime_spent: userCredits.lifetimeSpent,
});

/** A pack on sale as the API shows it. */
const packFields = selection({
  id: creditPacks.id,
  name: creditPacks.name,
  credits: creditPacks.credits,
  price_cents: creditPacks.priceCents,
  currency: creditPacks.currency,
});

/** A ledger row as the API shows it. */
const transactionFields = selection({
  id: creditTransactions.id,
  amount: creditTransactions.amount,
  direction: creditTransactions.direction,
  reason: creditTransactions.reason,
  created_at: creditTransactions.createdAt,
});

export async function creditBalance(env: Env, userId: string): Promise<UserCredit> {
  const row = await firstOf(
    env.DB,
    totalsFields,
    sql`SELECT ${totalsFields.sql} FROM user_credits WHERE user_id = ${userId}`,
  );
  return row ?? { balance: 0, lifetime_earned: 0, lifetime_spent: 0 };
}

export interface LedgerEntry {
  userId: string;
  /** A positive number of credits. */
  amount: number;
  reason: string;
  /** What the entry is for (a payment id, a message id); unique per reason. */
  reference: string;
  createdAt?: string;
  /** The ledger row's id (new when not given). */
  id?: string;
}

function assertAmount(amount: number) {
  if (!Number.isInteger(amount) || amount <= 0) {
    throw new Error(`A credit amount is a positive integer, not ${amount}`);
  }
}

/** Makes sure the member has a totals row, so that the update after it always applies. */
function ensureTotalsRow(env: Env, userId: string) {
  return statement(
    env.DB,
    sql`INSERT INTO user_credits (user_id) VALUES (${userId}) ON CONFLICT(user_id) DO NOTHING`,
  );
}

/**
 * The statements that spend credits, for the caller to run in its own D1 batch together with
 * what the credits pay for. When the balance is short the batch fails with a CHECK constraint
 * error (see `isInsufficientCredits`) and nothing of it is stored. Spending the same reference
 * twice fails on the ledger's unique (reason, reference).
 */
export function spendStatements(env: Env, entry: LedgerEntry): D1PreparedStatement[] {
  assertAmount(entry.amount);
  const at = entry.createdAt ?? nowIso();
  return [
    ensureTotalsRow(env, entry.userId),
    statement(
      env.DB,
      sql`UPDATE user_credits SET balance = balance - ${entry.amount}, lifetime_spent = lifetime_spent + ${entry.amount}
       WHERE user_id = ${entry.userId}`,
    ),
    statement(
      env.DB,
      sql`INSERT INTO credit_transactions (id, user_id, amount, direction, reason, reference, created_at)
       VALUES (${newId()}, ${entry.userId}, ${entry.amount}, 'out', ${entry.reason}, ${entry.reference}, ${at})`,
    ),
  ];
}

/**
 * The statements that add credits (a purchase). The ledger insert comes first and is skipped
 * when the reference was already applied; the totals then move only when it was stored, so an
 * event applied twice credits once.
 */
export function grantStatements(env: Env, entry: LedgerEntry): D1PreparedStatement[] {
  assertAmount(entry.amount);
  const id = entry.id ?? newId();
  return [
    ensureTotalsRow(env, entry.userId),
    statement(
      env.DB,
      sql`INSERT INTO credit_transactions (id, user_id, amount, direction, reason, reference, created_at)
       VALUES (${id}, ${entry.userId}, ${entry.amount}, 'in', ${entry.reason}, ${entry.reference}, ${entry.createdAt ?? nowIso()})
       ON CONFLICT(reason, reference) DO NOTHING`,
    ),
    statement(
      env.DB,
      sql`UPDATE user_credits SET balance = balance + ${entry.amount}, lifetime_earned = lifetime_earned + ${entry.amount}
       WHERE user_id = ${entry.userId} AND EXISTS (SELECT 1 FROM credit_transactions WHERE id = ${id})`,
    ),
  ];
}

/** Adds credits in one atomic step; returns the new totals. */
export async function grantCredits(env: Env, entry: LedgerEntry): Promise<UserCredit> {
  await env.DB.batch(grantStatements(env, entry));
  return creditBalance(env, entry.userId);
}

/** True when a D1 error is the balance's CHECK constraint: the member did not have enough. */
export function isInsufficientCredits(error: unknown): boolean {
  return String(error instanceof Error ? error.message : error).includes(
    "user_credits_balance_non_negative",
  );
}

// Packs, status and purchases

export const PURCHASE_REASON = "purchase";

/** GET /my/credits/packs: the packs on sale, cheapest first. */
export async function listPacks(env: Env): Promise<CreditPack[]> {
  return allOf(
    env.DB,
    packFields,
    sql`SELECT ${packFields.sql} FROM credit_packs WHERE active = 1 ORDER BY position, id`,
  );
}

/** GET /my/credits/status: the totals and the newest 20 ledger rows, newest first. */
export async function creditStatus(env: Env, userId: string) {
  const [userCredit, recentTransactions] = await Promise.all([
    creditBalance(env, userId),
    allOf(
      env.DB,
      transactionFields,
      sql`SELECT ${transactionFields.sql} FROM credit_transactions
       WHERE user_id = ${userId} ORDER BY created_at DESC, id DESC LIMIT ${RECENT_TRANSACTIONS}`,
    ),
  ]);
  return { userCredit, recentTransactions };
}

async function activePack(env: Env, packId: string): Promise<CreditPack> {
  const row = await firstOf(
    env.DB,
    packFields,
    sql`SELECT ${packFields.sql} FROM credit_packs WHERE id = ${packId} AND active = 1`,
  );
  if (!row) throw new ValidationError({ pack_id: [PACK_MESSAGE] });
  return row;
}

/** A credit payment: a row of `payments` of kind credits, whose pack and credits are set. */
const creditPayment = selection({
  id: payments.id,
  user_id: payments.userId,
  pack_id: payments.packId,
  credits: payments.credits,
  amount_cents: payments.amountCents,
  currency: payments.currency,
  pack_name: creditPacks.name,
});

type CreditPaymentRow = Omit<ReturnType<typeof creditPayment.read>, "pack_name" | "credits"> & {
  credits: number;
};

/**
 * Applies a paid credit payment: the payment marked completed, the credits granted (the ledger
 * reference is the payment id, unique, so a second call grants nothing) and the purchase in the
 * member's activities, in one batch. Returns the ledger row when this call granted it.
 */
async function applyCreditPayment(
  env: Env,
  payment: CreditPaymentRow,
  packName: string,
): Promise<CreditTransaction | null> {
  const ledgerId = newId();
  const at = nowIso();
  await env.DB.batch([
    ...grantStatements(env, {
      id: ledgerId,
      userId: payment.user_id,
      amount: payment.credits,
      reason: PURCHASE_REASON,
      reference: payment.id,
      createdAt: at,
    }),
    statement(
      env.DB,
      sql`UPDATE payments SET status = 'completed', completed_at = ${at}
       WHERE id = ${payment.id} AND status <> 'completed'`,
    ),
    activityStatement(
      env,
      {
        userId: payment.user_id,
        type: "credits_purchased",
        data: {
          credits: payment.credits,
          pack: packName,
          price_cents: payment.amount_cents,
          currency: payment.currency,
        },
      },
      Date.parse(at),
      { whenLedgerEntry: ledgerId },
    ),
  ]);
  return firstOf(
    env.DB,
    transactionFields,
    sql`SELECT ${transactionFields.sql} FROM credit_transactions WHERE id = ${ledgerId}`,
  );
}

/**
 * POST /my/credits/purchase. The test provider completes at once: `{new_balance, transaction}`.
 * With Stripe a Checkout Session opens (the pack as its line item, the member and pack in its
 * metadata) and the credits wait for its signed webhook: `{checkout_url}`.
 */
export async function purchaseCredits(
  env: Env,
  user: { id: string; email: string },
  packId: string,
  urls: { success: string; cancel: string },
): Promise<PurchaseResponse & { payment_id: string }> {
  const pack = await activePack(env, packId);
  const provider = paymentProvider(env);
  const payment: CreditPaymentRow = {
    id: newId(),
    user_id: user.id,
    pack_id: pack.id,
    credits: pack.credits,
    amount_cents: pack.price_cents,
    currency: pack.currency,
  };
  let providerRef: string | null = null;
  let checkoutUrl: string | null = null;
  if (provider === "stripe") {
    const session = await createCheckoutSession(env, {
      mode: "payment",
      paymentId: payment.id,
      userId: user.id,
      email: user.email,
      line: {
        name: `${pack.name}: ${pack.credits} credits`,
        amountCents: pack.price_cents,
        currency: pack.currency,
      },
      metadata: { kind: "credits", pack_id: pack.id },
      successUrl: urls.success,
      cancelUrl: urls.cancel,
    });
    providerRef = session.id;
    checkoutUrl = session.url;
  }
  await run(
    env.DB,
    sql`INSERT INTO payments (id, user_id, kind, pack_id, credits, amount_cents, currency, provider,
       provider_ref, status, created_at)
     VALUES (${payment.id}, ${user.id}, 'credits', ${pack.id}, ${pack.credits}, ${pack.price_cents}, ${pack.currency}, ${provider}, ${providerRef}, 'pending', ${nowIso()})`,
  );
  if (checkoutUrl) return { checkout_url: checkoutUrl, payment_id: payment.id };

  const transaction = await applyCreditPayment(env, payment, pack.name);
  if (!transaction) throw new Error(`test payment ${payment.id} granted nothing`);
  const { balance } = await creditBalance(env, user.id);
  return { new_balance: balance, transaction, payment_id: payment.id };
}

/**
 * Stripe's checkout.session.completed (mode payment), once its money is in: grants the pack's
 * credits of the payment the session was opened for. Applied twice, it grants once.
 */
export async function completeStripeCreditPayment(
  env: Env,
  sessionId: string,
  paymentId: string | undefined,
): Promise<void> {
  const payment = await firstOf(
    env.DB,
    creditPayment,
    sql`SELECT ${creditPayment.sql}
     FROM payments JOIN credit_packs ON credit_packs.id = payments.pack_id
     WHERE payments.provider = 'stripe' AND payments.provider_ref = ${sessionId}
       AND payments.kind = 'credits'`,
  );
  if (!payment || (paymentId && payment.id !== paymentId)) {
    log({ event: "unknown_checkout_session", level: "error", session_id: sessionId });
    return;
  }
  const { pack_name, credits, ...rest } = payment;
  if (credits === null) throw new Error(`credit payment ${payment.id} holds no credits`);
  await applyCreditPayment(env, { ...rest, credits }, pack_name);
}

/** What a checkout return page shows of a payment. */
const returnedPayment = selection({
  id: payments.id,
  kind: payments.kind,
  status: payments.status,
  credits: payments.credits,
  pack_id: payments.packId,
  plan_id: payments.planId,
  billing_cycle: payments.billingCycle,
  amount_cents: payments.amountCents,
  currency: payments.currency,
});

/** A payment of this member, for a checkout return page (by our id or Stripe's session id). */
export async function paymentOf(env: Env, userId: string, ref: { id?: string; session?: string }) {
  if (!ref.id && !ref.session) return null;
  return firstOf(
    env.DB,
    returnedPayment,
    sql`SELECT ${returnedPayment.sql}
     FROM payments WHERE user_id = ${userId} AND (id = ${ref.id ?? null} OR (provider = 'stripe' AND provider_ref = ${ref.session ?? null}))`,
  );
}
