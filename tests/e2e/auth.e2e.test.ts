/**
 * The foundation's browser test: a new member registers, verifies the address from the email,
 * signs out and in again, and picks a theme that the server keeps across reloads.
 */
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import {
  baseUrl,
  cookieValue,
  currentPath,
  daysUntil,
  expectTitle,
  getCookie,
  latestEmailFor,
  useBrowser,
  linkFromEmail,
  openPage,
  registerThroughUi,
  SESSION_COOKIE,
  signInThroughUi,
  signOutThroughUi,
  skipOnboardingThroughUi,
  uniqueMember,
  visit,
  waitForHydration,
  waitForPath,
} from "./helpers";

/** What the page shows right now: the theme attribute and the colours it resolves to. */
function readTheme(page: Page) {
  return page.evaluate(() => ({
    theme: document.documentElement.getAttribute("data-theme"),
    bgVariable: getComputedStyle(document.documentElement).getPropertyValue("--bg").trim(),
    bodyBackground: getComputedStyle(document.body).backgroundColor,
    stored: localStorage.getItem("appearance"),
  }));
}

function appearanceRadio(page: Page, value: "dark" | "light" | "system") {
  return page.locator(`input[type="radio"][name="appearance"][value="${value}"]`);
}

/** Picks a theme the way a member does: by clicking its card's label. */
async function chooseAppearance(page: Page, value: "dark" | "light" | "system") {
  await page.locator("label", { has: appearanceRadio(page, value) }).click();
  await page.waitForFunction(
    (expected) => document.documentElement.getAttribute("data-theme") === expected,
    value,
  );
  expect(await appearanceRadio(page, value).isChecked()).toBe(true);
}

