import { newId } from "./crypto.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { HttpError } from "./errors.server";

/**
 * Credits: a ledger (`credit_transactions`, one row per credit in or out) and the running totals
 * in `user_credits` kept equal to it. Every change is one D1 batch (one transaction) holding the
 * ledger row and the totals update; a CHECK constraint keeps the balance at zero or above, so a
 * spend that would overdraw fails the whole batch it is part of (including, for a gift, the
 * message that carries it). New members start with no credits.
 */

export const INSUFFICIENT_CREDITS_MESSAGE = "Not enough credits";
export const notEnoughCredits = () => new HttpError(402, INSUFFICIENT_CREDITS_MESSAGE);

export interface UserCredit {
  balance: number;
  lifetime_earned: number;
  lifetime_spent: number;
}

export async function creditBalance(env: Env, userId: string): Promise<UserCredit> {
  const row = await env.DB.prepare(
    "SELECT balance, lifetime_earned, lifetime_spent FROM user_credits WHERE user_id = ?1",
  )
    .bind(userId)
    .first<UserCredit>();
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
}

function assertAmount(amount: number) {
  if (!Number.isInteger(amount) || amount <= 0) {
    throw new Error(`A credit amount is a positive integer, not ${amount}`);
  }
}

/** Makes sure the member has a totals row, so that the update after it always applies. */
function ensureTotalsRow(env: Env, userId: string) {
  return env.DB.prepare(
    "INSERT INTO user_credits (user_id) VALUES (?1) ON CONFLICT(user_id) DO NOTHING",
  ).bind(userId);
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
    env.DB.prepare(
      `UPDATE user_credits SET balance = balance - ?2, lifetime_spent = lifetime_spent + ?2
       WHERE user_id = ?1`,
    ).bind(entry.userId, entry.amount),
    env.DB.prepare(
      `INSERT INTO credit_transactions (id, user_id, amount, direction, reason, reference, created_at)
       VALUES (?1, ?2, ?3, 'out', ?4, ?5, ?6)`,
    ).bind(newId(), entry.userId, entry.amount, entry.reason, entry.reference, at),
  ];
}

/**
 * The statements that add credits (a purchase). The ledger insert comes first and is skipped
 * when the reference was already applied; the totals then move only when it was stored, so an
 * event applied twice credits once.
 */
export function grantStatements(env: Env, entry: LedgerEntry): D1PreparedStatement[] {
  assertAmount(entry.amount);
  const id = newId();
  return [
    ensureTotalsRow(env, entry.userId),
    env.DB.prepare(
      `INSERT INTO credit_transactions (id, user_id, amount, direction, reason, reference, created_at)
       VALUES (?1, ?2, ?3, 'in', ?4, ?5, ?6)
       ON CONFLICT(reason, reference) DO NOTHING`,
    ).bind(
      id,
      entry.userId,
      entry.amount,
      entry.reason,
      entry.reference,
      entry.createdAt ?? nowIso(),
    ),
    env.DB.prepare(
      `UPDATE user_credits SET balance = balance + ?2, lifetime_earned = lifetime_earned + ?2
       WHERE user_id = ?1 AND EXISTS (SELECT 1 FROM credit_transactions WHERE id = ?3)`,
    ).bind(entry.userId, entry.amount, id),
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
