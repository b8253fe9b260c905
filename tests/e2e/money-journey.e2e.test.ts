/**
 * A member's money at its edges, on a phone, through the local test provider (the e2e Worker has
 * no STRIPE_SECRET_KEY): subscribe from /my/subscription, change plan in place there, read the
 * receipts reached from the subscription page, press the billing portal button (409 without a Stripe
 * customer, said on the page), buy a credit pack, then delete the account from Settings › Account
 * after its warning names the subscription and the credits. Each step is checked on the page and
 * then against what the JSON API says.
 */
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { dayText } from "../../app/lib/dates";
import { formatPrice } from "../../app/schemas/credits";
import { NO_BILLING_ACCOUNT, PAYMENT_STATUS_LABELS } from "../../app/schemas/payments";
import {
  expectTitle,
  getCookie,
  openPage,
  registerThroughUi,
  SESSION_COOKIE,
  uniqueMember,
  useBrowser,
  verifyEmailThroughMailbox,
  visit,
  waitForPath,
} from "./helpers";

const PHONE = { width: 390, height: 844 };

interface Plan {
  id: string;
  name: string;
  price_monthly_cents: number;
  price_yearly_cents: number;
  currency: string;
}

interface SubscriptionStatus {
  currentSubscription: {
    status: string;
    plan: Plan;
    billing_cycle: "monthly" | "yearly";
    current_period_end: string;
    cancelled_at: string | null;
  } | null;
  plans: Plan[];
}

interface Payment {
  id: string;
  kind: "credits" | "subscription";
  description: string;
  amount_cents: number;
  currency: string;
  status: keyof typeof PAYMENT_STATUS_LABELS;
  created_at: string;
}

interface CreditStatus {
  userCredit: { balance: number; lifetime_earned: number; lifetime_spent: number };
  recentTransactions: { amount: number; direction: "in" | "out"; reason: string }[];
}

/** A JSON read of the API with the page's session (its context's cookies). */
async function api<T>(page: Page, path: string): Promise<{ status: number; body: T }> {
  const response = await page.request.get(path, { headers: { Accept: "application/json" } });
  return { status: response.status(), body: (await response.json().catch(() => null)) as T };
}

/** A JSON POST from the page itself, as its own client sends one (same origin, CSRF header). */
async function postFromPage(page: Page, path: string) {
  const token = (await page.locator('meta[name="csrf-token"]').getAttribute("content")) ?? "";
  return page.evaluate(
    async ({ target, csrf }) => {
      const res = await fetch(target, {
        method: "POST",
        headers: { Accept: "application/json", "X-CSRF-Token": csrf },
      });
      return { status: res.status, body: (await res.json()) as { message?: string } };
    },
    { target: path, csrf: token },
  );
}

/** Opens one of the header's account menu entries, as a member on a phone does. */
async function openFromAccountMenu(page: Page, name: string, pathname: string): Promise<void> {
  await page.locator(".site-header summary", { hasText: "Account menu" }).click();
  await page
    .getByRole("navigation", { name: "Your account" })
    .getByRole("link", { name, exact: true })
    .click();
  await waitForPath(page, pathname);
}

/** The receipts as listed on /my/payments, one text per row, top to bottom. */
async function receiptRows(page: Page): Promise<string[]> {
  return page.getByTestId("payments").getByRole("listitem").allTextContents();
}

/** The page lists exactly the API's payments, in its order, each with its amount and status. */
async function expectReceiptsMatchApi(page: Page, payments: Payment[]): Promise<void> {
  const rows = await receiptRows(page);
  expect(rows).toHaveLength(payments.length);
  payments.forEach((p, i) => {
    expect(rows[i]).toContain(p.description);
    expect(rows[i]).toContain(formatPrice(p.amount_cents, p.currency));
    expect(rows[i]).toContain(PAYMENT_STATUS_LABELS[p.status]);
  });
  const times = payments.map((p) => Date.parse(p.created_at));
  expect(times).toEqual([...times].sort((a, b) => b - a));
}

