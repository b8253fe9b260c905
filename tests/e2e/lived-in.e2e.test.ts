/**
 * Layouts that hold with real data: a member with the life of the seed's demo account (seven
 * members who liked them and wait for an answer, matches, conversations with long first messages,
 * members whose first names are long) and a member who just joined, on every key page, from a
 * 320 px phone to a 1440 px desktop, in the dark and the light theme. Nothing is wider than the
 * window; names in "Conversations waiting" keep their width; on Likes, every button sits inside
 * its member's row.
 */
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { ApiMember, idOf, likeFromPage } from "./api-member";
import {
  baseUrl,
  newContext,
  registerThroughUi,
  uniqueMember,
  useBrowser,
  verifyEmailThroughMailbox,
  visit,
} from "./helpers";

const WIDTHS = [320, 390, 1280, 1440] as const;
const SCREENSHOTS_DIR = fileURLToPath(new URL("../../test-results/screenshots/", import.meta.url));
const THEMES = ["dark", "light"] as const;

/** First names as long as a profile allows, and a few ordinary ones. */
const LIKERS = [
  "Maximiliana Alexandrina",
  "Bartholomew-Christopher",
  "Anastasiya Konstantinova",
  "Oluwaseun Adebayo-Okafor",
  "Guðrún Sigurðardóttir",
  "Jean-Baptiste Emmanuel",
  "Iris",
];
const MATCHES = ["Wilhelmina Fitzgerald-Hughes", "Noor"];
const LONG_MESSAGE =
  "Hi! I saw you like long walks as well: have you ever done the whole ridge from the old " +
  "lighthouse to the harbour in one go? It takes most of a day, with a picnic halfway, and the " +
  "view at the top is worth every step. Coffee first, maybe on Saturday morning?";

