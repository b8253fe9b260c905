/**
 * Likes that feel instant: the Like button turns while the server is still answering, stays so
 * when it agrees, and turns back with the server's message when it refuses. The heart beats once
 * when a like lands, a message that arrives in the open conversation rises in, and nothing moves
 * for a member who asked for less motion.
 */
import type { Page, Route } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { ApiMember, idOf } from "./api-member";
import {
  openPage,
  registerThroughUi,
  uniqueMember,
  useBrowser,
  verifyEmailThroughMailbox,
  visit,
} from "./helpers";

/** Holds every POST /my/likes until `release` is called. */
function holdLikes(page: Page) {
  const held: Route[] = [];
  const ready = page.route("**/my/likes", async (route) => {
    if (route.request().method() === "POST") held.push(route);
    else await route.continue();
  });
  return {
    ready,
    count: () => held.length,
    release: async () => {
      for (const route of held.splice(0)) await route.continue();
    },
  };
}

describe("optimistic likes", () => {
  const browser = useBrowser();
  let other: ApiMember;

  beforeAll(async () => {
    other = await new ApiMember(uniqueMember("liked")).join({
      firstName: "Selma",
      interests: ["Hiking"],
    });
  });

  async function memberPage(reducedMotion: "reduce" | "no-preference") {
    const member = uniqueMember("liker");
    const page = await openPage(browser(), {
      viewport: { width: 390, height: 844 },
      reducedMotion,
    });
    await registerThroughUi(page, member);
    await verifyEmailThroughMailbox(page, member);
    await visit(page, `/members/${other.details.username}`);
    return page;
  }

  test("the button turns at once, before the server answers, and the heart beats once", async () => {
    const page = await memberPage("no-preference");
    const held = holdLikes(page);
    await held.ready;
    await page.getByRole("button", { name: "Like", exact: true }).click();
    // The server has not answered yet: the request is held, and the button already says Liked.
    await expect.poll(held.count).toBe(1);
    const liked = page.getByRole("button", { name: "Liked", exact: true, pressed: true });
    expect(await liked.count()).toBe(1);
    expect(
      await liked.locator(".like-heart").evaluate((el) => getComputedStyle(el).animationName),
    ).toBe("like-pop");
    const answered = page.waitForResponse(
      (r) => r.url().endsWith("/my/likes") && r.request().method() === "POST",
    );
    await held.release();
    expect((await answered).status()).toBe(201);
    expect(await liked.count()).toBe(1);
  });

  test("a refused like turns back with the server's message; no motion when less is asked", async () => {
    const page = await memberPage("reduce");
    await page.route("**/my/likes", (route) =>
      route.request().method() === "POST"
        ? route.fulfill({
            status: 429,
            contentType: "application/json",
            body: JSON.stringify({ message: "You have used today's likes. More tomorrow." }),
          })
        : route.continue(),
    );
    const like = page.getByRole("button", { name: "Like", exact: true });
    await like.click();
    await page.getByRole("alert").filter({ hasText: "You have used today's likes." }).waitFor();
    expect(await like.getAttribute("aria-pressed")).toBe("false");
    expect(
      await like.locator(".like-heart").evaluate((el) => getComputedStyle(el).animationName),
    ).toBe("none");
  });

  test("a notification's toast never covers the chat's composer, on a phone or a desktop", async () => {
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1280, height: 800 },
    ]) {
      const member = uniqueMember("chatter");
      const page = await openPage(browser(), { viewport });
      await registerThroughUi(page, member);
      await verifyEmailThroughMailbox(page, member);
      const memberId = await idOf(page, member.username);
      const writer = await new ApiMember(uniqueMember("writer")).join({ interests: ["Jazz"] });
      const started = await writer.expect("POST", "/chat/conversations", 201, {
        user_id: memberId,
        message: "Hello there!",
      });
      await visit(page, `/chat?conversation=${(started?.conversation as { id: string }).id}`);
      const composer = page.locator("form.composer");
      await composer.waitFor();
      // A like arrives while the conversation is open: its toast shows.
      const admirer = await new ApiMember(uniqueMember("admirer")).join({ interests: ["Art"] });
      await admirer.expect("POST", "/my/likes", 201, { user_id: memberId });
      const toast = page.getByTestId("notification-toast");
      await toast.waitFor();
      const a = (await toast.boundingBox())!;
      const b = (await composer.boundingBox())!;
      const overlaps =
        a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
      expect(
        overlaps,
        `${viewport.width}px: toast ${JSON.stringify(a)}, composer ${JSON.stringify(b)}`,
      ).toBe(false);
    }
  });

  test("a message arriving in the open conversation rises in from its sender's side; history stays still, and so does everything under reduced motion", async () => {
    for (const reducedMotion of ["no-preference", "reduce"] as const) {
      const member = uniqueMember("reader");
      const page = await openPage(browser(), {
        viewport: { width: 390, height: 844 },
        reducedMotion,
      });
      await registerThroughUi(page, member);
      await verifyEmailThroughMailbox(page, member);
      const writer = await new ApiMember(uniqueMember("writer")).join({ interests: ["Jazz"] });
      const started = await writer.expect("POST", "/chat/conversations", 201, {
        user_id: await idOf(page, member.username),
        message: "Hello there!",
      });
      const id = (started?.conversation as { id: string }).id;
      await visit(page, `/chat?conversation=${id}`);
      const bubbles = page.getByTestId("message");
      const motion = (n: number) =>
        bubbles.nth(n).evaluate((row) => ({
          arrived: row.getAttribute("data-arrived"),
          animation: getComputedStyle(row.querySelector(".bubble")!).animationName,
        }));
      await bubbles.first().waitFor();
      expect(await motion(0)).toEqual({ arrived: null, animation: "none" });
      // The next message must come over the open socket (one caught up after a reconnect is
      // history and stays still), so the other member writes once the room is connected.
      await page.locator('section.thread[data-connected="true"]').waitFor();

      await writer.expect("POST", `/chat/conversations/${id}/messages`, 201, {
        message: "Are you free on Friday?",
      });
      await expect.poll(() => bubbles.count()).toBe(2);
      expect(await motion(1)).toEqual({
        arrived: "true",
        animation: reducedMotion === "reduce" ? "none" : "bubble-in-theirs",
      });

      // Mine rises in from my side.
      await page.getByLabel("Message", { exact: true }).fill("Friday works!");
      await page.keyboard.press("Enter");
      await expect.poll(() => bubbles.count()).toBe(3);
      expect(await motion(2)).toEqual({
        arrived: "true",
        animation: reducedMotion === "reduce" ? "none" : "bubble-in-mine",
      });
      // History is still again after a reload.
      await visit(page, `/chat?conversation=${id}`);
      await expect.poll(() => bubbles.count()).toBe(3);
      for (const n of [0, 1, 2])
        expect(await motion(n)).toEqual({ arrived: null, animation: "none" });
      await page.context().close();
    }
  });
});
