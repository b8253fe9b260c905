/**
 * Blocking in Chromium: two members who find each other in search chat; one blocks the other from
 * the open conversation. Both composers stop at once, the conversation leaves the list, the
 * members vanish from each other's search, and the profiles are gone. Then the block is lifted
 * from Settings › Blocked members and the profile comes back, and one reports the other from it.
 */
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { REPORTED_MESSAGE } from "../../app/schemas/report";
import {
  ACTION_TIMEOUT_MS,
  useBrowser,
  registerVerifiedMember,
  visit,
  waitForPath,
} from "./helpers";

/** POSTs JSON from the page, as the app's own client does (CSRF token from the meta tag). */
async function postFromPage(page: Page, path: string, body: unknown): Promise<number> {
  return page.evaluate(
    async ({ path, body }) => {
      const token = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content");
      const res = await fetch(path, {
        method: "POST",
        headers: {
          Accept: "application/json",
          "Content-Type": "application/json",
          "X-CSRF-Token": token ?? "",
        },
        body: JSON.stringify(body),
      });
      return res.status;
    },
    { path, body },
  );
}

/**
 * Searches the dashboard for a username and says whether that member is among the results
 * (waiting for the search to finish either way).
 */
async function findsInSearch(page: Page, username: string): Promise<boolean> {
  await visit(page, "/dashboard");
  const form = page.getByRole("search", { name: "Search members" });
  await form.getByLabel("Keywords").fill(username);
  await form.getByRole("button", { name: "Search" }).click();
  // The summary names the keywords once this search has answered.
  await page
    .getByTestId("search-summary")
    .filter({ hasText: `found for “${username}”` })
    .waitFor();
  return (await page.getByRole("article", { name: new RegExp(`^${username}, \\d+$`) }).count()) > 0;
}

describe("blocking in Chromium", () => {
  const browser = useBrowser();

  test("block from a conversation: composers refuse, the member vanishes", async () => {
    const alice = await registerVerifiedMember(browser(), "alice");
    const bob = await registerVerifiedMember(browser(), "bob");

    // Before the block they find each other.
    expect(await findsInSearch(alice.page, bob.member.username)).toBe(true);

    // Bob writes to Alice from her profile.
    await visit(bob.page, `/members/${alice.member.username}`);
    await bob.page.getByRole("button", { name: /^Message / }).click();
    await waitForPath(bob.page, "/chat");
    const bobComposer = bob.page.getByLabel("Message", { exact: true });
    await bobComposer.fill("Hi Alice, fancy a coffee?");
    await bobComposer.press("Enter");
    await expect
      .poll(() => bob.page.getByTestId("message").count(), { timeout: ACTION_TIMEOUT_MS })
      .toBe(1);
    const conversation = new URL(bob.page.url()).searchParams.get("conversation");
    expect(conversation).toBeTruthy();

    // Alice opens the conversation and sees the message.
    await visit(alice.page, `/chat?conversation=${conversation}`);
    await expect
      .poll(
        () =>
          alice.page
            .getByTestId("message")
            .filter({ hasText: "Hi Alice, fancy a coffee?" })
            .count(),
        { timeout: ACTION_TIMEOUT_MS },
      )
      .toBe(1);
    const aliceComposer = alice.page.getByLabel("Message", { exact: true });
    expect(await aliceComposer.isEnabled()).toBe(true);

    // Alice blocks Bob from the conversation.
    await alice.page.getByRole("button", { name: "More actions" }).click();
    await alice.page.getByRole("menuitem", { name: /^Block / }).click();
    const dialog = alice.page.getByRole("dialog");
    await dialog.getByLabel("Reason").selectOption("harassment");
    await dialog.getByLabel("Note (optional)").fill("Would not take no for an answer.");
    await dialog.getByRole("button", { name: "Block", exact: true }).click();
    await dialog.getByText("User has been blocked successfully.").waitFor();

    // Both composers refuse at once: the conversation's sockets were closed by the block.
    await expect.poll(() => aliceComposer.isDisabled(), { timeout: ACTION_TIMEOUT_MS }).toBe(true);
    await expect.poll(() => bobComposer.isDisabled(), { timeout: ACTION_TIMEOUT_MS }).toBe(true);
    expect(await bobComposer.getAttribute("placeholder")).toBe(
      "You can no longer message this member",
    );
    // And the server refuses a message sent anyway.
    expect(
      await postFromPage(bob.page, `/chat/conversations/${conversation}/messages`, {
        message: "Why?",
      }),
    ).toBe(403);

    // Back to the lists: the conversation is gone.
    await dialog.getByRole("button", { name: "Back to conversations" }).click();
    await expect
      .poll(() => alice.page.getByRole("dialog").count(), { timeout: ACTION_TIMEOUT_MS })
      .toBe(0);
    await visit(alice.page, "/chat");
    expect(await alice.page.getByText(bob.member.username).count()).toBe(0);

    // They vanish from each other's search.
    expect(await findsInSearch(alice.page, bob.member.username)).toBe(false);
    expect(await findsInSearch(bob.page, alice.member.username)).toBe(false);

    // Each profile is gone for the other.
    const bobSeesAlice = await bob.page.goto(`/members/${alice.member.username}`);
    expect(bobSeesAlice?.status()).toBe(404);
    const aliceSeesBob = await alice.page.goto(`/members/${bob.member.username}`);
    expect(aliceSeesBob?.status()).toBe(404);

    // Alice's blocked list shows Bob; unblocking brings his profile back.
    await visit(alice.page, "/settings/blocked");
    const row = alice.page.getByRole("listitem").filter({ hasText: bob.member.username });
    await row.waitFor();
    await row.getByRole("button", { name: /^Unblock / }).click();
    await alice.page.getByText("User has been unblocked successfully.").waitFor();
    await alice.page.getByText("You have not blocked anyone.").waitFor();
    const again = await alice.page.goto(`/members/${bob.member.username}`);
    expect(again?.status()).toBe(200);

    // From the profile, Alice reports Bob to the moderators: a reason is required.
    await alice.page.getByRole("button", { name: "More actions" }).click();
    await alice.page.getByRole("menuitem", { name: /^Report / }).click();
    const report = alice.page.getByRole("dialog");
    await report.getByRole("button", { name: "Send report" }).click();
    await report.getByText("Please choose a reason.").waitFor();
    await report.getByLabel("What is wrong?").selectOption("harassment");
    await report.getByLabel("Details (optional)").fill("Kept writing after I said no.");
    await report.getByRole("button", { name: "Send report" }).click();
    await report.getByText(REPORTED_MESSAGE).waitFor();
  });
});
