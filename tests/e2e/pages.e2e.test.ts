/**
 * Dashboard and Discover in Chromium, each with its own job: the dashboard is "today" (who liked
 * me, matches, conversations waiting, who viewed me, suggestions), Discover the search with its
 * filters and results. On a phone (390×844) both fit the width and show faces on the first screen;
 * on a desktop the dashboard uses its width. Like buttons are named by their label; empty states
 * offer a way forward. axe-clean. The signed-in header fits every desktop width (1024–1440 px) with
 * Sign out inside it, and the settings tabs all fit a 360 px phone without scrolling sideways.
 * On a desktop, Discover's filters are a sticky column left of the results; on a phone a collapsed
 * panel above them.
 */
import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { ApiMember, idOf, likeFromPage } from "./api-member";
import { seriousViolations } from "./axe";
import {
  baseUrl,
  useBrowser,
  newContext,
  registerThroughUi,
  uniqueMember,
  verifyEmailThroughMailbox,
  visit,
  type TestMember,
} from "./helpers";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/**
 * Whether the page's own content (the site header aside) is wider than the window: what is
 * clipped (an ellipsis) or scrolls inside its own box (a row of faces) does not count.
 */
const scrollsSideways = (page: Page) =>
  page.evaluate(() => {
    const main = document.getElementById("main")!;
    return main.scrollWidth > document.documentElement.clientWidth;
  });

