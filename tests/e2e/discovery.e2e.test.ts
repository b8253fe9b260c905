/**
 * Discovery in Chromium: a member searches the matches page with a filter, loads more results,
 * clears the search, then likes a member who already liked them and sees the match, on the spot
 * and on the likes page. The other members are made through the JSON API of the same Worker.
 */
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import {
  ACTION_TIMEOUT_MS,
  expectTitle,
  useBrowser,
  registerVerifiedMember,
  uniqueMember,
  visit,
  waitForPath,
} from "./helpers";
import { ApiMember, idOf } from "./api-member";

const summary = (page: Page) => page.getByTestId("search-summary");
const results = (page: Page) => page.getByRole("list", { name: "Members" }).getByRole("article");

describe("discovery in Chromium", () => {
  const browser = useBrowser();

  test("search with a filter, load more, clear, like back and match", async () => {
    // 25 members share an interest no one else has: one page of 20, then 5 more.
    const interest = `Kitesurf ${Date.now().toString(36)}`;
    const others: ApiMember[] = [];
    for (let i = 0; i < 25; i++) {
      others.push(
        await new ApiMember(uniqueMember(`kite${i}`)).join({
          firstName: `Kiter${String.fromCharCode(65 + (i % 26))}`,
          interests: [interest, "Sailing"],
        }),
      );
    }
    const admirer = others[24]!;

    const { member, page } = await registerVerifiedMember(browser(), "seeker");
    await admirer.expect("POST", "/my/likes", 201, { user_id: await idOf(page, member.username) });
    // The seeker gives a first name, which the match moment shows for them.
    const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute("content")) ?? "";
    const named = await page.evaluate(
      async (token) =>
        (
          await fetch("/my/profile", {
            method: "PUT",
            headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
            body: JSON.stringify({
              firstName: "Robin",
              bio: "Here for the long walks.",
              interests: ["Reading"],
              preferences: ["Friendship"],
              ageRange: { min: 18, max: 100 },
            }),
          })
        ).status,
      csrf,
    );
    expect(named).toBe(200);
    // The interests filter is a subscription perk.
    await visit(page, "/my/subscription");
    await page.getByRole("button", { name: "Subscribe to Plus, monthly, $9.99" }).click();
    await waitForPath(page, "/my/subscription/success");

    // Search with a filter.
    await visit(page, "/my/matches");
    await expectTitle(page, "Discover");
    const form = page.getByRole("search", { name: "Search members" });
    await form.getByText("Filters", { exact: true }).click();
    const interests = form.getByLabel("Interests", { exact: true });
    await interests.fill(interest);
    await interests.press("Enter");
    await form.getByRole("button", { name: "Search" }).click();
    await summary(page).filter({ hasText: "25 members found" }).waitFor();
    await expect.poll(() => results(page).count(), { timeout: ACTION_TIMEOUT_MS }).toBe(20);

    // Load more: the last five, none twice.
    await page.getByRole("link", { name: "Load more" }).click();
    await expect.poll(() => results(page).count(), { timeout: ACTION_TIMEOUT_MS }).toBe(25);
    const names = await results(page).evaluateAll((cards) =>
      cards.map((c) => c.getAttribute("aria-label")),
    );
    expect(new Set(names).size).toBe(25);
    expect(await page.getByRole("link", { name: "Load more" }).count()).toBe(0);

    // Clear: back to the page as it loads, the search state reset.
    await page.getByRole("link", { name: "Clear search" }).click();
    await waitForPath(page, "/my/matches");
    await summary(page).filter({ hasText: "Recently active members" }).waitFor();
    expect(await form.getByLabel("Keywords").inputValue()).toBe("");
    expect(await page.getByRole("link", { name: "Clear search" }).count()).toBe(0);

    // The member who liked me: like them back and it is a match.
    const admirerName = "KiterY";
    await form.getByLabel("Keywords").fill(admirer.details.username);
    await form.getByRole("button", { name: "Search" }).click();
    await summary(page).filter({ hasText: "1 member found" }).waitFor();
    // The Like button's name is its label; the card it sits in names the member.
    const card = page.getByRole("article", { name: new RegExp(`^${admirerName}, \\d+$`) });
    const badge = page.getByTestId("unread-count").first();
    const unread = async () => ((await badge.count()) ? Number(await badge.textContent()) : 0);
    const unreadBefore = await unread();
    await card.getByRole("button", { name: "Like", exact: true }).click();
    // One match moment: both of us, a way to say hello, and a way back to browsing.
    const match = page.getByRole("dialog", { name: "It's a match!" });
    await match.waitFor();
    // The match's notification comes over the member channel (the bell counts it) with no toast
    // on top of the dialog, and no note on the page besides.
    await expect.poll(unread).toBe(unreadBefore + 1);
    expect(await page.getByTestId("notification-toast").count()).toBe(0);
    expect(await page.locator(".alert").filter({ hasText: "It's a match!" }).count()).toBe(0);
    // It names them by their first name, never their username.
    await match
      .getByText(`You and ${admirerName} like each other. Say hello while it's fresh.`)
      .waitFor();
    expect(await match.textContent()).not.toContain(admirer.details.username);
    // My side of the pair (no photo yet) shows my first name's initial, not my username's.
    expect(await match.locator(".match-photos .member-avatar").first().textContent()).toBe("R");
    await match.getByRole("button", { name: `Send a message ${admirerName}` }).waitFor();
    // A first match is when push is offered (never on a first visit); "Not now" keeps it away.
    const offer = match.getByText(`Want to know when ${admirerName} writes back`);
    await offer.waitFor();
    await match.getByRole("button", { name: "Not now" }).click();
    await offer.waitFor({ state: "hidden" });
    expect(await match.getByRole("button", { name: "Turn on notifications" }).count()).toBe(0);
    await match.getByRole("button", { name: "Keep browsing" }).click();
    await match.waitFor({ state: "hidden" });
    await expect
      .poll(() => card.getByRole("button", { name: "Liked", exact: true, pressed: true }).count())
      .toBe(1);

    // The likes page shows the match.
    await visit(page, "/my/likes");
    await expectTitle(page, "Likes");
    const matches = page.getByRole("list", { name: "Matches" });
    await matches.getByText(admirerName).first().waitFor();
  });
});

/** The member id of a username, read as the page's own client would (GET /members/{username}). */
