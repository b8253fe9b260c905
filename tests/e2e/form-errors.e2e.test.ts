/**
 * Every error the server sends reaches the member, where it belongs: on its field, or in an alert
 * a screen reader announces, whether or not the member typed in that field. Each form is filled
 * in the way a member does (every field typed), then answered with a 422 by the server.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import {
  latestEmailFor,
  linkFromEmail,
  newContext,
  openPage,
  registerThroughUi,
  uniqueMember,
  useBrowser,
  verifyEmailThroughMailbox,
  visit,
  waitForHydration,
  type TestMember,
} from "./helpers";

/** The error a field shows: its own `role="alert"` message, named by its `aria-describedby`. */
async function fieldError(page: Page, label: string, exact = false): Promise<string | null> {
  const input = page.getByLabel(label, { exact });
  await expect.poll(() => input.getAttribute("aria-invalid")).toBe("true");
  const describedBy = await input.getAttribute("aria-describedby");
  if (!describedBy) return null;
  const message = page.locator(`[id="${describedBy}"]`);
  expect(await message.getAttribute("role")).toBe("alert");
  return (await message.innerText()).trim();
}

describe("forms show every error the server sends", () => {
  const browser = useBrowser();
  let member: TestMember;

  beforeAll(async () => {
    member = uniqueMember("formerr");
    const context = await newContext(browser());
    const page = await context.newPage();
    await registerThroughUi(page, member);
    await verifyEmailThroughMailbox(page, member);
    await context.close();
  });

  test("sign-in: a wrong password is said on the form, after both fields were typed in", async () => {
    const page = await openPage(browser());
    await visit(page, "/login");
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Password", { exact: true }).fill("not-the-password-1");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    expect(await fieldError(page, "Email")).toBe("These credentials do not match our records.");
    expect(new URL(page.url()).pathname).toBe("/login");

    // Editing the password keeps the answer about the email in view until the email is edited.
    await page.getByLabel("Password", { exact: true }).fill("another-wrong-one-2");
    expect(await fieldError(page, "Email")).toBe("These credentials do not match our records.");
    await page.getByLabel("Email").fill(`x${member.email}`);
    await expect.poll(() => page.getByLabel("Email").getAttribute("aria-invalid")).toBeNull();

    // A second wrong answer shows again, on a field the member has now typed in twice.
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    expect(await fieldError(page, "Email")).toBe("These credentials do not match our records.");
  });

  test("register: a username and an email already taken are each said on their field", async () => {
    const page = await openPage(browser());
    await visit(page, "/register");
    await page.getByLabel("Username").fill(member.username.toUpperCase());
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Date of birth").fill("1990-02-03");
    await page.getByLabel("Password", { exact: true }).fill(member.password);
    await page.getByLabel("Confirm password").fill(member.password);
    await page.getByRole("button", { name: "Create account" }).click();
    expect(await fieldError(page, "Username")).toBe("This username is already taken.");
    expect(await fieldError(page, "Email")).toBe("This email address is already registered.");
    expect(new URL(page.url()).pathname).toBe("/register");
  });

  test("reset password: a link used with another address says the token is invalid", async () => {
    const page = await openPage(browser());
    await visit(page, "/forgot-password");
    const since = new Date();
    await page.getByLabel("Email").fill(member.email);
    await page.getByRole("button", { name: "Email me a reset link" }).click();
    await page.getByRole("status").filter({ hasText: "we have emailed" }).waitFor();
    const email = await latestEmailFor(member.email, { subject: "Reset your password", since });
    const link = linkFromEmail(email, "/reset-password/");
    await page.goto(link.toString());
    await waitForHydration(page);
    await page.getByLabel("Email").fill(`someone.else.${member.email}`);
    await page.getByLabel("New password", { exact: true }).fill("a-brand-new-password-7");
    await page.getByLabel("Confirm new password").fill("a-brand-new-password-7");
    await page.getByRole("button", { name: "Reset password" }).click();
    expect(await fieldError(page, "Email")).toBe("This password reset token is invalid.");
  });

  test("confirm password and change password: a wrong current password is said on its field", async () => {
    const page = await openPage(browser());
    await visit(page, "/login");
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Password", { exact: true }).fill(member.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/dashboard");

    await visit(page, "/confirm-password?redirectTo=%2Fsettings%2Faccount");
    await page.getByLabel("Password", { exact: true }).fill("not-my-password-3");
    await page.getByRole("button", { name: "Confirm" }).click();
    expect(await fieldError(page, "Password", true)).toBe("The provided password is incorrect.");

    await visit(page, "/settings/password");
    await page.getByLabel("Current password").fill("not-my-password-4");
    await page.getByLabel("New password", { exact: true }).fill("a-brand-new-password-8");
    await page.getByLabel("Confirm new password").fill("a-brand-new-password-8");
    await page.getByRole("button", { name: "Update password" }).click();
    expect(await fieldError(page, "Current password")).toBe("The provided password is incorrect.");
  });
});
