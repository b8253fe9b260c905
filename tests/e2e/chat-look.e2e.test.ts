/**
 * The chat's look in Chromium on a phone (390×844): messages grouped under one time with a "Today"
 * separator, the ⋯ menu (Archive, Report, Block) driven by the keyboard, a message's actions on
 * hover and after a long press, a page that never scrolls under its footer or sideways, and an
 * empty conversation that offers first lines from the other member's profile. axe-clean.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { ApiMember, idOf } from "./api-member";
import { seriousViolations } from "./axe";
import {
  useBrowser,
  newContext,
  openPage,
  signInThroughUi,
  uniqueMember,
  visit,
  registerThroughUi,
  verifyEmailThroughMailbox,
  type TestMember,
} from "./helpers";

const PHONE = { width: 390, height: 844 };

const activeLabel = (page: Page) =>
  page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");

describe("the chat's look", () => {
  const browser = useBrowser();
  let member: TestMember;
  let maya: ApiMember;
  let theo: ApiMember;
  let chatPath: string;

  beforeAll(async () => {
    member = uniqueMember("look");
    const context = await newContext(browser());
    const setup = await context.newPage();
    await registerThroughUi(setup, member);
    await verifyEmailThroughMailbox(setup, member);
    const memberId = await idOf(setup, member.username);
    await context.close();
    maya = await new ApiMember(uniqueMember("maya")).join({
      firstName: "Maya",
      interests: ["Hiking", "Jazz"],
    });
    theo = await new ApiMember(uniqueMember("theo")).join({
      firstName: "Theo",
      interests: ["Pottery", "Chess"],
    });
    // Maya writes three messages in a row: one group.
    const started = await maya.expect("POST", "/chat/conversations", 201, {
      user_id: memberId,
      message: "Hi! How was your weekend?",
    });
    const id = (started?.conversation as { id: string }).id;
    for (const message of ["I went up the hill with friends", "The view was unreal"]) {
      await maya.expect("POST", `/chat/conversations/${id}/messages`, 201, { message });
    }
    chatPath = `/chat?conversation=${id}`;
  });

  async function phonePage(): Promise<Page> {
    const page = await openPage(browser(), { viewport: PHONE, hasTouch: true });
    await signInThroughUi(page, member);
    return page;
  }

  test("grouped bubbles under one time and a day separator, on a phone that never scrolls", async () => {
    const page = await phonePage();
    await visit(page, chatPath);
    const messages = page.getByTestId("message");
    await expect.poll(() => messages.count()).toBe(3);

    // One separator, "Today", before the group; the group shows its time once, at its end.
    const separators = page.getByTestId("day-separator");
    expect(await separators.allInnerTexts()).toEqual(["Today"]);
    const shape = await messages.evaluateAll((els) =>
      els.map((el) => ({
        start: el.getAttribute("data-group-start") === "true",
        end: el.getAttribute("data-group-end") === "true",
        times: el.querySelectorAll(".bubble-meta time").length,
      })),
    );
    expect(shape).toEqual([
      { start: true, end: false, times: 0 },
      { start: false, end: false, times: 0 },
      { start: false, end: true, times: 1 },
    ]);

    // Dense enough to read a conversation on a phone: a group of three short messages takes
    // little more than three lines of text.
    const group = await messages.evaluateAll((els) => {
      const first = els[0]!.getBoundingClientRect();
      const last = els.at(-1)!.getBoundingClientRect();
      return last.bottom - first.top;
    });
    expect(group).toBeLessThan(130);

    // Neither sideways nor under the footer: the page itself does not scroll, the composer shows.
    const fit = await page.evaluate(() => ({
      width: document.documentElement.scrollWidth,
      height: document.documentElement.scrollHeight,
      viewport: window.innerHeight,
    }));
    expect(fit.width).toBeLessThanOrEqual(PHONE.width);
    expect(fit.height).toBeLessThanOrEqual(fit.viewport);
    const composer = await page.getByLabel("Message", { exact: true }).boundingBox();
    expect(composer && composer.y + composer.height).toBeLessThanOrEqual(PHONE.height);

    // The list of conversations (with the tab bar) fits as well.
    await page.getByRole("button", { name: "Back to conversations" }).click();
    await page.getByRole("region", { name: "Conversations" }).waitFor();
    expect(
      await page.evaluate(
        () =>
          document.documentElement.scrollHeight <= window.innerHeight &&
          document.documentElement.scrollWidth <= window.innerWidth,
      ),
    ).toBe(true);

    await visit(page, chatPath);
    await expect.poll(() => messages.count()).toBe(3);
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("the ⋯ menu works from the keyboard and returns focus", async () => {
    const page = await phonePage();
    await visit(page, chatPath);
    const more = page.getByRole("button", { name: "More actions" });
    expect(await more.getAttribute("aria-haspopup")).toBe("menu");
    expect(await more.getAttribute("aria-expanded")).toBe("false");

    await more.focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu", { name: "More actions" });
    await menu.waitFor();
    expect(await more.getAttribute("aria-expanded")).toBe("true");
    expect(await menu.getByRole("menuitem").allInnerTexts()).toEqual([
      "Archive",
      "Unmatch Maya",
      "Report Maya",
      "Block Maya",
    ]);
    await expect.poll(() => activeLabel(page)).toBe("Archive");
    await page.keyboard.press("ArrowDown");
    expect(await activeLabel(page)).toBe("Unmatch Maya");
    await page.keyboard.press("End");
    expect(await activeLabel(page)).toBe("Block Maya");
    await page.keyboard.press("ArrowDown");
    expect(await activeLabel(page)).toBe("Archive");

    // Escape closes it and focus is back on ⋯.
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    expect(await more.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await more.getAttribute("aria-expanded")).toBe("false");

    // ArrowUp opens on the last item; Report opens its dialog, which returns focus to ⋯.
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => activeLabel(page)).toBe("Block Maya");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Report Maya" });
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(() => more.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  test("a message's actions show on hover and after a long press, not as links under it", async () => {
    const page = await phonePage();
    await visit(page, chatPath);
    const last = page.getByTestId("message").filter({ hasText: "The view was unreal" });
    await last.waitFor();
    const report = last.getByRole("button", { name: "Report message" });
    const opacity = () => report.evaluate((el) => getComputedStyle(el.parentElement!).opacity);
    expect(await opacity()).toBe("0");
    // Beside the bubble, not under it.
    const bubble = await last.locator(".bubble").boundingBox();
    const button = await report.boundingBox();
    expect(button!.y).toBeLessThan(bubble!.y + bubble!.height);

    // A long press (a finger resting on the bubble) shows them.
    await last.dispatchEvent("pointerdown", { pointerType: "touch", isPrimary: true });
    await expect.poll(() => last.getAttribute("data-actions")).toBe("open");
    await last.dispatchEvent("pointerup", { pointerType: "touch", isPrimary: true });
    await expect.poll(opacity).toBe("1");
    await report.click();
    await page.getByRole("dialog", { name: "Report this message" }).waitFor();

    // With a mouse, hovering the message shows them.
    const desktop = await openPage(browser(), { viewport: { width: 1280, height: 800 } });
    await signInThroughUi(desktop, member);
    await visit(desktop, chatPath);
    const row = desktop.getByTestId("message").filter({ hasText: "The view was unreal" });
    const tools = row.locator(".bubble-tools");
    expect(await tools.evaluate((el) => getComputedStyle(el).opacity)).toBe("0");
    await row.locator(".bubble").hover();
    await expect.poll(() => tools.evaluate((el) => getComputedStyle(el).opacity)).toBe("1");
  });

  test("an empty conversation offers first lines drawn from the other member's profile", async () => {
    const page = await phonePage();
    await visit(page, `/members/${theo.details.username}`);
    await page.getByRole("button", { name: /^Message / }).click();
    await page.waitForURL((url) => url.searchParams.has("conversation"));
    const empty = page.getByTestId("thread-empty");
    await empty.getByText("No messages yet. Say hello!").waitFor();
    const ideas = empty.getByRole("list", { name: "Ideas to start with" });
    await ideas.waitFor();
    const first = ideas.getByRole("button").first();
    expect(await first.innerText()).toBe("Hi Theo! What do you love most about pottery?");
    await first.click();
    const composer = page.getByLabel("Message", { exact: true });
    expect(await composer.inputValue()).toBe("Hi Theo! What do you love most about pottery?");
    expect(await composer.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