describe("dashboard and Discover", () => {
  const browser = useBrowser();
  let member: TestMember;
  let session: Awaited<ReturnType<BrowserContext["storageState"]>>;
  const others: ApiMember[] = [];

  beforeAll(async () => {
    member = uniqueMember("today");
    const context = await newContext(browser());
    const page = await context.newPage();
    await registerThroughUi(page, member);
    await verifyEmailThroughMailbox(page, member);
    const memberId = await idOf(page, member.username);
    const names = ["Maya", "Noor", "Theo", "Lena", "Omar", "Iris"];
    for (const firstName of names) {
      others.push(
        await new ApiMember(uniqueMember(firstName.toLowerCase())).join({
          firstName,
          interests: ["Hiking", "Jazz"],
        }),
      );
    }
    const [maya, noor, theo, lena] = others as [ApiMember, ApiMember, ApiMember, ApiMember];
    // Noor likes me (waiting for an answer); Maya and I match; Theo writes; Lena views my profile.
    await noor.expect("POST", "/my/likes", 201, { user_id: memberId });
    await maya.expect("POST", "/my/likes", 201, { user_id: memberId });
    expect(await likeFromPage(page, maya.id)).toBe(201);
    await theo.expect("POST", "/chat/conversations", 201, {
      user_id: memberId,
      message: "Hi! Jazz on Friday?",
    });
    await lena.expect("GET", `/members/${member.username}`, 200);
    session = await context.storageState();
    await context.close();
  });

  async function signedIn(viewport: { width: number; height: number }, theme = "dark") {
    const context = await newContext(browser(), { viewport, storageState: session });
    await context.addCookies([{ name: "appearance", value: theme, url: baseUrl() }]);
    return context.newPage();
  }

  test("the dashboard is today: likes, matches, conversations waiting, viewers, suggestions", async () => {
    const page = await signedIn(DESKTOP);
    try {
      await visit(page, "/dashboard");
      const section = (name: string) => page.getByRole("region", { name: new RegExp(`^${name}`) });
      await section("Liked you")
        .getByRole("link", { name: /^Noor, \d+/ })
        .waitFor();
      await section("New matches")
        .getByRole("link", { name: /^Maya, \d+/ })
        .waitFor();
      await section("Conversations waiting").getByText("Hi! Jazz on Friday?").waitFor();
      await section("Viewed you")
        .getByRole("link", { name: /^Lena, \d+/ })
        .waitFor();
      const suggested = page.getByRole("list", { name: "Suggested members" }).getByRole("article");
      expect(await suggested.count()).toBeGreaterThan(0);

      // The dashboard has a search bar, not Discover's filters and grid of results.
      await page.getByRole("search", { name: "Search members" }).waitFor();
      expect(await page.getByText("Filters", { exact: true }).count()).toBe(0);

      // The width is used: the side column sits beside the main one, level with its top (once
      // the page has settled: hydration and the late images may still move things).
      const columns = async () => ({
        main: (await page.locator(".today-main").boundingBox())!,
        side: (await page.locator(".today-side").boundingBox())!,
      });
      await expect
        .poll(async () => {
          const { main, side } = await columns();
          return Math.abs(side.y - main.y);
        })
        .toBeLessThan(2);
      const { main, side } = await columns();
      expect(side.x).toBeGreaterThan(main.x + main.width - 1);
      expect(side.x + side.width).toBeGreaterThan(DESKTOP.width * 0.8);
      expect(await scrollsSideways(page)).toBe(false);

      // Every Like button is named by what it says.
      const likes = page.locator(".like-control > button");
      const labels = await likes.evaluateAll((buttons) =>
        buttons.map((b) => (b.textContent ?? "").replace(/[♡♥]/g, "").trim()),
      );
      expect(labels.length).toBeGreaterThan(0);
      for (const label of new Set(labels)) {
        expect(
          await page.getByRole("button", { name: label, exact: true }).count(),
          `buttons named "${label}"`,
        ).toBe(labels.filter((l) => l === label).length);
      }
      expect(await seriousViolations(page)).toEqual([]);

      // The search bar leads to the search with its results.
      const search = page.getByRole("search", { name: "Search members" });
      await search.getByLabel("Keywords").fill("Noor");
      await search.getByRole("button", { name: "Search" }).click();
      await page.waitForURL((url) => url.pathname === "/dashboard/search");
      await page.getByTestId("search-summary").filter({ hasText: "found for “Noor”" }).waitFor();
    } finally {
      await page.context().close();
    }
  });

  for (const theme of ["dark", "light"]) {
    test(`${theme}: Discover's filters are a sticky column beside the results on a desktop; a phone opens on faces, the search behind one control`, async () => {
      const page = await signedIn(DESKTOP, theme);
      try {
        await visit(page, "/my/matches");
        const form = page.getByRole("search", { name: "Search members" });
        const card = page.getByRole("article").first();
        await card.waitFor();
        const formBox = (await form.boundingBox())!;
        const cardBox = (await card.boundingBox())!;
        // Beside the grid, on its left, and both on the first screen.
        expect(formBox.x + formBox.width).toBeLessThanOrEqual(cardBox.x);
        expect(Math.abs(formBox.y - cardBox.y)).toBeLessThan(120);
        // The first face (a square photo at the top of the card) is whole on the first screen.
        expect(cardBox.y + cardBox.width).toBeLessThan(DESKTOP.height);
        // Open without a click, and "Filters" is the column's title: a click does not fold them.
        expect(await form.getByLabel("Gender").isVisible()).toBe(true);
        expect(await form.getByLabel("Minimum age").isVisible()).toBe(true);
        await form.getByText("Filters", { exact: true }).click();
        expect(await form.getByLabel("Gender").isVisible()).toBe(true);
        expect(await scrollsSideways(page)).toBe(false);
        expect(await seriousViolations(page)).toEqual([]);

        // Sticky: scrolled down the results, the search is still whole on the screen, under the
        // header, at every desktop width.
        for (const width of [1024, 1100, 1101, 1280, 1440]) {
          await page.setViewportSize({ width, height: 520 });
          await page.evaluate(() => window.scrollTo(0, 400));
          const stuck = await page.evaluate(() => {
            const box = document.querySelector("form[role=search]")!.getBoundingClientRect();
            const header = document.querySelector(".site-header")!.getBoundingClientRect();
            return {
              scrolled: window.scrollY,
              top: box.top,
              bottom: box.bottom,
              under: header.bottom,
            };
          });
          expect(stuck.scrolled, `${width} px`).toBe(400);
          expect(stuck.top, `${width} px: ${JSON.stringify(stuck)}`).toBeGreaterThanOrEqual(
            stuck.under,
          );
          expect(stuck.bottom, `${width} px`).toBeLessThanOrEqual(520);
        }

        // A phone opens on faces: the search and its filters wait behind one control, and the
        // first row of faces is whole on the first screen, high on it.
        await page.setViewportSize(PHONE);
        await visit(page, "/my/matches");
        const drawer = page.getByText("Search and filters", { exact: true });
        const phoneCard = (await card.boundingBox())!;
        const drawerBox = (await drawer.boundingBox())!;
        expect(drawerBox.y + drawerBox.height).toBeLessThanOrEqual(phoneCard.y);
        expect(drawerBox.height).toBeGreaterThanOrEqual(44);
        expect(phoneCard.y, "the first face's top").toBeLessThan(PHONE.height * 0.4);
        expect(phoneCard.y + phoneCard.width, "the first photo's bottom").toBeLessThan(
          PHONE.height * 0.75,
        );
        expect(await form.isVisible()).toBe(false);
        expect(await seriousViolations(page)).toEqual([]);
        // Asked for, the search opens above the results, its filters still folded; a search
        // folds it away again onto the results.
        await drawer.click();
        await form.getByLabel("Keywords").waitFor();
        expect(await form.getByLabel("Gender").isVisible()).toBe(false);
        await form.getByText("Filters", { exact: true }).click();
        await form.getByLabel("Gender").waitFor();
        expect(await seriousViolations(page)).toEqual([]);
        await form.getByLabel("Keywords").fill("a");
        await form.getByRole("button", { name: "Search" }).click();
        await page.getByTestId("search-summary").filter({ hasText: "found for “a”" }).waitFor();
        await expect.poll(() => form.isVisible()).toBe(false);
        expect(await scrollsSideways(page)).toBe(false);
      } finally {
        await page.context().close();
      }
    });
  }

  test("the header is one row at every width from 761 to 1440 px, Discover, Likes and Chat in view, the rest in the account menu by keyboard; the settings tabs fit a 360 px phone", async () => {
    const page = await signedIn(DESKTOP);
    try {
      for (const width of [761, 1024, 1100, 1180, 1280, 1360, 1440]) {
        await page.setViewportSize({ width, height: 800 });
        await visit(page, "/dashboard");
        const overflow = await page.evaluate(() => {
          const viewport = document.documentElement.clientWidth;
          const header = document.querySelector(".site-header")!.getBoundingClientRect();
          const right = Math.min(viewport, header.right);
          const parts = [
            ...document.querySelectorAll(".site-header .nav a, .site-header .header-actions > *"),
          ];
          const out = parts
            .map((el) => ({ el, box: el.getBoundingClientRect() }))
            .filter(({ box }) => box.left < header.left - 0.5 || box.right > right + 0.5)
            .map(({ el, box }) => `${(el.textContent ?? "").trim() || el.className} ${box.right}`);
          if (header.height > 72) out.push(`the header is ${header.height} px tall`);
          if (document.documentElement.scrollWidth > viewport)
            out.push("the page scrolls sideways");
          return out;
        });
        expect(overflow, `${width} px`).toEqual([]);
        const main = page.getByRole("navigation", { name: "Main" });
        for (const name of ["Discover", "Likes", "Chat"]) {
          expect(await main.getByRole("link", { name }).isVisible(), `${width} px ${name}`).toBe(
            true,
          );
        }
      }

      // The account menu, by keyboard: Enter opens it, Tab walks its links, Escape closes it and
      // gives focus back to the avatar.
      await page.setViewportSize(DESKTOP);
      const account = page.locator("summary", { hasText: "Account menu" });
      await account.focus();
      await page.keyboard.press("Enter");
      const links = page.getByRole("navigation", { name: "Your account" });
      await links.waitFor();
      for (const name of ["My profile", "Activities", "Credits", "Subscription", "Settings"]) {
        expect(await links.getByRole("link", { name }).isVisible()).toBe(true);
      }
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("My profile");
      const signOut = page.getByRole("button", { name: "Sign out" });
      const box = await signOut.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(DESKTOP.width);
      await page.keyboard.press("Escape");
      await links.waitFor({ state: "hidden" });
      expect(await account.evaluate((el) => el === document.activeElement)).toBe(true);

      await page.setViewportSize({ width: 360, height: 740 });
      const tabs = ["profile", "password", "appearance", "notifications", "privacy", "blocked"];
      for (const path of [...tabs, "account"].map((tab) => `/settings/${tab}`)) {
        await visit(page, path);
        const fit = await page.evaluate(() => {
          const nav = document.querySelector<HTMLElement>("nav.settings-nav")!;
          const viewport = document.documentElement.clientWidth;
          const links = [...nav.querySelectorAll("a")].map((a) => a.getBoundingClientRect());
          return {
            fits: nav.scrollWidth <= nav.clientWidth,
            offscreen: links.filter((b) => b.left < 0 || b.right > viewport || b.width === 0)
              .length,
            links: links.length,
            pageFits: document.documentElement.scrollWidth <= viewport,
          };
        });
        expect(fit, path).toEqual({ fits: true, offscreen: 0, links: 7, pageFits: true });
      }
    } finally {
      await page.context().close();
    }
  });

  for (const theme of ["dark", "light"]) {
    test(`${theme}, phone: faces on the first screen, nothing sideways, Like and Message on each card`, async () => {
      const page = await signedIn(PHONE, theme);
      try {
        for (const path of ["/dashboard", "/my/matches"]) {
          await visit(page, path);
          expect(await scrollsSideways(page), path).toBe(false);
          const card = page.getByRole("article").first();
          await card.waitFor();
          const box = await card.boundingBox();
          expect(box!.y, `${path}: first card's top`).toBeLessThan(PHONE.height * 0.85);
          // This member skipped onboarding: the reminder is one compact bar, not a screen's top.
          const nudge = await page
            .getByRole("complementary", { name: "Your profile" })
            .boundingBox();
          expect(nudge!.height, `${path}: the finish-your-profile bar`).toBeLessThan(90);
          expect(nudge!.x, `${path}: the bar is inset from the screen's edge`).toBeGreaterThan(4);
          // Compact: two cards side by side, far shorter than a screen.
          expect(box!.width).toBeLessThan(PHONE.width / 2);
          expect(box!.height).toBeLessThan(340);
          await card.getByRole("button", { name: "Like", exact: true }).waitFor();
          await card.getByRole("button", { name: /^Message / }).waitFor();
          expect(await seriousViolations(page), path).toEqual([]);
        }
        // Discover's job is the search: it is one control away, above the faces.
        await page.getByText("Search and filters", { exact: true }).waitFor();
      } finally {
        await page.context().close();
      }
    });
  }

  test("a new member's dashboard offers a way forward instead of bare sentences", async () => {
    const context = await newContext(browser(), { viewport: PHONE });
    const page = await context.newPage();
    try {
      const newcomer = uniqueMember("fresh");
      await registerThroughUi(page, newcomer);
      await verifyEmailThroughMailbox(page, newcomer);
      await visit(page, "/dashboard");
      await page.getByRole("link", { name: "Improve your profile" }).waitFor();
      await page.getByRole("link", { name: "Open chat" }).waitFor();
      await visit(page, "/chat");
      const empty = page.getByRole("region", { name: "Conversations" });
      await empty.getByRole("link", { name: "Your matches" }).waitFor();
      await empty.getByRole("link", { name: "Discover members" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
