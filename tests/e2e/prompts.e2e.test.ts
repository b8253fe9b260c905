/**
 * Prompts and likes that say something, in Chromium on a phone: Noor answers a prompt in her
 * profile settings, Sam opens her profile, likes that answer with a comment from the heart's sheet,
 * and Noor finds the comment and the answer it landed on in her likes. On a desktop, a photo's
 * heart does the same, and the like's answer makes a match that shows what the other one wrote.
 */
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { encodePng } from "../../scripts/lib/png";
import { ApiMember } from "./api-member";
import {
  ACTION_TIMEOUT_MS,
  openPage,
  registerThroughUi,
  uniqueMember,
  useBrowser,
  verifyEmailThroughMailbox,
  visit,
} from "./helpers";

const PHONE = { width: 390, height: 844 };
const PROMPT = "A perfect Saturday for me looks like";

async function putProfile(page: Page, body: Record<string, unknown>) {
  const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute("content")) ?? "";
  return page.evaluate(
    async ({ body, csrf }) =>
      (
        await fetch("/my/profile", {
          method: "PUT",
          headers: {
            "Content-Type": "application/json",
            "X-CSRF-Token": csrf,
            Accept: "application/json",
          },
          body: JSON.stringify(body),
        })
      ).status,
    { body, csrf },
  );
}

async function phoneMember(browser: ReturnType<ReturnType<typeof useBrowser>>, prefix: string) {
  const member = uniqueMember(prefix);
  const page = await openPage(browser, { viewport: PHONE, hasTouch: true, label: member.username });
  await registerThroughUi(page, member);
  await verifyEmailThroughMailbox(page, member);
  return { member, page };
}

/** Every control a finger presses is at least 44×44 px. */
async function expectTouchSize(page: Page, name: string) {
  const box = (await page.getByRole("button", { name, exact: true }).boundingBox())!;
  expect(box.width, name).toBeGreaterThanOrEqual(44);
  expect(box.height, name).toBeGreaterThanOrEqual(44);
}

