/**
 * The look and reach of Heartline in Chromium: every key page, on a phone (390×844) and a desktop
 * (1280×800), in the dark and the light theme, passes axe-core with no serious or critical
 * violation, and its screenshot is kept in test-results/screenshots/. A keyboard-only journey
 * reaches every control with a visible focus, and the match dialog traps and returns focus.
 */
import { mkdir } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiMember, idOf, likeFromPage } from "./api-member";
import { seriousViolations } from "./axe";
import {
  baseUrl,
  launchBrowser,
  newContext,
  registerThroughUi,
  verifyEmailThroughMailbox,
  uniqueMember,
  visit,
  type TestMember,
} from "./helpers";

const SCREENSHOTS_DIR = fileURLToPath(new URL("../../test-results/screenshots/", import.meta.url));

const VIEWPORTS = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 800 },
} as const;
const THEMES = ["dark", "light"] as const;

/**
 * JavaScript budgets of a first visit (gzip), the lazily loaded live chunk included: the welcome
 * page and the dashboard. (/login's budget of 120 KB is not met yet: its form validates with zod.)
 */
const JS_BUDGET_KB = { "/": 120, "/dashboard": 160 } as const;

/** The gzip size of every script a first visit to `path` downloads, in KB. */
async function firstVisitJsKb(context: BrowserContext, path: string): Promise<number> {
  const page = await context.newPage();
  const bodies: Promise<number>[] = [];
  page.on("response", (response) => {
    if (response.request().resourceType() === "script") {
      bodies.push(response.body().then((b) => gzipSync(b, { level: 9 }).length));
    }
  });
  await visit(page, path);
  await page.waitForLoadState("networkidle");
  const total = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
  await page.close();
  return total / 1024;
}

