/**
 * Discovery in Chromium: a member searches the matches page with a filter, loads more results,
 * clears the search, then likes a member who already liked them and sees the match, on the spot
 * and on the likes page. The other members are made through the JSON API of the same Worker.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  ACTION_TIMEOUT_MS,
  baseUrl,
  expectTitle,
  latestEmailFor,
  launchBrowser,
  linkFromEmail,
  registerVerifiedMember,
  uniqueMember,
  visit,
  waitForPath,
} from "./helpers";

/** A member driven through the JSON API: cookies, the CSRF token, JSON in and out. */
class ApiMember {
  private cookies = new Map<string, string>();
  private csrf = "";
  id = "";

  constructor(readonly details: ReturnType<typeof uniqueMember>) {}

  private async call(method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.cookies.size) {
      headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    }
    if (method !== "GET") headers["X-CSRF-Token"] = this.csrf;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(new URL(path, baseUrl()), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual",
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    return { status: res.status, json };
  }

  private async refreshToken() {
    this.csrf = String((await this.call("GET", "/csrf-token")).json?.token ?? "");
  }

  async expect(method: string, path: string, status: number, body?: unknown) {
    const res = await this.call(method, path, body);
    if (res.status !== status) {
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
    }
    return res.json;
  }

  /** Registers, follows the verification link from the mailbox and fills the profile. */
  async join(profile: Record<string, unknown>) {
    await this.refreshToken();
    const { username, email, password, dateOfBirth } = this.details;
    const registered = await this.expect("POST", "/register", 201, {
      username,
      email,
      password,
      password_confirmation: password,
      dateOfBirth,
    });
    this.id = String((registered?.user as { id: string }).id);
    await this.refreshToken();
    const link = linkFromEmail(await latestEmailFor(email), "/verify-email/");
    const verified = await this.call("GET", `${link.pathname}${link.search}`);
    if (verified.status !== 200 && verified.status !== 303) {
      throw new Error(`verification: ${verified.status} ${JSON.stringify(verified.json)}`);
    }
    await this.refreshToken();
    await this.expect("PUT", "/my/profile", 200, {
      bio: "Here for the long walks.",
      preferences: ["Friendship"],
      ageRange: { min: 18, max: 100 },
      ...profile,
    });
    return this;
  }
}

const summary = (page: Page) => page.getByTestId("search-summary");
const results = (page: Page) => page.getByRole("list", { name: "Members" }).getByRole("article");

describe("discovery in Chromium", () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
  });

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

    const { member, page } = await registerVerifiedMember(browser, "seeker");
    await admirer.expect("POST", "/my/likes", 201, { user_id: await idOf(page, member.username) });
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
    await page.getByRole("button", { name: `Like ${admirerName}` }).click();
    await page
      .getByText(`It's a match! You and ${admirerName} like each other.`, { exact: true })
      .waitFor();
    await expect
      .poll(() => page.getByRole("button", { name: `Unlike ${admirerName}` }).count())
      .toBe(1);

    // The likes page shows the match.
    await visit(page, "/my/likes");
    await expectTitle(page, "Likes");
    const matches = page.getByRole("list", { name: "Matches" });
    await matches.getByText(admirerName).waitFor();
  });
});

/** The member id of a username, read as the page's own client would (GET /members/{username}). */
async function idOf(page: Page, username: string): Promise<string> {
  return page.evaluate(async (name) => {
    const res = await fetch(`/members/${encodeURIComponent(name)}`, {
      headers: { Accept: "application/json" },
    });
    const body = (await res.json()) as { member: { id: string } };
    return body.member.id;
  }, username);
}