describe("authentication and appearance in Chromium", () => {
  const browser = useBrowser();

  test("register, verify by email, sign out, sign in, and keep a theme across reloads", async () => {
    const page = await openPage(browser(), { colorScheme: "dark" });
    const context = page.context();
    const member = uniqueMember("auth");

    // --- Register through the form: lands on the verification notice, signed in.
    await visit(page, "/register");
    await expectTitle(page, "Register");
    await registerThroughUi(page, member);
    await expectTitle(page, "Verify Email");
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    expect(await page.locator("main").innerText()).toContain(member.email);
    const registeredSession = await getCookie(context, SESSION_COOKIE);
    expect(registeredSession).toMatchObject({ httpOnly: true, sameSite: "Lax" });
    expect(await page.evaluate(() => document.cookie)).not.toContain(SESSION_COOKIE);

    // --- The verification email, read from the dev mailbox, holds a signed link.
    const email = await latestEmailFor(member.email);
    const link = linkFromEmail(email, "/verify-email/");
    expect(link.origin).toBe(baseUrl());
    expect(link.searchParams.get("expires")).toMatch(/^\d+$/);
    expect(link.searchParams.get("signature")).toBeTruthy();

    // --- Opening it verifies the address and starts onboarding; skipping it shows the dashboard.
    await page.goto(link.toString());
    await waitForPath(page, "/onboarding");
    expect(currentPath(page)).toBe("/onboarding?verified=1");
    await expectTitle(page, "Welcome to Heartline");
    await page.getByText("Your email address is verified.").waitFor();
    await page.getByRole("heading", { name: "Show your best side" }).waitFor();
    await skipOnboardingThroughUi(page);
    await expectTitle(page, "Dashboard");
    await page.getByRole("heading", { name: `Hi ${member.username}` }).waitFor();

    // --- Sign out: back on the login page, and the dashboard is closed again.
    const signedInSession = await cookieValue(context, SESSION_COOKIE);
    expect(signedInSession).toBeTruthy();
    await signOutThroughUi(page);
    await expectTitle(page, "Login");
    expect(await cookieValue(context, SESSION_COOKIE)).toBeFalsy();
    await page.goto("/dashboard");
    await waitForPath(page, "/login");
    await expectTitle(page, "Login");
    // The session ended on the server too: its old cookie no longer opens the dashboard.
    const replay = await fetch(`${baseUrl()}/dashboard`, {
      headers: { Cookie: `${SESSION_COOKIE}=${signedInSession}`, Accept: "text/html" },
      redirect: "manual",
    });
    expect(replay.status).toBeGreaterThanOrEqual(300);
    expect(replay.status).toBeLessThan(400);
    expect(new URL(replay.headers.get("Location") ?? "", baseUrl()).pathname).toBe("/login");

    // --- Sign in through the login form.
    await signInThroughUi(page, member, { remember: true });
    await expectTitle(page, "Dashboard");
    await page.getByRole("heading", { name: `Hi ${member.username}` }).waitFor();
    await page.locator(".site-header summary", { hasText: "Account menu" }).click();
    expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
    await page.keyboard.press("Escape");
    // "Remember me" makes the session outlive the browser.
    const rememberedSession = await getCookie(context, SESSION_COOKIE);
    expect(rememberedSession).toMatchObject({ httpOnly: true, sameSite: "Lax" });
    expect(daysUntil(rememberedSession?.expires ?? -1)).toBeGreaterThan(7);

    // --- Appearance: dark by default.
    await visit(page, "/settings/appearance");
    await expectTitle(page, "Appearance Settings");
    const initial = await readTheme(page);
    expect(initial.theme).toBe("dark");
    expect(await appearanceRadio(page, "dark").isChecked()).toBe(true);
    const darkColours = { bgVariable: initial.bgVariable, bodyBackground: initial.bodyBackground };

    // --- Switch to light: applied at once, kept in localStorage and in the cookie.
    await chooseAppearance(page, "light");
    const light = await readTheme(page);
    expect(light.theme).toBe("light");
    expect(light.stored).toBe("light");
    const appearanceCookie = await getCookie(context, "appearance");
    expect(appearanceCookie?.value).toBe("light");
    expect(daysUntil(appearanceCookie?.expires ?? -1)).toBeGreaterThan(364);
    expect(daysUntil(appearanceCookie?.expires ?? -1)).toBeLessThanOrEqual(366);
    expect(light.bodyBackground).not.toBe(darkColours.bodyBackground);
    const lightColours = { bgVariable: light.bgVariable, bodyBackground: light.bodyBackground };

    // An explicit choice ignores the operating system's preference.
    await page.emulateMedia({ colorScheme: "dark" });
    await expect.poll(() => readTheme(page)).toMatchObject({ theme: "light", ...lightColours });

    // --- Reload: the server renders the light theme from the cookie.
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(200);
    expect(await reloaded?.text()).toMatch(/<html[^>]*\sdata-theme="light"/);
    expect(await page.locator("html").getAttribute("data-theme")).toBe("light");
    await waitForHydration(page);
    await expect.poll(() => readTheme(page)).toMatchObject({ theme: "light", ...lightColours });
    expect(await appearanceRadio(page, "light").isChecked()).toBe(true);
    expect(await cookieValue(context, "appearance")).toBe("light");

    // --- System follows prefers-color-scheme.
    await chooseAppearance(page, "system");
    expect(await cookieValue(context, "appearance")).toBe("system");
    await page.emulateMedia({ colorScheme: "dark" });
    await expect.poll(() => readTheme(page)).toMatchObject({ theme: "system", ...darkColours });
    await page.emulateMedia({ colorScheme: "light" });
    await expect.poll(() => readTheme(page)).toMatchObject({ theme: "system", ...lightColours });

    // ... and survives a reload too, still following the scheme.
    const reloadedSystem = await page.reload();
    expect(await reloadedSystem?.text()).toMatch(/<html[^>]*\sdata-theme="system"/);
    await waitForHydration(page);
    await expect.poll(() => readTheme(page)).toMatchObject({ theme: "system", ...lightColours });
    await page.emulateMedia({ colorScheme: "dark" });
    await expect.poll(() => readTheme(page)).toMatchObject({ theme: "system", ...darkColours });
    expect(await appearanceRadio(page, "system").isChecked()).toBe(true);
  });
});
