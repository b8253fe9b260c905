import Stripe from "stripe";
import { sha256Hex } from "./crypto.server";
import { isProduction, type Env } from "./env.server";
import { HttpError } from "./errors.server";
import { log, logFailure } from "./log.server";

/**
 * Payments, one module and two providers:
 *
 * - **stripe** when `STRIPE_SECRET_KEY` is set: the member pays on a Stripe Checkout page, and
 *   only Stripe's signed webhook (app/server/stripe-webhooks.server.ts) completes the payment;
 * - **test** otherwise (local development, tests, the demo): the payment completes at once and
 *   nothing is charged. It never runs when APP_ENV is production.
 *
 * What a payment buys (credits, a subscription) is decided by credits.server.ts and
 * subscriptions.server.ts; this module only says who takes the money and talks to Stripe.
 */
export type PaymentProvider = "test" | "stripe";

export const PAYMENTS_UNAVAILABLE = "Payments are not available right now.";

/** The id of a Stripe object another one names (Stripe sends the id, or the object expanded). */
export const refOf = (ref: string | { id: string } | null | undefined) =>
  typeof ref === "string" ? ref : (ref?.id ?? null);

export function paymentProvider(env: Env): PaymentProvider {
  if (env.STRIPE_SECRET_KEY) return "stripe";
  if (isProduction(env)) {
    log({
      event: "payments_unavailable",
      level: "error",
      reason: "STRIPE_SECRET_KEY is not set in production",
    });
    throw new HttpError(503, PAYMENTS_UNAVAILABLE);
  }
  return "test";
}

/**
 * A Stripe client for this request, over fetch (Workers have no Node http). STRIPE_API_BASE points
 * it at another address, outside production only (a local stand-in in tests).
 */
export function stripeClient(env: Env): Stripe {
  const base = !isProduction(env) && env.STRIPE_API_BASE ? new URL(env.STRIPE_API_BASE) : null;
  return new Stripe(env.STRIPE_SECRET_KEY ?? "sk_unset", {
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: 1,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === "https:" ? 443 : 80),
          protocol: base.protocol === "https:" ? "https" : "http",
        }
      : {}),
  });
}

export interface CheckoutLine {
  name: string;
  description?: string;
  amountCents: number;
  currency: string;
  /** A subscription's billing interval (mode "subscription"). */
  interval?: "month" | "year";
}

export interface CheckoutRequest {
  mode: "payment" | "subscription";
  /** Our payment id: the Checkout Session's client_reference_id and in its metadata. */
  paymentId: string;
  userId: string;
  email: string;
  line: CheckoutLine;
  metadata: Record<string, string>;
  /** Absolute URLs; the success URL gets `?session_id={CHECKOUT_SESSION_ID}`. */
  successUrl: string;
  cancelUrl: string;
}

