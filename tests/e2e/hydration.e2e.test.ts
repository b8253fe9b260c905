/**
 * Hydration in Chromium: with the browser's clock hours away from the server's, every page that
 * shows relative times ("Liked you 5 minutes ago") hydrates the server HTML as it is (React logs
 * no hydration error and does not redraw), and then shows times from the browser's own clock.
 */
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { ApiMember, idOf } from "./api-member";
import { useBrowser, registerVerifiedMember, uniqueMember, visit } from "./helpers";

/** Three hours ahead: "just now" on the server is "3 hours ago" in this browser. */
const CLOCK_OFFSET_MS = 3 * 60 * 60 * 1000;

/** Shifts `Date` (and `Date.now()`) in every document of the context, before any script runs. */
function shiftClock(offsetMs: number) {
  const RealDate = Date;
  class ShiftedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + offsetMs);
      else super(...(args as [string]));
    }
    static override now() {
      return RealDate.now() + offsetMs;
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor;
}

/** React's hydration failures: #418 (text), #423 (recoverable), #425 (text content), and dev wording. */
const HYDRATION_ERROR = /Minified React error #(418|419|421|422|423|425)|hydrat/i;

function hydrationErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && HYDRATION_ERROR.test(m.text())) errors.push(m.text());
  });
  page.on("pageerror", (e) => {
    if (HYDRATION_ERROR.test(e.message)) errors.push(e.message);
  });
  return errors;
}

describe("hydration in Chromium", () => {
  const browser = useBrowser();

  test("relative times hydrate without errors with the browser clock three hours ahead", async () => {
    const { member, page } = await registerVerifiedMember(browser(), "clock");
    const admirer = await new ApiMember(uniqueMember("admirer")).join({
      firstName: "Noor",
      interests: ["Hiking"],
    });
    await admirer.expect("POST", "/my/likes", 201, { user_id: await idOf(page, member.username) });

    await page.context().addInitScript(shiftClock, CLOCK_OFFSET_MS);
    const errors = hydrationErrors(page);
    for (const path of [
      "/dashboard",
      "/my/matches",
      "/notifications",
      "/my/activities",
      "/my/profile",
    ]) {
      await visit(page, path);
      // Let React's recoverable-error reports (logged after its commit) surface before reading.
      await page.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => setTimeout(done))),
      );
      expect(errors, `hydration errors on ${path}`).toEqual([]);
    }

    // After hydration the page moves to the browser's clock: the like is "3 hours ago" there.
    await visit(page, "/notifications");
    await expect
      .poll(() => page.locator("main time").first().textContent())
      .toMatch(/\b3 hours ago$/);
    expect(errors).toEqual([]);
  });
});