/** How much wider than the window the document is (0 when it fits). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe("layouts that hold with a lived-in account", () => {
  const browser = useBrowser();
  let lived: Awaited<ReturnType<BrowserContext["storageState"]>>;
  let fresh: Awaited<ReturnType<BrowserContext["storageState"]>>;
  let conversationPath = "/chat";
  let likerUsername = "";
  let lastMatch: { member: ApiMember; conversationId: string } | undefined;

  beforeAll(async () => {
    const member = uniqueMember("lived");
    const context = await newContext(browser());
    const page = await context.newPage();
    await registerThroughUi(page, member);
    await verifyEmailThroughMailbox(page, member);
    const memberId = await idOf(page, member.username);
    for (const firstName of LIKERS) {
      const liker = await new ApiMember(uniqueMember("liker")).join({
        firstName,
        interests: ["Hiking", "Jazz"],
      });
      await liker.expect("POST", "/my/likes", 201, { user_id: memberId });
      await liker.expect("GET", `/members/${member.username}`, 200);
      likerUsername ||= liker.details.username;
    }
    for (const firstName of MATCHES) {
      const match = await new ApiMember(uniqueMember("match")).join({
        firstName,
        interests: ["Cooking"],
      });
      await match.expect("POST", "/my/likes", 201, { user_id: memberId });
      expect(await likeFromPage(page, match.id)).toBe(201);
      const started = await match.expect("POST", "/chat/conversations", 201, {
        user_id: memberId,
        message: LONG_MESSAGE,
      });
      const conversationId = (started?.conversation as { id: string }).id;
      conversationPath = `/chat?conversation=${conversationId}`;
      lastMatch = { member: match, conversationId };
    }
    lived = await context.storageState();
    await context.close();

    const newcomer = uniqueMember("newcomer");
    const newContext_ = await newContext(browser());
    const newPage = await newContext_.newPage();
    await registerThroughUi(newPage, newcomer);
    await verifyEmailThroughMailbox(newPage, newcomer);
    fresh = await newContext_.storageState();
    await newContext_.close();
  }, 240_000);

  test("no key page is wider than the window, 320–1440 px, both themes, lived-in and new", async () => {
    const pages = [
      "/dashboard",
      "/my/likes",
      "/my/matches",
      "/chat",
      conversationPath,
      "/notifications",
      `/members/${likerUsername}`,
    ];
    const found: string[] = [];
    for (const [who, session] of [
      ["lived-in", lived],
      ["new", fresh],
    ] as const) {
      for (const theme of THEMES) {
        const context = await newContext(browser(), { storageState: session });
        await context.addCookies([{ name: "appearance", value: theme, url: baseUrl() }]);
        const page = await context.newPage();
        try {
          for (const width of WIDTHS) {
            await page.setViewportSize({ width, height: width < 800 ? 844 : 800 });
            for (const path of pages) {
              if (who === "new" && path !== "/dashboard" && path !== "/my/likes") continue;
              await visit(page, path);
              const wider = await overflow(page);
              if (wider > 0) found.push(`${who} ${theme} ${width}px ${path}: ${wider}px too wide`);
            }
          }
        } finally {
          await context.close();
        }
      }
    }
    expect(found).toEqual([]);
  }, 600_000);

  test("notifications: one row per conversation and per kind, each at most two lines on a phone", async () => {
    const context = await newContext(browser(), {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      storageState: lived,
    });
    const page = await context.newPage();
    try {
      // A conversation read, then written to again: its earlier notification and the new one.
      // The page that read it is closed first: a member still looking at the conversation is not
      // notified of what they see arrive.
      const reader = await context.newPage();
      await visit(reader, conversationPath);
      const { member: sender, conversationId } = lastMatch!;
      await expect
        .poll(async () => {
          const response = await reader.request.get("/chat/conversations", {
            headers: { Accept: "application/json" },
          });
          const body = (await response.json()) as {
            conversations: { id: string; unread_count: number }[];
          };
          return body.conversations.find((c) => c.id === conversationId)?.unread_count;
        })
        .toBe(0);
      await reader.close();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await sender.expect("POST", `/chat/conversations/${conversationId}/messages`, 201, {
        message: "Are you around this weekend?",
      });
      const rows = page.getByRole("list", { name: "Notifications" }).getByRole("listitem");
      // The notification is written after the send answers: look again until it is listed.
      await expect
        .poll(async () => {
          await visit(page, "/notifications");
          return rows.filter({ hasText: "Are you around" }).count();
        })
        .toBe(1);
      const links = await rows.evaluateAll((items) =>
        items.map((li) => ({
          text: li.querySelector(".notification-body a")?.textContent ?? "",
          href: li.querySelector(".notification-body a")?.getAttribute("href") ?? "",
        })),
      );
      // Each conversation is one row, whatever number of notifications it holds.
      const chats = links.filter((l) => l.href.startsWith("/chat")).map((l) => l.href);
      expect(new Set(chats).size).toBe(chats.length);
      expect(chats).toContain(`/chat?conversation=${conversationId}`);
      // The likes (the likers and the matches) are one row naming two and counting the rest; the
      // profile views are one row.
      const likes = links.filter((l) => l.text.endsWith("liked you"));
      expect(likes).toHaveLength(1);
      expect(likes[0]!.text).toMatch(/, .+ and \d+ others liked you$/);
      expect(links.filter((l) => l.text.endsWith("viewed your profile"))).toHaveLength(1);
      const likeRow = rows.filter({ hasText: /liked you$/ });
      const count = Number(await likeRow.locator(".notification-count").innerText());
      expect(count).toBeGreaterThan(1);
      // Compact: no row is taller than two lines of text and its time beside a face.
      const heights = await rows.evaluateAll((items) =>
        items.map((li) => Math.round(li.getBoundingClientRect().height)),
      );
      expect(Math.max(...heights)).toBeLessThanOrEqual(100);
      await mkdir(SCREENSHOTS_DIR, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS_DIR}lived-in-notifications-phone.png` });

      // "Mark read" on the likes row marks every like it shows read at once; the bell, which
      // counts unread rows, follows the server (likes beyond the loaded page, if any, keep theirs).
      const bell = page.getByRole("link", { name: /^Notifications, \d+ unread$/ });
      const server = () =>
        page.evaluate(async () => {
          const res = await fetch("/notifications", { headers: { Accept: "application/json" } });
          return (await res.json()) as { unread_count: number; unread_groups: number };
        });
      const bellNumber = async () => {
        const label = (await bell.count()) ? await bell.getAttribute("aria-label") : "0";
        return Number(label!.match(/\d+/)![0]);
      };
      const before = await server();
      expect(await bellNumber()).toBe(before.unread_groups);
      await likeRow.getByRole("button", { name: /^Mark read/ }).click();
      await expect.poll(() => likeRow.locator(".notification-count").count()).toBe(0);
      await expect.poll(async () => (await server()).unread_groups).toBe(before.unread_groups - 1);
      expect((await server()).unread_count).toBeLessThanOrEqual(before.unread_count - count);
      await expect.poll(bellNumber).toBe(before.unread_groups - 1);
      await page.reload();
      expect(
        await rows
          .filter({ hasText: /liked you$/ })
          .getByRole("button")
          .count(),
      ).toBe(0);
    } finally {
      await context.close();
    }
  });

  test("dashboard: six and more likers scroll inside their strip; waiting names keep their width", async () => {
    for (const width of [390, 1280]) {
      const context = await newContext(browser(), {
        viewport: { width, height: 844 },
        storageState: lived,
      });
      const page = await context.newPage();
      try {
        await visit(page, "/dashboard");
        const strip = page.getByRole("list", { name: "Liked you" });
        expect(await strip.getByRole("listitem").count()).toBeGreaterThanOrEqual(6);
        const box = await strip.boundingBox();
        expect(box!.x + box!.width).toBeLessThanOrEqual(width);
        // The bottom tab bar (a phone) stays on the screen.
        if (width < 800) {
          const tabs = await page.getByRole("navigation", { name: "Sections" }).boundingBox();
          expect(tabs!.x + tabs!.width).toBeLessThanOrEqual(width);
        }
        const names = await page
          .locator(".unread-list strong")
          .evaluateAll((els) =>
            els.map((el) => ({ text: el.textContent ?? "", shown: el.clientWidth })),
          );
        expect(names.length).toBeGreaterThan(0);
        for (const { text, shown } of names) {
          // Either the whole name, or at least the width of eight letters before the ellipsis.
          expect(shown, `"${text}" at ${width}px`).toBeGreaterThanOrEqual(
            Math.min(70, text.length * 7),
          );
        }
      } finally {
        await context.close();
      }
    }
  });

  test("likes: every button sits inside its member's row, on a phone and a desktop", async () => {
    for (const width of [320, 390, 1280]) {
      const context = await newContext(browser(), {
        viewport: { width, height: 844 },
        storageState: lived,
      });
      const page = await context.newPage();
      try {
        await visit(page, "/my/likes");
        const outside = await page.evaluate(() => {
          const bad: string[] = [];
          for (const link of document.querySelectorAll<HTMLElement>(".likes-sections li a")) {
            // The box the member's row is drawn in: the nearest element with a border.
            let box: HTMLElement | null = link;
            while (box && parseFloat(getComputedStyle(box).borderTopWidth) === 0) {
              box = box.parentElement;
            }
            const item = link.closest("li")!;
            const frame = box!.getBoundingClientRect();
            for (const button of item.querySelectorAll("button")) {
              const b = button.getBoundingClientRect();
              if (
                b.left < frame.left ||
                b.right > frame.right ||
                b.top < frame.top ||
                b.bottom > frame.bottom
              ) {
                bad.push(`${button.textContent?.trim()} of ${link.textContent?.trim()}`);
              }
            }
          }
          return bad;
        });
        expect(outside, `${width}px`).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  test("touch: every control on the phone pages is at least 44×44 px", async () => {
    const context = await newContext(browser(), {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      storageState: lived,
    });
    const page = await context.newPage();
    const small: string[] = [];
    try {
      for (const path of [
        "/dashboard",
        "/my/matches",
        "/my/likes",
        "/notifications",
        `/members/${likerUsername}`,
        "/my/profile",
        "/settings/profile",
      ]) {
        await visit(page, path);
        const found = await page.evaluate(() => {
          // What a finger presses: buttons, fields, links drawn as buttons or rows; a checkbox or
          // radio by its label. A link inside a sentence is exempt (WCAG 2.5.8 "inline").
          const controls = [
            ...document.querySelectorAll<HTMLElement>(
              "button, summary, select, textarea, input, a[href], [role=button], [tabindex='0']",
            ),
          ];
          const out: string[] = [];
          for (const el of controls) {
            if (el instanceof HTMLInputElement && el.type === "hidden") continue;
            if (!el.checkVisibility({ visibilityProperty: true })) continue;
            if (el.closest(".sr-only, .skip-link")) continue;
            if (el.tagName === "A" && el.closest("p")) continue;
            const target =
              el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")
                ? (el.closest("label") ?? el)
                : el;
            const box = target.getBoundingClientRect();
            if (box.width === 0 || box.height === 0) continue;
            if (box.width < 43.5 || box.height < 43.5) {
              const name = (
                el.getAttribute("aria-label") ??
                el.textContent ??
                el.getAttribute("name") ??
                el.tagName
              )
                .trim()
                .slice(0, 30);
              out.push(`${name} ${Math.round(box.width)}×${Math.round(box.height)}`);
            }
          }
          return out;
        });
        for (const f of found) small.push(`${path}: ${f}`);
      }
    } finally {
      await context.close();
    }
    expect(small).toEqual([]);
  });
});
