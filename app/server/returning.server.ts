import { sql } from "drizzle-orm";
import { hmacSign } from "./crypto.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { notFound } from "./errors.server";
import { all, first, run } from "./sql.server";

/**
 * Returning addresses (docs/decisions/005, docs/api.md "Unmatch, verification, appeals and message
 * safety"): a member deleted after reports against them, or suspended, may not start again
 * unseen with the same address. Their normalised address is kept only as a keyed hash (HMAC with
 * APP_KEY: it cannot be read back or checked without the key); a registration whose address
 * hashes the same is created as usual and lands in the moderators' review queue
 * (`users.review_reason`), where a moderator clears it or suspends the account.
 */

export type ReviewReason = "deleted_after_report" | "suspended";

/** Providers that ignore dots in the local part (and are the same mailbox under two domains). */
const DOTLESS_DOMAINS = new Map([
  ["gmail.com", "gmail.com"],
  ["googlemail.com", "gmail.com"],
]);

/**
 * One mailbox, however it is written: lower case, no "+tag", and for Gmail no dots and one domain.
 * ("Sam.Scam+dating@GoogleMail.com" and "samscam@gmail.com" are the same.)
 */
export function normalisedEmail(email: string): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf("@");
  if (at < 1) return address;
  let local = address.slice(0, at).split("+")[0]!;
  let domain = address.slice(at + 1);
  const dotless = DOTLESS_DOMAINS.get(domain);
  if (dotless) {
    local = local.replaceAll(".", "");
    domain = dotless;
  }
  return `${local}@${domain}`;
}

/** The keyed hash an address is kept as. */
export const emailKey = (env: Pick<Env, "APP_KEY">, email: string) =>
  hmacSign(env.APP_KEY, `review-email:${normalisedEmail(email)}`);

/** Keeps `userId`'s address (as its keyed hash) so that a registration with it lands in review. */
export async function rememberAddressOf(
  env: Env,
  userId: string,
  reason: ReviewReason,
  now = Date.now(),
): Promise<void> {
  const user = await first<{ email: string }>(
    env.DB,
    sql`SELECT email FROM users WHERE id = ${userId}`,
  );
  if (!user) return;
  await run(
    env.DB,
    sql`INSERT INTO review_emails (email_key, reason, created_at)
     VALUES (${await emailKey(env, user.email)}, ${reason}, ${nowIso(now)})
     ON CONFLICT (email_key) DO UPDATE SET reason = excluded.reason, created_at = excluded.created_at`,
  );
}

/** Why a registration with `email` goes to review, or null. */
export async function reviewReasonFor(env: Env, email: string): Promise<ReviewReason | null> {
  const row = await first<{ reason: ReviewReason }>(
    env.DB,
    sql`SELECT reason FROM review_emails WHERE email_key = ${await emailKey(env, email)}`,
  );
  return row?.reason ?? null;
}

export interface ReviewItem {
  id: string;
  username: string;
  email: string;
  reason: ReviewReason;
  created_at: string;
}

/** The accounts in review, newest first (few: the partial index users_in_review holds only them). */
export async function listReviews(env: Env): Promise<ReviewItem[]> {
  return all<ReviewItem>(
    env.DB,
    sql`SELECT id, username, email, review_reason AS reason, created_at FROM users
     INDEXED BY users_in_review WHERE review_reason IS NOT NULL AND status = 'active'
     ORDER BY created_at DESC LIMIT 100`,
  );
}

export const REVIEW_CLEARED = "The account is out of review.";

/** A moderator looked at an account in review and lets it be. */
export async function clearReview(env: Env, userId: string): Promise<{ message: string }> {
  const result = await run(
    env.DB,
    sql`UPDATE users SET review_reason = NULL WHERE id = ${userId} AND review_reason IS NOT NULL`,
  );
  if (!result.meta.changes) throw notFound("No account in review with this id.");
  return { message: REVIEW_CLEARED };
}