/** Opens a Stripe Checkout Session; returns its id and the page where the member pays. */
export async function createCheckoutSession(
  env: Env,
  req: CheckoutRequest,
): Promise<{ id: string; url: string }> {
  const metadata = { ...req.metadata, payment_id: req.paymentId, user_id: req.userId };
  const params: Stripe.Checkout.SessionCreateParams = {
    mode: req.mode,
    client_reference_id: req.paymentId,
    customer_email: req.email,
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: req.line.currency,
          unit_amount: req.line.amountCents,
          product_data: {
            name: req.line.name,
            ...(req.line.description ? { description: req.line.description } : {}),
          },
          ...(req.line.interval ? { recurring: { interval: req.line.interval } } : {}),
        },
      },
    ],
    metadata,
    success_url: `${req.successUrl}${req.successUrl.includes("?") ? "&" : "?"}session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: req.cancelUrl,
    ...(req.mode === "subscription"
      ? { subscription_data: { metadata } }
      : { payment_intent_data: { metadata } }),
  };
  let session: Stripe.Checkout.Session;
  try {
    session = await stripeClient(env).checkout.sessions.create(params, {
      idempotencyKey: `checkout-${req.paymentId}`,
    });
  } catch (error) {
    throw paymentsDown(error);
  }
  if (!session.url) throw paymentsDown(new Error(`Checkout Session ${session.id} has no url`));
  return { id: session.id, url: session.url };
}

/**
 * Stripe's subscription ends with the period it is in (nothing renews). Every write to Stripe
 * carries an idempotency key of ours, named by what it does and to what, so that a retry (ours or
 * the SDK's) or a concurrent copy of the same request is one change at Stripe.
 */
export async function cancelStripeSubscriptionAtPeriodEnd(
  env: Env,
  subscriptionId: string,
  reason: string,
  why: "member" | "suspended" = "member",
): Promise<void> {
  const comment = reason.slice(0, 500);
  // The key names the comment too: Stripe refuses a key again with other parameters, so two
  // cancels with different reasons (two tabs, a retry after a failure here) each get their own.
  const commentKey = (await sha256Hex(comment)).slice(0, 16);
  try {
    await stripeClient(env).subscriptions.update(
      subscriptionId,
      { cancel_at_period_end: true, cancellation_details: { comment } },
      { idempotencyKey: `cancel-at-period-end-${why}-${subscriptionId}-${commentKey}` },
    );
  } catch (error) {
    throw paymentsDown(error);
  }
}

/**
 * Stripe's subscription ends now (an account deleted, a charge refunded or disputed, a second
 * subscription): nothing more is billed. A subscription Stripe already ended is fine.
 */
export async function cancelStripeSubscriptionNow(
  env: Env,
  subscriptionId: string,
  why: "deleted" | "refunded" | "disputed" | "duplicate" | "unknown-member",
): Promise<void> {
  try {
    await stripeClient(env).subscriptions.cancel(
      subscriptionId,
      { cancellation_details: { comment: `heartline: ${why}` } },
      { idempotencyKey: `cancel-now-${why}-${subscriptionId}` },
    );
  } catch (error) {
    if (isStripeMissing(error)) return;
    throw paymentsDown(error);
  }
}

/**
 * The credit a Stripe customer holds (their balance below zero, in cents: what an earlier
 * downgrade or a refund to balance left), which Stripe takes from their next invoices first; 0 for
 * none, a deleted customer, or when Stripe cannot be reached (the estimate then says less, never
 * more, than Stripe will take).
 */
export async function stripeCustomerCredit(env: Env, customerId: string): Promise<number> {
  try {
    const customer = await stripeClient(env).customers.retrieve(customerId);
    if (customer.deleted) return 0;
    return Math.max(0, -(customer.balance ?? 0));
  } catch (error) {
    logFailure("stripe_customer_balance", error, { customer: customerId });
    return 0;
  }
}

/** An open Checkout Session can no longer be paid (the account is gone). */
export async function expireCheckoutSession(env: Env, sessionId: string): Promise<void> {
  try {
    await stripeClient(env).checkout.sessions.expire(sessionId, undefined, {
      idempotencyKey: `expire-${sessionId}`,
    });
  } catch (error) {
    // Already completed or expired: nothing to stop.
    if (isStripeMissing(error) || isStripeInvalid(error)) return;
    throw paymentsDown(error);
  }
}

/**
 * Refunds a payment in full: a second subscription Stripe reported (`duplicate`), or a payment
 * completed for an account deleted while its checkout was in flight (`account_deleted`).
 */
export async function refundPaymentIntent(
  env: Env,
  paymentIntent: string,
  why: "duplicate" | "account_deleted",
): Promise<void> {
  try {
    await stripeClient(env).refunds.create(
      {
        payment_intent: paymentIntent,
        reason: why === "duplicate" ? "duplicate" : "requested_by_customer",
        metadata: { heartline: why },
      },
      { idempotencyKey: `refund-${why}-${paymentIntent}` },
    );
  } catch (error) {
    throw paymentsDown(error);
  }
}

/** The PaymentIntent that paid an invoice (a subscription's first invoice), or null. */
export async function invoicePaymentIntent(env: Env, invoiceId: string): Promise<string | null> {
  try {
    const invoice = await stripeClient(env).invoices.retrieve(invoiceId, {
      expand: ["payments"],
    });
    for (const p of invoice.payments?.data ?? []) {
      const intent = p.payment.payment_intent;
      if (p.status === "paid" && intent) return typeof intent === "string" ? intent : intent.id;
    }
    return null;
  } catch (error) {
    throw paymentsDown(error);
  }
}

/** Stripe's customer portal for one customer (cards, invoices); its page, back to `returnUrl`. */
export async function createPortalSession(
  env: Env,
  customer: string,
  returnUrl: string,
): Promise<string> {
  try {
    const session = await stripeClient(env).billingPortal.sessions.create(
      { customer, return_url: returnUrl },
      { idempotencyKey: `portal-${customer}-${crypto.randomUUID()}` },
    );
    return session.url;
  } catch (error) {
    throw paymentsDown(error);
  }
}

/** What a plan and cycle cost at Stripe: one recurring Price, found again by its lookup key. */
export interface StripePriceSpec {
  planId: string;
  /** The product's name on Stripe's invoices: "Premium (yearly)". */
  name: string;
  cycle: "monthly" | "yearly";
  amountCents: number;
  currency: string;
}

/**
 * The lookup key of a plan's price: it names the amount, so a price changed in D1 is a new Price
 * (one attached to a subscription is never changed, as at Stripe).
 */
export const priceLookupKey = (p: StripePriceSpec) =>
  `heartline_${p.planId}_${p.cycle}_${p.amountCents}_${p.currency}`;

/**
 * The id of the Stripe Price for a plan and cycle: the active one with its lookup key, or a new
 * one (with a product of its own, named for the invoice). Checkout needs none (its prices are
 * inline), but a subscription item is changed to a Price by id.
 */
export async function stripePriceFor(env: Env, spec: StripePriceSpec): Promise<string> {
  const stripe = stripeClient(env);
  const lookupKey = priceLookupKey(spec);
  const find = async () =>
    (await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 })).data[0]?.id;
  try {
    const known = await find();
    if (known) return known;
    try {
      const price = await stripe.prices.create(
        {
          currency: spec.currency,
          unit_amount: spec.amountCents,
          recurring: { interval: spec.cycle === "yearly" ? "year" : "month" },
          lookup_key: lookupKey,
          product_data: { name: spec.name },
          metadata: { plan_id: spec.planId, billing_cycle: spec.cycle },
        },
        // Concurrent first changes to a plan make one Price (Stripe keeps a key for 24 hours;
        // after that the lookup above finds it).
        { idempotencyKey: `price-${lookupKey}` },
      );
      return price.id;
    } catch (error) {
      // Another request made it after our lookup (its key had expired): that one is the price.
      if (!isStripeInvalid(error)) throw error;
      const made = await find();
      if (made) return made;
      throw error;
    }
  } catch (error) {
    throw paymentsDown(error);
  }
}

/**
 * Changes a live subscription's one item to another Price in place. Stripe prorates it
 * (`proration_behavior`: `always_invoice` invoices the difference now, `create_prorations` leaves
 * it on the next invoice), a subscription set to end with its period renews again, and the
 * metadata names the new plan so that its events say so. Returns the subscription as Stripe
 * answered, or null when Stripe has no live subscription by that id (the webhook that says so is
 * on its way).
 *
 * The idempotency key names the subscription, the Price and this request: the SDK's retry of the
 * call is one change at Stripe; two requests are two changes, each made from what Stripe has then
 * (a second change to the same Price prorates nothing).
 */
export async function changeStripeSubscriptionPrice(
  env: Env,
  subscriptionId: string,
  change: {
    priceId: string;
    prorationBehavior: "always_invoice" | "create_prorations";
    metadata: Record<string, string>;
  },
): Promise<Stripe.Subscription | null> {
  const stripe = stripeClient(env);
  let current: Stripe.Subscription;
  try {
    current = await stripe.subscriptions.retrieve(subscriptionId);
  } catch (error) {
    if (isStripeMissing(error)) return null;
    throw paymentsDown(error);
  }
  if (!["active", "trialing"].includes(current.status)) return null;
  const items = current.items?.data ?? [];
  if (items.length !== 1) {
    throw paymentsDown(new Error(`subscription ${subscriptionId} has ${items.length} items`));
  }
  try {
    return await stripe.subscriptions.update(
      subscriptionId,
      {
        items: [{ id: items[0]!.id, price: change.priceId }],
        proration_behavior: change.prorationBehavior,
        cancel_at_period_end: false,
        metadata: change.metadata,
      },
      {
        idempotencyKey: `change-plan-${subscriptionId}-${change.priceId}-${crypto.randomUUID()}`,
      },
    );
  } catch (error) {
    if (isStripeMissing(error)) return null;
    throw paymentsDown(error);
  }
}

const stripeCode = (error: unknown) =>
  error && typeof error === "object" && "statusCode" in error ? error.statusCode : undefined;
const isStripeMissing = (error: unknown) => stripeCode(error) === 404;
const isStripeInvalid = (error: unknown) => stripeCode(error) === 400;

/** Stripe could not be reached or refused: logged, and a 502 the member can retry. */
function paymentsDown(error: unknown): HttpError {
  logFailure("stripe_call", error);
  return new HttpError(502, "The payment service did not answer. Please try again.");
}

/**
 * A Stripe webhook's event, verified on the raw body with Stripe's async helpers (Workers have
 * no synchronous crypto). Null when the signature is missing or wrong, or no secret is set.
 */
export async function verifyStripeEvent(
  env: Env,
  rawBody: string,
  signature: string | null | undefined,
): Promise<Stripe.Event | null> {
  if (!signature || !env.STRIPE_WEBHOOK_SECRET) return null;
  try {
    return await stripeClient(env).webhooks.constructEventAsync(
      rawBody,
      signature,
      env.STRIPE_WEBHOOK_SECRET,
      undefined,
      Stripe.createSubtleCryptoProvider(),
    );
  } catch {
    return null;
  }
}

/** Whether payments here are test payments (the pages say so plainly). */
export const isTestPayments = (env: Env) => !env.STRIPE_SECRET_KEY;

/** A request's absolute URL for a path on this site (Checkout's return pages). */
export const siteUrl = (request: Request, path: string) => new URL(path, request.url).toString();
