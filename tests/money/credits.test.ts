import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { purchaseCredits } from "~/server/credits.server";
import { TestClient } from "../helpers/client";
import { registerMember } from "../helpers/members";
import {
  activitiesOf,
  balanceOf,
  buyPack,
  ledgerOf,
  standInRequests,
  verifiedMember,
  withStripe,
} from "./helpers";

describe("credit packs and status (docs/api.md)", () => {
  it("lists the packs of the migration with their prices", async () => {
    const { client } = await verifiedMember();
    const res = await client.json<{ creditPacks: unknown[] }>("GET", "/my/credits/packs");
    expect(res.status).toBe(200);
    expect(res.body.creditPacks).toEqual([
      { id: "starter", name: "Starter", credits: 50, price_cents: 499, currency: "usd" },
      { id: "popular", name: "Popular", credits: 120, price_cents: 999, currency: "usd" },
      { id: "value", name: "Value", credits: 300, price_cents: 1999, currency: "usd" },
      { id: "big", name: "Big", credits: 800, price_cents: 4499, currency: "usd" },
    ]);
  });

  it("a new member's status is zero with no transactions; signed out is 401, unverified 403", async () => {
    const { client } = await verifiedMember();
    expect((await client.json("GET", "/my/credits/status")).body).toEqual({
      userCredit: { balance: 0, lifetime_earned: 0, lifetime_spent: 0 },
      recentTransactions: [],
    });
    expect((await new TestClient().json("GET", "/my/credits/status")).status).toBe(401);
    const unverified = await registerMember();
    expect((await unverified.client.json("GET", "/my/credits/status")).status).toBe(403);
  });
});

describe("buying credits through the test provider", () => {
  it("completes at once: new balance, the transaction, the ledger, the activity", async () => {
    const { client, id } = await verifiedMember();
    const first = await buyPack(client, "starter");
    expect(first.new_balance).toBe(50);
    expect(first.transaction).toMatchObject({ amount: 50, direction: "in", reason: "purchase" });
    expect(first.transaction.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const second = await buyPack(client, "popular");
    expect(second.new_balance).toBe(170);

    const status = await client.json<{
      userCredit: unknown;
      recentTransactions: { id: string; amount: number }[];
    }>("GET", "/my/credits/status");
    expect(status.body.userCredit).toEqual({
      balance: 170,
      lifetime_earned: 170,
      lifetime_spent: 0,
    });
    // Newest first.
    expect(status.body.recentTransactions.map((t) => t.amount)).toEqual([120, 50]);
    expect(status.body.recentTransactions[0]!.id).toBe(second.transaction.id);

    const payments = await env.DB.prepare(
      "SELECT provider, status, credits, amount_cents FROM payments WHERE user_id = ?1 ORDER BY created_at",
    )
      .bind(id)
      .all();
    expect(payments.results).toEqual([
      { provider: "test", status: "completed", credits: 50, amount_cents: 499 },
      { provider: "test", status: "completed", credits: 120, amount_cents: 999 },
    ]);
    expect((await activitiesOf(id)).map((a) => [a.type, a.data.credits])).toEqual([
      ["credits_purchased", 50],
      ["credits_purchased", 120],
    ]);
  });

  it("keeps the newest 20 transactions", async () => {
    const { client } = await verifiedMember();
    for (let i = 0; i < 21; i++) await buyPack(client, "starter");
    const status = await client.json<{
      recentTransactions: unknown[];
      userCredit: { balance: number };
    }>("GET", "/my/credits/status");
    expect(status.body.recentTransactions).toHaveLength(20);
    expect(status.body.userCredit.balance).toBe(21 * 50);
  });

  it("an unknown pack or no pack is 422 and changes nothing; no CSRF token is 419", async () => {
    const { client, id } = await verifiedMember();
    const unknown = await client.json("POST", "/my/credits/purchase", { pack_id: "nope" });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({
      message: "Please choose a credit pack.",
      errors: { pack_id: ["Please choose a credit pack."] },
    });
    expect((await client.json("POST", "/my/credits/purchase", {})).status).toBe(422);
    const noToken = await client.json(
      "POST",
      "/my/credits/purchase",
      { pack_id: "starter" },
      { csrf: null },
    );
    expect(noToken.status).toBe(419);
    expect(await balanceOf(id)).toEqual({ balance: 0, lifetime_earned: 0, lifetime_spent: 0 });
  });

  it("the test provider refuses to run in production (503) and stores nothing", async () => {
    const { id, details } = await verifiedMember();
    await expect(
      purchaseCredits({ ...env, APP_ENV: "production" }, { id, email: details.email }, "starter", {
        success: "https://x/s",
        cancel: "https://x/c",
      }),
    ).rejects.toMatchObject({ status: 503, message: "Payments are not available right now." });
    expect(await ledgerOf(id)).toEqual([]);
  });
});

describe("buying credits through Stripe Checkout", () => {
  it("opens a Checkout Session with the pack, the member and the return pages; grants nothing yet", async () => {
    const { client, id, details } = await verifiedMember();
    const res = await withStripe<{ checkout_url: string }>(client, "POST", "/my/credits/purchase", {
      pack_id: "popular",
    });
    expect(res.status).toBe(200);
    expect(res.body.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);

    const payment = await env.DB.prepare(
      "SELECT id, provider, provider_ref, status, credits FROM payments WHERE user_id = ?1",
    )
      .bind(id)
      .first<{
        id: string;
        provider: string;
        provider_ref: string;
        status: string;
        credits: number;
      }>();
    expect(payment).toMatchObject({ provider: "stripe", status: "pending", credits: 120 });
    expect(res.body.checkout_url.endsWith(payment!.provider_ref)).toBe(true);

    const sent = (await standInRequests()).find(
      (r) => r.path === "/v1/checkout/sessions" && r.params["metadata[user_id]"] === id,
    );
    expect(sent).toBeDefined();
    expect(sent!.authorization).toBe("Bearer sk_test_heartline_standin");
    expect(sent!.idempotency_key).toBe(`checkout-${payment!.id}`);
    expect(sent!.params).toMatchObject({
      mode: "payment",
      client_reference_id: payment!.id,
      customer_email: details.email,
      "line_items[0][quantity]": "1",
      "line_items[0][price_data][currency]": "usd",
      "line_items[0][price_data][unit_amount]": "999",
      "line_items[0][price_data][product_data][name]": "Popular: 120 credits",
      "metadata[kind]": "credits",
      "metadata[pack_id]": "popular",
      "metadata[payment_id]": payment!.id,
      "metadata[user_id]": id,
      success_url: "http://localhost/my/credits/success?session_id={CHECKOUT_SESSION_ID}",
      cancel_url: "http://localhost/my/credits/cancel",
    });
    expect(sent!.params["line_items[0][price_data][recurring][interval]"]).toBeUndefined();
    expect(await ledgerOf(id)).toEqual([]);
  });
});
