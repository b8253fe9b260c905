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
import { createCheckoutSession, paymentProvider, refundPaymentIntent } from "./payments.server";
import { creditTransactions, userCredits } from "./db/chat";
import { creditPacks, payments } from "./db/money";
import { allOf, first, firstOf, run, selection, statement } from "./sql.server";
import { memberExists } from "./visibility.server";

/**
 * Credits: a ledger (`credit_transactions`, one row per credit in or out) and the running totals
 * in `user_credits` kept equal to it. Every change is one D1 batch (one transaction) holding the
 * ledger row and the totals update; a CHECK constraint keeps the balance at zero or above, so a
 * spend that would overdraw fails the whole batch it is part of (including, for a gift, the
 * message that carries it). New members start with no credits.
 */

export const INSUFFICIENT_CREDITS_MESSAGE = "Not enough credits";
export const CREDITS_OWED_MESSAGE =
  "Gifts are paused: a refunded or disputed payment left credits owed. They are settled by your next credit purchase.";
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
      // While credits are owed nothing is spent: the balance would go below zero, and the
      // CHECK constraint refuses the whole batch (the caller tells the two cases apart).
      sql`UPDATE user_credits SET balance = CASE WHEN owed > 0 THEN -1 ELSE balance - ${entry.amount} END,
         lifetime_spent = lifetime_spent + ${entry.amount}
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

// Credits owed (a refund or dispute took back credits already spent)

export const OWED_REASON = "owed";

/**
 * After a purchase's grant (ledger row `grantId`), in the same batch: what the member owes is
 * taken from the new balance, as far as it reaches (a ledger entry out, reason `owed`, referenced
 * by the payment), and the owed amount goes down by as much. Nothing happens when the grant did
 * not happen (a replay) or nothing is owed.
 */
function owedCollectionStatements(
  env: Env,
  userId: string,
  grantId: string,
  paymentId: string,
  at: string,
) {
  const id = `${grantId}.owed`;
  return [
    statement(
      env.DB,
      sql`INSERT INTO credit_transactions (id, user_id, amount, direction, reason, reference, created_at)
       SELECT ${id}, user_id, min(owed, balance), 'out', ${OWED_REASON}, ${paymentId}, ${at}
       FROM user_credits WHERE user_id = ${userId} AND owed > 0 AND balance > 0
         AND EXISTS (SELECT 1 FROM credit_transactions WHERE id = ${grantId})
       ON CONFLICT(reason, reference) DO NOTHING`,
    ),
    statement(
      env.DB,
      sql`UPDATE user_credits SET
         balance = balance - (SELECT amount FROM credit_transactions WHERE id = ${id}),
         lifetime_spent = lifetime_spent + (SELECT amount FROM credit_transactions WHERE id = ${id}),
         owed = owed - (SELECT amount FROM credit_transactions WHERE id = ${id})
       WHERE user_id = ${userId} AND EXISTS (SELECT 1 FROM credit_transactions WHERE id = ${id})`,
    ),
  ];
}

/** What a member owes (0 when nothing). */
export async function creditsOwed(env: Env, userId: string): Promise<number> {
  const row = await first<{ owed: number }>(
    env.DB,
    sql`SELECT owed FROM user_credits WHERE user_id = ${userId}`,
  );
  return row?.owed ?? 0;
}

// Refunds and disputes of a credit payment

export type ReversalReason = "refund" | "dispute";

/**
 * Takes back credits a payment bought, up to `target` of them in all (refunds are cumulative;
 * `payments.credits_reversed` holds what was taken back so far), in one batch: a
 * `credit_reversals` row (taken from the balance as far as it reaches, the rest owed), the ledger
 * entry out (reason `refund` or `dispute`, referenced by the reversal), the totals and the owed
 * amount, and the payment's new `credits_reversed`. Every statement is conditioned on the payment
 * still being below `target`, and the last one raises it: a replay, or a concurrent copy, changes
 * nothing, and a later refund takes only the difference. Returns whether this call took them.
 */
export async function reverseCredits(
  env: Env,
  paymentId: string,
  target: number,
  reason: ReversalReason,
): Promise<boolean> {
  const id = `${paymentId}:${reason}:${target}`;
  const at = nowIso();
  const pending = sql`(SELECT credits_reversed FROM payments WHERE id = ${paymentId}) < ${target}`;
  const userOf = sql`(SELECT user_id FROM payments WHERE id = ${paymentId})`;
  const [, inserted] = await env.DB.batch([
    statement(
      env.DB,
      sql`INSERT INTO user_credits (user_id) SELECT ${userOf} WHERE ${userOf} IS NOT NULL
       ON CONFLICT(user_id) DO NOTHING`,
    ),
    statement(
      env.DB,
      sql`INSERT INTO credit_reversals (id, payment_id, user_id, reason, credits, taken, owed, created_at)
       SELECT ${id}, p.id, p.user_id, ${reason}, ${target} - p.credits_reversed,
         min(uc.balance, ${target} - p.credits_reversed),
         ${target} - p.credits_reversed - min(uc.balance, ${target} - p.credits_reversed), ${at}
       FROM payments p JOIN user_credits uc ON uc.user_id = p.user_id
       WHERE p.id = ${paymentId} AND p.credits_reversed < ${target}
         AND (${reason} <> 'dispute' OR p.dispute_status IS NOT 'won')
       ON CONFLICT(id) DO NOTHING
       RETURNING id`,
    ),
    statement(
      env.DB,
      sql`INSERT INTO credit_transactions (id, user_id, amount, direction, reason, reference, created_at)
       SELECT ${id}, user_id, taken, 'out', ${reason}, ${id}, ${at} FROM credit_reversals
       WHERE id = ${id} AND taken > 0 AND ${pending}
       ON CONFLICT(reason, reference) DO NOTHING`,
    ),
    statement(
      env.DB,
      sql`UPDATE user_credits SET
         balance = balance - (SELECT taken FROM credit_reversals WHERE id = ${id}),
         lifetime_spent = lifetime_spent + (SELECT taken FROM credit_reversals WHERE id = ${id}),
         owed = owed + (SELECT owed FROM credit_reversals WHERE id = ${id})
       WHERE user_id = ${userOf} AND ${pending}
         AND EXISTS (SELECT 1 FROM credit_reversals WHERE id = ${id})`,
    ),
    statement(
      env.DB,
      sql`UPDATE payments SET credits_reversed = ${target}
       WHERE id = ${paymentId} AND credits_reversed < ${target}
         AND EXISTS (SELECT 1 FROM credit_reversals WHERE id = ${id})`,
    ),
  ]);
  return (inserted?.results.length ?? 0) > 0;
}

export const DISPUTE_WON_REASON = "dispute_won";

/**
 * A dispute closed in our favour: the credits its reversal took are the member's again. What is
 * still owed of it is forgiven; what was taken (from the balance, or from a later purchase) comes
 * back as a ledger entry in (reason `dispute_won`). Applied once: every statement is conditioned
 * on the payment's dispute not being closed yet (open, or not yet marked open by an opening event
 * whose reversal may already be stored), and the last one closes it as won. A reversal for a
 * dispute already won is refused (`reverseCredits`), so an opening event that comes later takes
 * nothing.
 */
export async function restoreDisputedCredits(env: Env, paymentId: string): Promise<void> {
  const at = nowIso();
  const open = sql`EXISTS (SELECT 1 FROM payments WHERE id = ${paymentId}
    AND (dispute_status IS NULL OR dispute_status = 'open'))`;
  const reversal = sql`(SELECT id FROM credit_reversals WHERE payment_id = ${paymentId} AND reason = 'dispute')`;
  const userOf = sql`(SELECT user_id FROM payments WHERE id = ${paymentId})`;
  // What of the reversal is still owed, and what comes back as credits.
  const forgiven = sql`min((SELECT owed FROM user_credits WHERE user_id = ${userOf}),
    coalesce((SELECT sum(owed) FROM credit_reversals WHERE payment_id = ${paymentId} AND reason = 'dispute'), 0))`;
  const total = sql`coalesce((SELECT sum(credits) FROM credit_reversals WHERE payment_id = ${paymentId} AND reason = 'dispute'), 0)`;
  const id = `${paymentId}:${DISPUTE_WON_REASON}`;
  await env.DB.batch([
    statement(
      env.DB,
      sql`INSERT INTO credit_transactions (id, user_id, amount, direction, reason, reference, created_at)
       SELECT ${id}, ${userOf}, ${total} - ${forgiven}, 'in', ${DISPUTE_WON_REASON}, ${paymentId}, ${at}
       WHERE ${open} AND ${reversal} IS NOT NULL AND ${total} - ${forgiven} > 0
       ON CONFLICT(reason, reference) DO NOTHING`,
    ),
    statement(
      env.DB,
      sql`UPDATE user_credits SET
         balance = balance + coalesce((SELECT amount FROM credit_transactions WHERE id = ${id}), 0),
         lifetime_earned = lifetime_earned + coalesce((SELECT amount FROM credit_transactions WHERE id = ${id}), 0),
         owed = owed - ${forgiven}
       WHERE user_id = ${userOf} AND ${open} AND ${reversal} IS NOT NULL`,
    ),
    statement(
      env.DB,
      sql`UPDATE payments SET dispute_status = 'won', credits_reversed = credits_reversed - ${total}
       WHERE id = ${paymentId} AND (dispute_status IS NULL OR dispute_status = 'open')`,
    ),
  ]);
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
  extra: { chargeRef?: string | null; customerRef?: string | null } = {},
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
    ...owedCollectionStatements(env, payment.user_id, ledgerId, payment.id, at),
    statement(
      env.DB,
      sql`UPDATE payments SET status = 'completed', completed_at = ${at},
         checkout_url = NULL, checkout_expires_at = NULL,
         charge_ref = coalesce(${extra.chargeRef ?? null}, charge_ref),
         customer_ref = coalesce(${extra.customerRef ?? null}, customer_ref)
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
  refs: { chargeRef?: string | null; customerRef?: string | null } = {},
): Promise<"applied" | "refunded" | "unknown"> {
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
    return "unknown";
  }
  if (!(await memberExists(env, payment.user_id))) {
    // Paid after the account was deleted (its checkout was already in flight): nobody to give the
    // credits to, so the money goes back, and the payment says so.
    const intent = refs.chargeRef ?? null;
    if (intent) await refundPaymentIntent(env, intent, "account_deleted");
    await run(
      env.DB,
      sql`UPDATE payments SET status = 'completed', completed_at = coalesce(completed_at, ${nowIso()}),
         checkout_url = NULL, checkout_expires_at = NULL, charge_ref = coalesce(${intent}, charge_ref),
         refunded_cents = CASE WHEN ${intent} IS NOT NULL THEN amount_cents ELSE refunded_cents END
       WHERE id = ${payment.id}`,
    );
    return "refunded";
  }
  const { pack_name, credits, ...rest } = payment;
  if (credits === null) throw new Error(`credit payment ${payment.id} holds no credits`);
  await applyCreditPayment(env, { ...rest, credits }, pack_name, refs);
  return "applied";
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