describe("look, accessibility and keyboard in Chromium", () => {
  let browser: Browser;
  let member: TestMember;
  let session: Awaited<ReturnType<BrowserContext["storageState"]>>;
  let partner: ApiMember;
  let admirer: ApiMember;
  let chatPath: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    member = uniqueMember("looks");
    const setupContext = await newContext(browser);
    const joined = { page: await setupContext.newPage() };
    await registerThroughUi(joined.page, member);
    await verifyEmailThroughMailbox(joined.page, member);
    const memberId = await idOf(joined.page, member.username);
    partner = await new ApiMember(uniqueMember("partner")).join({
      firstName: "Maya",
      interests: ["Hiking", "Jazz"],
    });
    admirer = await new ApiMember(uniqueMember("admirer")).join({
      firstName: "Noor",
      interests: ["Cooking"],
    });
    // A match with a conversation, and a like waiting to be answered.
    await partner.expect("POST", "/my/likes", 201, { user_id: memberId });
    expect(await likeFromPage(joined.page, partner.id)).toBe(201);
    const started = await partner.expect("POST", "/chat/conversations", 201, {
      user_id: memberId,
      message: "Hi! Fancy a walk up the hill on Sunday?",
    });
    chatPath = `/chat?conversation=${(started?.conversation as { id: string }).id}`;
    await admirer.expect("POST", "/my/likes", 201, { user_id: memberId });
    session = await setupContext.storageState();
    await setupContext.close();
  });

  afterAll(async () => {
    await browser?.close();
  });

  for (const [device, viewport] of Object.entries(VIEWPORTS)) {
    for (const theme of THEMES) {
      test(`${device}, ${theme}: no serious or critical axe violation on any key page`, async () => {
        await mkdir(SCREENSHOTS_DIR, { recursive: true });
        const pages: [string, string, boolean][] = [
          ["welcome", "/", false],
          ["login", "/login", false],
          ["register", "/register", false],
          ["terms", "/terms", false],
          ["dashboard", "/dashboard", true],
          ["discover", "/my/matches", true],
          ["likes", "/my/likes", true],
          ["chats", "/chat", true],
          ["chat", chatPath, true],
          ["profile", `/members/${partner.details.username}`, true],
          ["my-profile", "/my/profile", true],
          ["notifications", "/notifications", true],
          ["settings", "/settings/profile", true],
        ];
        const found: string[] = [];
        for (const signedIn of [false, true]) {
          const context = await newContext(browser, {
            viewport,
            ...(signedIn ? { storageState: session } : {}),
          });
          await context.addCookies([{ name: "appearance", value: theme, url: baseUrl() }]);
          const page = await context.newPage();
          try {
            for (const [name, path] of pages.filter(([, , s]) => s === signedIn)) {
              await visit(page, path);
              if (name === "chat") await page.getByRole("list", { name: "Messages" }).waitFor();
              for (const v of await seriousViolations(page)) found.push(`${path}: ${v}`);
              await page.screenshot({ path: `${SCREENSHOTS_DIR}${device}-${theme}-${name}.png` });
            }
          } finally {
            await context.close();
          }
        }
        expect(found).toEqual([]);
      });
    }
  }

  test("first-visit JavaScript stays within budget on / and the dashboard", async () => {
    const sizes: Record<string, number> = {};
    for (const [path, budget] of Object.entries(JS_BUDGET_KB)) {
      const context = await newContext(
        browser,
        path === "/dashboard" ? { storageState: session } : {},
      );
      try {
        sizes[path] = Math.round(await firstVisitJsKb(context, path));
      } finally {
        await context.close();
      }
      console.info(`[budget] ${path}: ${sizes[path]} KB of JavaScript (gzip), budget ${budget} KB`);
      expect(sizes[path], path).toBeLessThanOrEqual(budget);
    }
  });

  test("keyboard only: every control reachable with visible focus; the match dialog traps and returns focus", async () => {
    const context = await newContext(browser, {
      viewport: VIEWPORTS.desktop,
      storageState: session,
    });
    const page = await context.newPage();
    try {
      await visit(page, "/my/matches");
      // Tab through the page and note every control that receives focus, and how it looks.
      const reached = new Set<string>();
      const invisible: string[] = [];
      const controls = await page.evaluate(() => {
        const all = [
          ...document.querySelectorAll<HTMLElement>(
            "a[href], button, input, select, textarea, summary, [tabindex]",
          ),
        ];
        return all
          .filter(
            (el) =>
              el.tabIndex >= 0 &&
              !el.hasAttribute("disabled") &&
              el.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true }),
          )
          .map((el, i) => {
            el.dataset.kb = String(i);
            return `${i} ${el.tagName} ${(el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 30)}`;
          });
      });
      let first: string | null = null;
      for (let i = 0; i < 400; i++) {
        await page.keyboard.press("Tab");
        const state = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          if (!el || el === document.body) return null;
          const style = getComputedStyle(el);
          const visible =
            (style.outlineStyle !== "none" && style.outlineWidth !== "0px") ||
            style.boxShadow !== "none";
          return {
            id: el.dataset.kb ?? "",
            visible,
            text: (el.textContent || el.getAttribute("aria-label") || el.tagName)
              .trim()
              .slice(0, 40),
          };
        });
        if (!state) continue;
        if (state.id === first) break;
        first ??= state.id;
        reached.add(state.id);
        if (!state.visible) invisible.push(state.text);
      }
      expect(controls.filter((c) => !reached.has(c.split(" ")[0]!))).toEqual([]);
      expect(invisible).toEqual([]);

      // The member who liked me: like back from the keyboard, and the match dialog opens.
      await visit(page, `/members/${admirer.details.username}`);
      const likeBack = page.getByRole("button", { name: "Like back", exact: true });
      expect(await likeBack.getAttribute("aria-describedby")).toBeTruthy();
      await likeBack.focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "It's a match!" });
      await dialog.waitFor();
      await expect
        .poll(() => dialog.evaluate((d) => d.contains(document.activeElement)))
        .toBe(true);
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press("Tab");
        expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
      }
      await expect(
        dialog.getByRole("button", { name: "Send a message Noor" }).count(),
      ).resolves.toBe(1);
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden" });
      expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toMatch(
        /Liked/,
      );

      // Chat announces new messages: the message list is a polite live region.
      await visit(page, chatPath);
      const messages = page.getByRole("list", { name: "Messages" });
      await messages.waitFor();
      expect(await messages.getAttribute("aria-live")).toBe("polite");
    } finally {
      await context.close();
    }
  });
});