describe("a member's money at its edges, on a phone", () => {
  const browser = useBrowser();

  test("subscribe, change plan, receipts, billing portal, credits, then delete the account", async () => {
    const member = uniqueMember("payer");
    const page = await openPage(browser(), {
      label: member.username,
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
    });
    await registerThroughUi(page, member);
    await verifyEmailThroughMailbox(page, member);

    // 1. Subscribe to Plus, monthly, from /my/subscription (the test provider completes at once).
    await openFromAccountMenu(page, "Subscription", "/my/subscription");
    await expectTitle(page, "Subscription");
    await page.getByRole("note").filter({ hasText: "Test payments" }).waitFor();
    await page.getByText("You are on the free plan", { exact: false }).waitFor();
    const before = await api<SubscriptionStatus>(page, "/my/subscription/status");
    expect(before.status).toBe(200);
    expect(before.body.currentSubscription).toBeNull();
    const plus = before.body.plans.find((p) => p.id === "plus")!;
    const premium = before.body.plans.find((p) => p.id === "premium")!;
    expect(plus.name).toBe("Plus");
    expect(premium.name).toBe("Premium");
    expect(
      await page
        .getByRole("radiogroup", { name: "Billing" })
        .getByRole("radio", { name: "Monthly" })
        .isChecked(),
    ).toBe(true);
    await page
      .getByRole("button", {
        name: `Subscribe to Plus, monthly, ${formatPrice(plus.price_monthly_cents, plus.currency)}`,
      })
      .click();
    await waitForPath(page, "/my/subscription/success");
    await page.getByRole("heading", { name: "Welcome to Plus!" }).waitFor();
    await page.getByRole("link", { name: "Your subscription" }).click();
    await waitForPath(page, "/my/subscription");
    const yourPlan = page.getByRole("region", { name: "Your plan" });
    await expect.poll(() => page.getByTestId("subscription-status").textContent()).toBe("Active");
    await yourPlan.getByText("Plus, billed monthly", { exact: false }).waitFor();
    const subscribed = await api<SubscriptionStatus>(page, "/my/subscription/status");
    const started = subscribed.body.currentSubscription!;
    expect(started).toMatchObject({
      status: "active",
      billing_cycle: "monthly",
      cancelled_at: null,
    });
    expect(started.plan.id).toBe("plus");
    await yourPlan.getByText(`Renews on ${dayText(started.current_period_end)}.`).waitFor();

    // 2. Change plan in place, from the same page: Plus monthly → Premium yearly, a new period.
    const changeSection = page.getByRole("region", { name: "Change plan" });
    await changeSection.waitFor();
    const changeButton = changeSection.getByRole("button", { name: "Change to Premium, yearly" });
    const quoteId = await changeButton.getAttribute("aria-describedby");
    expect(quoteId).toBeTruthy();
    const quote = (await page.locator(`[id="${quoteId}"]`).textContent()) ?? "";
    const dueNow = premium.price_yearly_cents - plus.price_monthly_cents;
    expect(quote).toContain(
      `Premium, yearly: ${formatPrice(premium.price_yearly_cents, premium.currency)}`,
    );
    expect(quote).toContain(`Pay ${formatPrice(dueNow, premium.currency)} now`);
    // The plan the member has is not offered as a change.
    expect(
      await changeSection.getByRole("button", { name: "Change to Plus, monthly" }).count(),
    ).toBe(0);
    await changeButton.click();
    await changeSection
      .getByRole("status")
      .filter({ hasText: "Your plan is now Premium (yearly)." })
      .waitFor();
    await yourPlan.getByText("Premium, billed yearly", { exact: false }).waitFor();
    expect(await page.getByTestId("subscription-status").textContent()).toBe("Active");
    const changed = (await api<SubscriptionStatus>(page, "/my/subscription/status")).body
      .currentSubscription!;
    expect(changed).toMatchObject({
      status: "active",
      billing_cycle: "yearly",
      cancelled_at: null,
    });
    expect(changed.plan.id).toBe("premium");
    // A change of cycle starts a new period: a year from now, shown as the renewal date.
    const daysAhead = (Date.parse(changed.current_period_end) - Date.now()) / 86_400_000;
    expect(daysAhead).toBeGreaterThan(360);
    await yourPlan.getByText(`Renews on ${dayText(changed.current_period_end)}.`).waitFor();
    // The old plan and cycle are now a change offered back, and Premium yearly no longer is.
    await changeSection.getByRole("button", { name: "Change to Plus, monthly" }).waitFor();
    expect(
      await changeSection.getByRole("button", { name: "Change to Premium, yearly" }).count(),
    ).toBe(0);
    // And it stays so after a reload.
    await visit(page, "/my/subscription");
    await yourPlan.getByText("Premium, billed yearly", { exact: false }).waitFor();

    // 3. The receipts, reached from the subscription page: newest first, each with its status.
    await page.getByRole("link", { name: "Payments and receipts" }).click();
    await waitForPath(page, "/my/payments");
    await expectTitle(page, "Payments and receipts");
    const twoPayments = await api<{ payments: Payment[] }>(page, "/my/payments");
    expect(twoPayments.status).toBe(200);
    const [changePayment, firstPayment] = twoPayments.body.payments;
    expect(twoPayments.body.payments).toHaveLength(2);
    expect(changePayment).toMatchObject({ kind: "subscription", status: "paid" });
    expect(changePayment!.amount_cents).toBe(dueNow);
    expect(changePayment!.description).toContain("Plan change to Premium (yearly), prorated");
    expect(firstPayment).toMatchObject({
      kind: "subscription",
      status: "paid",
      amount_cents: plus.price_monthly_cents,
      description: "Plus subscription (monthly)",
    });
    await expectReceiptsMatchApi(page, twoPayments.body.payments);
    const rows = await receiptRows(page);
    expect(rows[0]).toContain("Plan change to Premium (yearly)");
    expect(rows[0]).toContain(formatPrice(dueNow, premium.currency));
    expect(rows[1]).toContain("Plus subscription (monthly)");
    expect(rows[1]).toContain(formatPrice(plus.price_monthly_cents, plus.currency));
    for (const row of rows) expect(row).toContain("Paid");

    // 4. The billing portal: the test provider makes no Stripe customer, so the server refuses
    // (409) and the page says why instead of failing silently.
    const portalSection = page.getByRole("region", { name: "Cards and invoices" });
    await portalSection.getByRole("button", { name: "Manage cards and invoices" }).click();
    const portalAlert = portalSection.getByRole("alert");
    await portalAlert.waitFor();
    expect(await portalAlert.textContent()).toBe(NO_BILLING_ACCOUNT);
    expect(await portalAlert.textContent()).toContain("You have no billing account yet");
    expect(new URL(page.url()).pathname).toBe("/my/payments");
    const portal = await postFromPage(page, "/my/billing/portal");
    expect(portal).toEqual({ status: 409, body: { message: NO_BILLING_ACCOUNT } });

    // 5. Buy a credit pack from /my/credits; the balance goes from 0 to the pack's credits.
    await openFromAccountMenu(page, "Credits", "/my/credits");
    expect(await page.getByTestId("balance").textContent()).toBe("0");
    await page.getByRole("button", { name: "Buy Starter: 50 credits for $4.99" }).click();
    await waitForPath(page, "/my/credits/success");
    await page.getByText("50 credits were added").waitFor();
    expect(await page.getByTestId("balance").textContent()).toBe("50");
    await page.getByRole("link", { name: "Go to credits" }).click();
    await waitForPath(page, "/my/credits");
    await expect.poll(() => page.getByTestId("balance").textContent()).toBe("50");
    await page
      .getByRole("region", { name: "Recent transactions" })
      .getByText("Credits bought")
      .waitFor();
    const credits = await api<CreditStatus>(page, "/my/credits/status");
    expect(credits.body.userCredit).toEqual({
      balance: 50,
      lifetime_earned: 50,
      lifetime_spent: 0,
    });
    expect(credits.body.recentTransactions[0]).toMatchObject({ amount: 50, direction: "in" });
    // The pack is now the newest receipt, above the two subscription payments.
    await page.getByRole("link", { name: "Payments and receipts" }).click();
    await waitForPath(page, "/my/payments");
    const threePayments = (await api<{ payments: Payment[] }>(page, "/my/payments")).body.payments;
    expect(threePayments.map((p) => p.id)).toEqual([
      threePayments[0]!.id,
      changePayment!.id,
      firstPayment!.id,
    ]);
    expect(threePayments[0]).toMatchObject({
      kind: "credits",
      status: "paid",
      amount_cents: 499,
      description: "Starter: 50 credits",
    });
    await expectReceiptsMatchApi(page, threePayments);
    expect((await receiptRows(page))[0]).toContain("Starter: 50 credits");

    // 6. Settings › Account: the warning names the subscription and the credits before anything
    // is confirmed; then the deletion goes through and the member is signed out.
    await openFromAccountMenu(page, "Settings", "/settings/profile");
    await page
      .getByRole("navigation", { name: "Settings" })
      .getByRole("link", { name: "Account", exact: true })
      .click();
    await waitForPath(page, "/settings/account");
    await expectTitle(page, "Account Settings");
    const deleteSection = page.getByRole("region", { name: "Delete account" });
    const renewal = dayText(changed.current_period_end);
    const expectWarnings = async () => {
      const warning = deleteSection.getByTestId("subscription-warning");
      await warning.waitFor();
      const text = (await warning.textContent()) ?? "";
      expect(text).toContain(`Your Premium subscription would renew on ${renewal}`);
      expect(text).toContain("Deleting your account cancels it at once");
      expect(text).toContain("you will not be charged again");
      await deleteSection.getByText("Your 50 credits are deleted with the account.").waitFor();
    };
    await expectWarnings();
    // A session whose password was not confirmed lately asks for it first (signing in counts).
    const confirmLink = deleteSection.getByRole("link", {
      name: "Confirm your password to delete your account",
    });
    if ((await confirmLink.count()) > 0) {
      await confirmLink.click();
      await waitForPath(page, "/confirm-password");
      await page.getByLabel("Password", { exact: true }).fill(member.password);
      await page.getByRole("button", { name: "Confirm" }).click();
      await waitForPath(page, "/settings/account");
      // Still said beside the button that deletes.
      await expectWarnings();
    }
    const deleteButton = deleteSection.getByRole("button", { name: "Delete my account" });
    expect(await deleteButton.isDisabled()).toBe(true);
    await deleteSection
      .getByRole("checkbox", {
        name: "I understand that my account and everything in it will be deleted.",
      })
      .check();
    expect(await deleteButton.isEnabled()).toBe(true);
    await deleteButton.click();

    await waitForPath(page, "/account-deleted");
    await expectTitle(page, "Account Deleted");
    await page.getByRole("heading", { name: "Your account has been deleted" }).waitFor();
    expect(await getCookie(page.context(), SESSION_COOKIE)).toBeUndefined();
    expect((await api<unknown>(page, "/my/subscription/status")).status).toBe(401);
    expect((await api<unknown>(page, "/my/payments")).status).toBe(401);
    // Signed out: the member's pages send them to sign in.
    await page.goto("/my/subscription");
    await waitForPath(page, "/login");
    // And the account is gone: its password no longer signs in.
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Password", { exact: true }).fill(member.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("These credentials do not match our records.").waitFor();
    expect(new URL(page.url()).pathname).toBe("/login");
  });
});
