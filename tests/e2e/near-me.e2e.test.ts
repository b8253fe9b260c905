/**
 * Near me in Chromium on a phone (docs/decisions/040): a member in Hobart sets a distance and
 * sorts by distance, sees the nearest members first with their distance in miles (the browser's
 * locale is en-US), then travels to Burnie and back. The other members are made through the JSON
 * API of the same Worker, in Tasmania, where no other journey puts anyone.
 */
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { ApiMember } from "./api-member";
import {
  ACTION_TIMEOUT_MS,
  openPage,
  registerThroughUi,
  uniqueMember,
  useBrowser,
  verifyEmailThroughMailbox,
  visit,
  waitForPath,
} from "./helpers";

const PHONE = { width: 390, height: 844 };

const tasmania = (city: string) => ({
  country: { isoCode: "AU", name: "Australia" },
  state: { isoCode: "TAS", name: "Tasmania", countryCode: "AU" },
  city: { name: city, countryCode: "AU", stateCode: "TAS" },
});

const results = (page: Page) => page.getByRole("list", { name: "Members" }).getByRole("article");

async function callFromPage(page: Page, method: string, path: string, body?: unknown) {
  const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute("content")) ?? "";
  return page.evaluate(
    async ({ method, path, body, csrf }) =>
      (
        await fetch(path, {
          method,
          headers: {
            "Content-Type": "application/json",
            "X-CSRF-Token": csrf,
            Accept: "application/json",
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).status,
    { method, path, body, csrf },
  );
}

describe("near me in Chromium", () => {
  const browser = useBrowser();

  test("a distance, nearest first, distances on the cards, travel and back, on a phone", async () => {
    const tag = Date.now().toString(36);
    const join = async (name: string, city: string) =>
      new ApiMember(uniqueMember(`near${name.toLowerCase()}`)).join({
        firstName: name,
        bio: `Harbour walks, ${tag}.`,
        interests: ["Sailing"],
        location: tasmania(city),
      });
    await join("Hana", "Hobart");
    await join("Lachlan", "Launceston");
    await join("Bree", "Burnie");

    const seeker = uniqueMember("nearseeker");
    const page = await openPage(browser(), {
      viewport: PHONE,
      hasTouch: true,
      label: seeker.username,
    });
    await registerThroughUi(page, seeker);
    await verifyEmailThroughMailbox(page, seeker);
    await visit(page, "/my/matches");
    expect(
      await callFromPage(page, "PUT", "/my/profile", {
        firstName: "Sam",
        bio: "Walks on the waterfront.",
        interests: ["Sailing"],
        preferences: ["Friendship"],
        ageRange: { min: 18, max: 100 },
        location: tasmania("Hobart"),
      }),
    ).toBe(200);

    await visit(page, "/my/matches");
    const form = page.getByRole("search", { name: "Search members" });
    await page.getByText("Search and filters", { exact: true }).click();
    await form.getByText("Filters", { exact: true }).click();
    const slider = form.getByRole("slider", { name: /Distance/ });
    await slider.waitFor();
    await form.getByText("From Hobart, Tasmania.").waitFor();
    // A thumb can take the slider: it is at least 44 px tall and fits the screen.
    const box = (await slider.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    // 200 km: two stops down from the largest; the phone's locale reads it in miles.
    await slider.focus();
    await slider.press("End");
    await slider.press("ArrowLeft");
    await slider.press("ArrowLeft");
    await form.getByText("Within 124 mi").waitFor();
    await form.getByLabel("Sort by").selectOption({ label: "Nearest first" });
    await form.getByLabel("Keywords").fill(tag);
    await form.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => results(page).count(), { timeout: ACTION_TIMEOUT_MS }).toBe(2);
    // Nearest first: Hobart (1 mi), then Launceston (about 100 mi); Burnie (about 150 mi) is
    // beyond 200 km.
    const first = results(page).nth(0);
    const second = results(page).nth(1);
    await first.getByRole("link", { name: /^Hana,/ }).waitFor();
    await first.getByText("1 mi away", { exact: false }).waitFor();
    await second.getByRole("link", { name: /^Lachlan,/ }).waitFor();
    expect(await second.getByText(/\b(9\d|10\d) mi away/).count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      PHONE.width,
    );

    // Travel is for subscribers: the form says so, then, subscribed, the member travels.
    await visit(page, "/my/subscription");
    await page.getByRole("button", { name: "Subscribe to Plus, monthly, $9.99" }).click();
    await waitForPath(page, "/my/subscription/success");
    expect(
      await callFromPage(page, "PUT", "/my/travel", {
        country: "AU",
        state: "TAS",
        city: "Burnie",
      }),
    ).toBe(200);
    await visit(page, `/my/matches/search?keywords=${tag}&sort=distance`);
    await page.getByText("Search and filters", { exact: true }).click();
    await form.getByText("Filters", { exact: true }).click();
    await form.getByText("From Burnie, Tasmania (travelling).").waitFor();
    await results(page)
      .nth(0)
      .getByRole("link", { name: /^Bree,/ })
      .waitFor();
    await results(page).nth(0).getByText("1 mi away", { exact: false }).waitFor();
    // Back home, from the form.
    await form.getByRole("button", { name: "Back home" }).click();
    await form.getByText("From Hobart, Tasmania.").waitFor();
  });
});