describe("prompts and likes with a comment in Chromium", () => {
  const browser = useBrowser();

  test("an answer written in the settings is liked with a comment and shows in the likes, on a phone", async () => {
    const noor = await phoneMember(browser(), "promptnoor");
    await visit(noor.page, "/settings/profile");
    expect(
      await putProfile(noor.page, {
        firstName: "Noor",
        bio: "Markets, bread and long walks.",
        interests: ["Cooking"],
        preferences: ["Friendship"],
        ageRange: { min: 18, max: 100 },
      }),
    ).toBe(200);

    // Noor answers a prompt in her profile settings.
    await visit(noor.page, "/settings/profile");
    await noor.page.getByLabel("Choose a prompt").selectOption({ label: PROMPT });
    await noor.page.getByRole("button", { name: "Add prompt" }).click();
    const answer = noor.page.getByRole("textbox", { name: PROMPT });
    await answer.fill("Flea market at nine, then a long lunch");
    await expectTouchSize(noor.page, `Remove the prompt “${PROMPT}”`);
    await noor.page.getByRole("button", { name: "Save profile" }).click();
    await noor.page.getByText("Your profile has been saved.").waitFor();

    // Sam opens her profile and likes that answer with a comment.
    const sam = await phoneMember(browser(), "promptsam");
    await visit(sam.page, `/members/${noor.member.username}`);
    await sam.page.getByText("Flea market at nine, then a long lunch").waitFor();
    const heartName = `Like Noor's answer to “${PROMPT}”`;
    await expectTouchSize(sam.page, heartName);
    // Noor has no photo yet: no heart on one.
    expect(await sam.page.getByRole("button", { name: "Like Noor's photo 1" }).count()).toBe(0);
    await sam.page.getByRole("button", { name: heartName, exact: true }).click();
    const sheet = sam.page.getByRole("dialog", { name: "Like Noor's answer" });
    await sheet.waitFor();
    // A harsh comment first: the sheet asks "Are you sure?" and offers to send it anyway; Sam
    // thinks again and writes something kinder, which sends as a like again.
    const comment = sheet.getByLabel("Add a comment (optional)");
    await comment.fill("you're so ugly, nobody will ever love you");
    await sheet.getByRole("button", { name: "Send like" }).click();
    await sheet
      .getByRole("alert")
      .getByText("may come across as hurtful")
      .waitFor({ timeout: ACTION_TIMEOUT_MS });
    await sheet.getByRole("button", { name: "Send anyway" }).waitFor();
    await comment.fill("Which flea market? I know a good one");
    const sent = sam.page.waitForResponse(
      (r) => r.url().endsWith("/my/likes") && r.request().method() === "POST",
    );
    await sheet.getByRole("button", { name: "Send like" }).click();
    expect((await sent).status()).toBe(201);
    await sam.page
      .getByRole("button", { name: `You liked Noor's answer to “${PROMPT}”`, pressed: true })
      .waitFor({ timeout: ACTION_TIMEOUT_MS });
    // The profile's Like button follows: Sam likes Noor now.
    await sam.page.getByRole("button", { name: "Liked", exact: true, pressed: true }).waitFor();
    expect(await sam.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      PHONE.width,
    );

    // Noor sees it in her likes: the comment, and the answer it landed on.
    await visit(noor.page, "/my/likes");
    const received = noor.page.getByRole("list", { name: "Liked you" });
    await received.getByText("Which flea market? I know a good one").waitFor();
    await received.getByText("Liked your answer to").waitFor();
    await received.getByText("Flea market at nine, then a long lunch").waitFor();
    expect(
      await noor.page.evaluate(() => document.documentElement.scrollWidth),
    ).toBeLessThanOrEqual(PHONE.width);
  });

  test("a photo's heart on a desktop: a comment, and a match that shows what the other wrote", async () => {
    const ines = await new ApiMember(uniqueMember("promptines")).join({
      firstName: "Ines",
      interests: ["Climbing"],
    });
    const photo = new FormData();
    const rgb = new Uint8Array(64 * 64 * 3).fill(120);
    photo.append("photos", new Blob([encodePng(64, 64, rgb)], { type: "image/png" }), "me.png");
    await ines.expect("POST", "/my/photos", 201, photo);

    const leo = uniqueMember("promptleo");
    const page = await openPage(browser(), {
      viewport: { width: 1280, height: 800 },
      label: leo.username,
    });
    await registerThroughUi(page, leo);
    await verifyEmailThroughMailbox(page, leo);
    const leoId = await page.evaluate(async () => {
      const res = await fetch("/my/profile", { headers: { Accept: "application/json" } });
      return ((await res.json()) as { profile: { id: string } }).profile.id;
    });
    // Ines liked Leo first, and said why.
    await ines.expect("POST", "/my/likes", 201, {
      user_id: leoId,
      comment: "Nice climbing shoes! Add me on WhatsApp",
    });

    await visit(page, `/members/${ines.details.username}`);
    await page.getByRole("button", { name: "Like Ines's photo 1", exact: true }).click();
    const sheet = page.getByRole("dialog", { name: "Like Ines's photo" });
    await sheet.getByRole("img", { name: "Ines, photo 1" }).waitFor();
    await sheet.getByLabel("Add a comment (optional)").fill("Great light in this one");
    await sheet.getByRole("button", { name: "Send like" }).click();
    // Her like and this one make a match: the moment shows what she wrote.
    const moment = page.getByRole("dialog", { name: "It's a match!" });
    await moment
      .getByText("Nice climbing shoes! Add me on WhatsApp")
      .waitFor({ timeout: ACTION_TIMEOUT_MS });
    await moment.getByText("Ines wrote with their like").waitFor();
    // It asks to move the chat elsewhere: Leo is warned, with a report one tap away.
    await moment.getByRole("note").getByText("asks to move the chat elsewhere").waitFor();
    await moment.getByRole("button", { name: "Report this comment" }).waitFor();
    await moment.getByRole("button", { name: "Keep browsing" }).click();
    await page.getByRole("button", { name: "You liked Ines's photo 1", pressed: true }).waitFor();

    // Ines hears of the match with what Leo wrote on her photo.
    const heard = (await ines.expect("GET", "/notifications", 200)) as {
      notifications: { type: string; data: { comment?: string } }[];
    };
    expect(heard.notifications.find((n) => n.type === "match")?.data.comment).toBe(
      "Great light in this one",
    );
    const row = await page.evaluate(async () => {
      const res = await fetch("/my/likes?list=matches", {
        headers: { Accept: "application/json" },
      });
      return ((await res.json()) as { matches: { id: string }[] }).matches.map((m) => m.id);
    });
    expect(row).toEqual([ines.id]);
  });
});
