import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  activitiesOf,
  balanceOf,
  eventId,
  ledgerOf,
  postWebhook,
  signedEvent,
  verifiedMember,
  withStripe,
  type Member,
} from "./helpers";

/** A member who opened a Checkout Session for a pack; its id and our payment id. */
async function checkoutFor(member: Member, packId = "starter") {
  const res = await withStripe<{ checkout_url: string }>(
    member.client,
    "POST",
    "/my/credits/purchase",
    {
      pack_id: packId,
    },
  );
  expect(res.status).toBe(200);
  const payment = await env.DB.prepare(
    "SELECT id, provider_ref FROM payments WHERE user_id = ?1 ORDER BY created_at DESC LIMIT 1",
  )
    .bind(member.id)
    .first<{ id: string; provider_ref: string }>();
  return { sessionId: payment!.provider_ref, paymentId: payment!.id };
}

function sessionCompleted(
  member: Member,
  checkout: { sessionId: string; paymentId: string },
  extra: Record<string, unknown> = {},
) {
  return {
    id: eventId(),
    type: "checkout.session.completed",
    data: {
      object: {
        id: checkout.sessionId,
        object: "checkout.session",
        mode: "payment",
        payment_status: "paid",
        status: "complete",
        client_reference_id: checkout.paymentId,
        metadata: { kind: "credits", payment_id: checkout.paymentId, user_id: member.id },
        ...extra,
      },
    },
  };
}

describe("POST /webhooks/stripe: credits", () => {
  it("a signed checkout.session.completed grants the pack once; a replay changes nothing", async () => {
    const member = await verifiedMember();
    const checkout = await checkoutFor(member, "popular");
    const { payload, signature } = await signedEvent(sessionCompleted(member, checkout));

    const first = await postWebhook(payload, signature);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, duplicate: false });
    expect(await balanceOf(member.id)).toEqual({
      balance: 120,
      lifetime_earned: 120,
      lifetime_spent: 0,
    });

    // Stripe retries the same event: stored by id, applied once.
    const replay = await postWebhook(payload, signature);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ received: true, duplicate: true });
    // The same payment in another event (a second delivery path): the ledger reference is unique.
    const again = await signedEvent(sessionCompleted(member, checkout));
    expect((await postWebhook(again.payload, again.signature)).status).toBe(200);

    expect(await balanceOf(member.id)).toEqual({
      balance: 120,
      lifetime_earned: 120,
      lifetime_spent: 0,
    });
    expect(await ledgerOf(member.id)).toEqual([
      { amount: 120, direction: "in", reason: "purchase", reference: checkout.paymentId },
    ]);
    expect((await activitiesOf(member.id)).map((a) => a.type)).toEqual(["credits_purchased"]);
    const payment = await env.DB.prepare("SELECT status FROM payments WHERE id = ?1")
      .bind(checkout.paymentId)
      .first<{ status: string }>();
    expect(payment?.status).toBe("completed");

    // The success page's view of it.
    const status = await member.client.json<{ userCredit: { balance: number } }>(
      "GET",
      "/my/credits/status",
    );
    expect(status.body.userCredit.balance).toBe(120);
  });

  it("a tampered body, a wrong secret or no signature is 400 and grants nothing", async () => {
    const member = await verifiedMember();
    const checkout = await checkoutFor(member);
    const { payload, signature } = await signedEvent(sessionCompleted(member, checkout));
    const tampered = payload.replace('"payment_status":"paid"', '"payment_status":"paid" ');
    const res = await postWebhook(tampered, signature);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: "Invalid signature." });

    const wrongSecret = await signedEvent(sessionCompleted(member, checkout), "whsec_someone_else");
    expect((await postWebhook(wrongSecret.payload, wrongSecret.signature)).status).toBe(400);
    expect((await postWebhook(payload)).status).toBe(400);
    expect(await ledgerOf(member.id)).toEqual([]);
    // Rejected events are not stored: the genuine one still applies afterwards.
    expect((await postWebhook(payload, signature)).status).toBe(200);
    expect((await balanceOf(member.id)).balance).toBe(50);
  });

  it("a session whose money is not in yet grants nothing until async_payment_succeeded", async () => {
    const member = await verifiedMember();
    const checkout = await checkoutFor(member);
    const unpaid = await signedEvent(
      sessionCompleted(member, checkout, { payment_status: "unpaid" }),
    );
    expect((await postWebhook(unpaid.payload, unpaid.signature)).status).toBe(200);
    expect((await balanceOf(member.id)).balance).toBe(0);
    const paid = await signedEvent({
      ...sessionCompleted(member, checkout),
      type: "checkout.session.async_payment_succeeded",
    });
    expect((await postWebhook(paid.payload, paid.signature)).status).toBe(200);
    expect((await balanceOf(member.id)).balance).toBe(50);
  });

  it("needs no CSRF token and no session, and nothing else under /webhooks is exempt", async () => {
    const { SELF } = await import("cloudflare:test");
    const res = await SELF.fetch("http://localhost/webhooks/other", {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(419);
  });
});
