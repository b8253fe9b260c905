import { env, SELF } from "cloudflare:test";
import Stripe from "stripe";
import type { Env } from "~/server/env.server";
import type { JsonResult, TestClient } from "../helpers/client";
import { fetchWith } from "../helpers/worker";
import { verifiedMember } from "../helpers/members";

export type Member = Awaited<ReturnType<typeof verifiedMember>>;

/** The Worker's environment with a Stripe key: payments go to Stripe (the local stand-in). */
export const stripeEnv = (): Env => ({ ...env, STRIPE_SECRET_KEY: "sk_test_heartline_standin" });

export interface StandInRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  idempotency_key: string | undefined;
  replayed: boolean;
  params: Record<string, string>;
}

/**
 * A JSON call from a signed-in browser to the Worker running with a Stripe key (SELF always runs
 * the test configuration, which has none).
 */
export async function withStripe<T = Record<string, unknown>>(
  client: TestClient,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonResult<T>> {
  if (!client.csrfToken) await client.loadCsrfFromPage("/login");
  const res = await fetchWith({ STRIPE_SECRET_KEY: "sk_test_heartline_standin" }, path, {
    method,
    ip: client.ip,
    headers: {
      Accept: "application/json",
      Cookie: client.cookieHeader(),
      "X-CSRF-Token": client.csrfToken,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

/** What the app sent to the Stripe stand-in, oldest first. */
export async function standInRequests(): Promise<StandInRequest[]> {
  return (await fetch(`${env.STRIPE_API_BASE}/__requests`)).json();
}

/** A Stripe event as Stripe would send it: JSON, and its signature header. */
export async function signedEvent(
  event: { id: string; type: string; created?: number; data: { object: Record<string, unknown> } },
  secret = env.STRIPE_WEBHOOK_SECRET!,
) {
  const payload = JSON.stringify({
    object: "event",
    api_version: "2026-10-28.endive",
    livemode: false,
    created: event.created ?? Math.floor(Date.now() / 1000),
    ...event,
  });
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret,
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
  return { payload, signature };
}

/** Posts a body to the webhook as Stripe does: no session, no CSRF token. */
export async function postWebhook(payload: string, signature?: string) {
  return SELF.fetch("http://localhost/webhooks/stripe", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(signature ? { "Stripe-Signature": signature } : {}),
    },
    body: payload,
  });
}

/** A new Stripe event id. */
export const eventId = () => `evt_${crypto.randomUUID()}`;

/** Signs an event (a new id unless it names one) and posts it to the webhook as Stripe does. */
export async function deliver(event: {
  id?: string;
  type: string;
  created?: number;
  data: unknown;
}) {
  const { payload, signature } = await signedEvent({
    id: event.id ?? eventId(),
    ...event,
  } as Parameters<typeof signedEvent>[0]);
  const res = await postWebhook(payload, signature);
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    payload,
    signature,
  };
}

export async function balanceOf(userId: string) {
  return (
    (await env.DB.prepare(
      "SELECT balance, lifetime_earned, lifetime_spent FROM user_credits WHERE user_id = ?1",
    )
      .bind(userId)
      .first<{ balance: number; lifetime_earned: number; lifetime_spent: number }>()) ?? {
      balance: 0,
      lifetime_earned: 0,
      lifetime_spent: 0,
    }
  );
}

export async function ledgerOf(userId: string) {
  const { results } = await env.DB.prepare(
    "SELECT amount, direction, reason, reference FROM credit_transactions WHERE user_id = ?1 ORDER BY created_at, id",
  )
    .bind(userId)
    .all<{ amount: number; direction: string; reason: string; reference: string }>();
  return results;
}

export async function activitiesOf(userId: string) {
  const { results } = await env.DB.prepare(
    "SELECT type, data FROM activities WHERE user_id = ?1 ORDER BY seq",
  )
    .bind(userId)
    .all<{ type: string; data: string }>();
  return results.map((r) => ({
    type: r.type,
    data: JSON.parse(r.data) as Record<string, unknown>,
  }));
}

/** Buys a pack through the API (the test provider) and fails the test unless it completed. */
export async function buyPack(client: TestClient, packId: string) {
  const res = await client.json<{
    new_balance: number;
    transaction: {
      id: string;
      amount: number;
      direction: string;
      reason: string;
      created_at: string;
    };
  }>("POST", "/my/credits/purchase", { pack_id: packId });
  if (res.status !== 200)
    throw new Error(`purchase failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Subscribes through the API (the test provider) and fails the test unless it started. */
export async function subscribeTo(client: TestClient, planId: string, cycle = "monthly") {
  const res = await client.json<{ subscription: Record<string, unknown> }>(
    "POST",
    "/my/subscription",
    { plan_id: planId, billing_cycle: cycle },
  );
  if (res.status !== 201)
    throw new Error(`subscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.subscription;
}

export { verifiedMember };
