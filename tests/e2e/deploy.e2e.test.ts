/**
 * A deploy while a member has the app open (docs/decisions/030): the page keeps working on the
 * version it loaded, says quietly that a new one is ready, and takes it at the member's next
 * navigation. Nothing reloads by itself.
 */
import { describe, expect, test } from "vitest";
import { ApiMember } from "./api-member";
import { registerVerifiedMember, uniqueMember, useBrowser, visit, waitForPath } from "./helpers";

describe("a page from an older deploy", () => {
  const browser = useBrowser();

  test("its background requests are answered, a quiet line offers a refresh, and the next link loads the new version in full", async () => {
    const other = await new ApiMember(uniqueMember("liked")).join({
      firstName: "Ines",
      interests: ["Sailing"],
    });
    const { page } = await registerVerifiedMember(browser(), "older");
    await visit(page, `/members/${other.details.username}`);
    const current = await page.locator('meta[name="app-version"]').getAttribute("content");
    // The page as an older build left it: its version is not the server's any more. A mark on
    // the window tells a reload (it would be gone) from the same page.
    await page.evaluate(() => {
      document.querySelector('meta[name="app-version"]')!.setAttribute("content", "older-build");
      (window as unknown as { stillHere: boolean }).stillHere = true;
    });
    const stillHere = () =>
      page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere === true);
    const update = page.getByRole("status").filter({ hasText: "Heartline has been updated." });
    expect(await update.count()).toBe(0);

    // A background request of the old page: answered, and it names the new build.
    const answer = page.waitForResponse(
      (r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/my/likes",
    );
    await page.getByRole("button", { name: "Like", exact: true }).click();
    const res = await answer;
    expect(res.status()).toBe(201);
    expect(res.headers()["x-heartline-version"]).toBe(current);
    await page.getByRole("button", { name: "Liked", exact: true }).waitFor();
    await update.waitFor();
    await update.getByRole("button", { name: "Refresh" }).waitFor();
    // Some seconds on, the page is still the one the member was on.
    await page.waitForTimeout(1500);
    expect(await stillHere()).toBe(true);
    expect(new URL(page.url()).pathname).toBe(`/members/${other.details.username}`);

    // The next link loads the new version in full: a new document, the current build, no line.
    await page.getByRole("link", { name: "Likes", exact: true }).first().click();
    await waitForPath(page, "/my/likes");
    expect(await stillHere()).toBe(false);
    expect(await page.locator('meta[name="app-version"]').getAttribute("content")).toBe(current);
    expect(await update.count()).toBe(0);
  });
});
