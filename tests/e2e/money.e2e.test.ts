/**
 * Money in Chromium, through the local test provider: from a conversation with no credits the
 * gift picker leads to buying a pack and back; the balance shows; a gift goes out and the other
 * member sees it; then a subscription is taken and cancelled with a reason.
 */
import { describe, expect, test } from "vitest";
import { expectTitle, useBrowser, registerVerifiedMember, visit, waitForPath } from "./helpers";

describe("credits, gifts and subscriptions in Chromium", () => {
  const browser = useBrowser();

  test("buy a pack, see the balance, send a gift in chat, subscribe, cancel", async () => {
    const { page: a } = await registerVerifiedMember(browser(), "giver");
    const { member: bob, page: b } = await registerVerifiedMember(browser(), "taker");

    // Alice opens a conversation with Bob; with no credits the picker leads to buying some.
    await visit(a, `/members/${bob.username}`);
    await a.getByRole("button", { name: `Message ${bob.username}` }).click();
    await a.waitForURL((url) => url.pathname.startsWith("/chat"));
    await a.getByRole("region", { name: `Conversation with ${bob.username}` }).waitFor();
    const chatUrl = a.url();
    // The gift button draws its icon, not an emoji that needs the device's emoji font.
    const giftButton = a.getByRole("button", { name: "Send a gift" });
    expect(await giftButton.locator("svg").count()).toBe(1);
    expect((await giftButton.textContent())?.trim()).toBe("");
    await giftButton.click();
    const picker = a.getByRole("dialog", { name: "Send a gift" });
    await picker.getByText("You have 0 credits").waitFor();
    expect(await picker.getByRole("button", { name: /Rose/ }).isDisabled()).toBe(true);
    await picker.getByRole("link", { name: "Buy credits" }).click();

    await waitForPath(a, "/my/credits");
    await expectTitle(a, "Credits");
    await a.getByText("Test payments", { exact: false }).waitFor();
    expect(await a.getByTestId("balance").textContent()).toBe("0");
    await a.getByRole("button", { name: "Buy Starter: 50 credits for $4.99" }).click();

    await waitForPath(a, "/my/credits/success");
    await a.getByText("50 credits were added").waitFor();
    expect(await a.getByTestId("balance").textContent()).toBe("50");
    await a.getByRole("link", { name: "Back to the conversation" }).click();
    await a.waitForURL(chatUrl);

    // Back in the conversation: the picker shows the balance, and the rose goes out.
    await a.getByRole("region", { name: `Conversation with ${bob.username}` }).waitFor();
    await a.getByRole("button", { name: "Send a gift" }).click();
    await picker.getByText("You have 50 credits").waitFor();
    await picker.getByRole("button", { name: /Rose/ }).click();
    await a.getByText("You sent a gift:").waitFor();
    // The bubble shows at once while it is on its way; the gift is stored once it is ticked sent
    // (or delivered already: Bob's open page hears of it on his own channel).
    await a.locator('[data-testid="ticks-sent"], [data-testid="ticks-delivered"]').last().waitFor();
    expect(await a.getByTestId("ticks-pending").count()).toBe(0);

    // Bob sees it in his gifts.
    await visit(b, "/my/gifts");
    await b.getByText("Rose", { exact: false }).first().waitFor();
    await b.getByText("5 credits").waitFor();

    // Alice's credits page: the balance after the gift and both transactions.
    await visit(a, "/my/credits");
    await expect.poll(() => a.getByTestId("balance").textContent()).toBe("45");
    await a.getByText("Gift sent").waitFor();
    await a.getByText("Credits bought").waitFor();

    // Subscribe to Plus, monthly.
    await visit(a, "/my/subscription");
    await expectTitle(a, "Subscription");
    await a.getByText("You are on the free plan", { exact: false }).waitFor();
    await a.getByRole("button", { name: "Subscribe to Plus, monthly, $9.99" }).click();
    await waitForPath(a, "/my/subscription/success");
    await a.getByText("Welcome to Plus!").waitFor();
    await a.getByRole("link", { name: "Your subscription" }).click();
    await waitForPath(a, "/my/subscription");
    await expect.poll(() => a.getByTestId("subscription-status").textContent()).toBe("Active");

    // Cancel: asked to confirm, with a reason; the perks run to the period end.
    await a.getByRole("button", { name: "Cancel subscription" }).click();
    const confirm = a.getByRole("button", { name: "Confirm cancellation" });
    expect(await confirm.isDisabled()).toBe(true);
    await a.getByLabel("Why are you cancelling?").fill("Found someone");
    await confirm.click();
    await expect.poll(() => a.getByTestId("subscription-status").textContent()).toBe("Cancelled");
    await a.getByText("nothing renews", { exact: false }).waitFor();
    // And it stays so after a reload.
    await visit(a, "/my/subscription");
    await expect.poll(() => a.getByTestId("subscription-status").textContent()).toBe("Cancelled");
  });
});
