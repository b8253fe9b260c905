import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { listPayments } from "~/server/billing.server";
import { DEFAULT_LIMITS } from "~/server/housekeeping.server";
import { TEST_PROVIDER_RENEWALS } from "~/server/plan-changes.server";
import { memberPerks, RENEWAL_GRACE_MS } from "~/server/subscriptions.server";
import { runCron } from "../helpers/cron";
import { activitiesOf, subscribeTo, type Member, ledgerCheckedMembers } from "./helpers";

/**
 * The test provider renews like Stripe (ADR 008 "Plan changes and renewals"): at its period end a
 * subscription gets a new period and a renewal payment, from the Cron Trigger, with "now" the
 * trigger's scheduledTime; one cancelled at its period end ends instead.
 */

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const at = (s: string) => Date.parse(s);

// Each run logs a line per job: not this file's concern.
beforeEach(() => {
  vi.spyOn(console, "info").mockImplementation(() => {});
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The ledger invariant (helpers.ts), after each test, for every member made here. */
const member = ledgerCheckedMembers();

/** Puts the member's subscription on the given period (the clock the tests control). */
async function setPeriod(userId: string, start: string, end: string, anchor = start) {
  await env.DB.prepare(
    "UPDATE subscriptions SET current_period_start = ?2, current_period_end = ?3, billing_anchor = ?4 WHERE user_id = ?1",
  )
    .bind(userId, start, end, anchor)
    .run();
}

async function row(userId: string) {
  return env.DB.prepare(
    "SELECT status, plan_id, current_period_start, current_period_end, credit_cents FROM subscriptions WHERE user_id = ?1",
  )
    .bind(userId)
    .first<{
      status: string;
      plan_id: string;
      current_period_start: string;
      current_period_end: string;
      credit_cents: number;
    }>();
}

async function renewals(userId: string) {
  const { results } = await env.DB.prepare(
    "SELECT amount_cents, created_at, lines, billing_cycle FROM payments WHERE user_id = ?1 AND purpose = 'renewal' ORDER BY created_at",
  )
    .bind(userId)
    .all<{ amount_cents: number; created_at: string; lines: string; billing_cycle: string }>();
  return results;
}

/** The receipts list (read directly: the runs on a later clock end the test's session). */
async function receipts(m: Member) {
  return (await listPayments(env, m.id)).payments;
}

describe("test-provider renewals on the Cron Trigger's clock", () => {
  it("renews at the period end: a new period, a renewal payment, the perks kept; once per period", async () => {
    const m = await member();
    await subscribeTo(m.client, "plus");
    const end = at("2027-03-10T08:00:00.000Z");
    await setPeriod(m.id, "2027-02-10T08:00:00.000Z", iso(end));
    // Nothing renewed it yet: past its end the member keeps the perks until the renewal is heard
    // (docs/decisions/036), and not for ever.
    expect((await memberPerks(env, m.id, end + 60_000)).subscribed).toBe(true);
    expect((await memberPerks(env, m.id, end + RENEWAL_GRACE_MS)).subscribed).toBe(false);

    await runCron(end + 60_000);
    expect(await row(m.id)).toMatchObject({
      status: "active",
      current_period_start: iso(end),
      current_period_end: "2027-04-10T08:00:00.000Z",
    });
    expect(await memberPerks(env, m.id, end + DAY)).toMatchObject({
      subscribed: true,
      dailyLikes: 150,
    });
    const paid = await renewals(m.id);
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ amount_cents: 999, created_at: iso(end) });

    // Another run at the same time, and a later one within the period: nothing twice.
    await runCron(end + 60_000);
    await runCron(end + 10 * DAY);
    expect(await renewals(m.id)).toHaveLength(1);
    const [latest] = await receipts(m);
    expect(latest).toMatchObject({ amount_cents: 999, status: "paid" });
    expect(latest!.description).toBe(
      "Plus (monthly) subscription renewed. Plus (monthly), Mar 10, 2027 to Apr 10, 2027: $9.99",
    );
  });

  it("keeps the anchor's day: 31 January, 28 February, 31 March; a yearly one renews for a year", async () => {
    const m = await member();
    await subscribeTo(m.client, "premium");
    await setPeriod(m.id, "2027-01-31T10:00:00.000Z", "2027-02-28T10:00:00.000Z");
    await runCron(at("2027-02-28T10:05:00.000Z"));
    expect((await row(m.id))?.current_period_end).toBe("2027-03-31T10:00:00.000Z");
    await runCron(at("2027-03-31T10:05:00.000Z"));
    expect((await row(m.id))?.current_period_end).toBe("2027-04-30T10:00:00.000Z");
    expect((await renewals(m.id)).map((p) => p.amount_cents)).toEqual([1999, 1999]);

    const y = await member();
    await subscribeTo(y.client, "plus", "yearly");
    await setPeriod(y.id, "2026-05-01T00:00:00.000Z", "2027-05-01T00:00:00.000Z");
    await runCron(at("2027-05-01T00:15:00.000Z"));
    expect((await row(y.id))?.current_period_end).toBe("2028-05-01T00:00:00.000Z");
    expect(await renewals(y.id)).toMatchObject([{ amount_cents: 7999, billing_cycle: "yearly" }]);
  });

  it("periods missed while no trigger ran are each renewed and paid", async () => {
    const m = await member();
    await subscribeTo(m.client, "plus");
    await setPeriod(m.id, "2027-01-10T12:00:00.000Z", "2027-02-10T12:00:00.000Z");
    await runCron(at("2027-04-11T00:00:00.000Z"));
    expect((await row(m.id))?.current_period_end).toBe("2027-05-10T12:00:00.000Z");
    expect((await renewals(m.id)).map((p) => p.created_at)).toEqual([
      "2027-02-10T12:00:00.000Z",
      "2027-03-10T12:00:00.000Z",
      "2027-04-10T12:00:00.000Z",
    ]);
  });

  it("cancelled at its period end: it ends instead, nothing is charged", async () => {
    const m = await member();
    await subscribeTo(m.client, "premium");
    await m.client.json("DELETE", "/my/subscription", { reason: "Met someone" });
    const end = at("2027-06-01T09:00:00.000Z");
    await setPeriod(m.id, "2027-05-01T09:00:00.000Z", iso(end));
    expect((await memberPerks(env, m.id, end - 60_000)).subscribed).toBe(true);

    await runCron(end + 60_000);
    expect(await row(m.id)).toMatchObject({ status: "expired", current_period_end: iso(end) });
    expect(await renewals(m.id)).toHaveLength(0);
    expect((await memberPerks(env, m.id, end + 60_000)).subscribed).toBe(false);
    expect((await activitiesOf(m.id)).at(-1)).toMatchObject({
      type: "subscription_changed",
      data: { plan: "Premium", status: "expired" },
    });
    await runCron(end + DAY);
    expect((await activitiesOf(m.id)).filter((a) => a.data.status === "expired")).toHaveLength(1);
  });

  it("a downgrade's credit is taken from the renewal", async () => {
    const m = await member();
    await subscribeTo(m.client, "premium");
    const now = Date.now();
    await setPeriod(m.id, iso(now - 10 * DAY), iso(now + 20 * DAY));
    const down = await m.client.json("PUT", "/my/subscription", {
      plan_id: "plus",
      billing_cycle: "monthly",
    });
    expect(down.status).toBe(200);
    expect((await row(m.id))?.credit_cents).toBe(667);

    await runCron(now + 20 * DAY + 60_000);
    const [paid] = await renewals(m.id);
    expect(paid?.amount_cents).toBe(999 - 667);
    expect(JSON.parse(paid!.lines)).toEqual([
      { description: expect.stringMatching(/^Plus \(monthly\), /), amount_cents: 999 },
      { description: "Credit applied", amount_cents: -667 },
    ]);
    expect(await row(m.id)).toMatchObject({ plan_id: "plus", credit_cents: 0 });
  });

  it("leaves Stripe's subscriptions to Stripe, and does nothing in production", async () => {
    const s = await member();
    const end = at("2027-07-01T00:00:00.000Z");
    await env.DB.prepare(
      `INSERT INTO subscriptions (user_id, plan_id, billing_cycle, status, provider, provider_ref,
         current_period_start, current_period_end)
       VALUES (?1, 'plus', 'monthly', 'active', 'stripe', ?2, ?3, ?4)`,
    )
      .bind(s.id, `sub_${s.id}`, iso(end - 30 * DAY), iso(end))
      .run();
    await runCron(end + 3_600_000);
    expect(await row(s.id)).toMatchObject({ status: "active", current_period_end: iso(end) });
    expect(await renewals(s.id)).toHaveLength(0);

    const t = await member();
    await subscribeTo(t.client, "plus");
    await setPeriod(t.id, iso(end - 30 * DAY), iso(end));
    const result = await TEST_PROVIDER_RENEWALS.run(
      { ...env, APP_ENV: "production" },
      end + 60_000,
      DEFAULT_LIMITS,
    );
    expect(result).toEqual({ deleted: 0, batches: 0, done: true });
    expect((await row(t.id))?.current_period_end).toBe(iso(end));
  });

  it("works in bounded batches", async () => {
    // Only this test's subscriptions (the file's tests share one database).
    await env.DB.prepare("DELETE FROM subscriptions").run();
    const members = [await member(), await member(), await member()];
    const end = at("2027-08-01T00:00:00.000Z");
    for (const m of members) {
      await subscribeTo(m.client, "plus");
      await setPeriod(m.id, iso(end - 31 * DAY), iso(end));
    }
    const first = await TEST_PROVIDER_RENEWALS.run(env, end + 1000, {
      batchSize: 2,
      maxBatches: 1,
    });
    expect(first).toEqual({ deleted: 2, batches: 1, done: false });
    const rest = await TEST_PROVIDER_RENEWALS.run(env, end + 1000, {
      batchSize: 2,
      maxBatches: 5,
    });
    expect(rest.deleted).toBe(1);
    expect(rest.done).toBe(true);
    for (const m of members) expect(await renewals(m.id)).toHaveLength(1);
  });
});
