/**
 * Every error the server sends reaches the member, where it belongs: on its field, or in an alert
 * a screen reader announces, whether or not the member typed in that field. Each form is filled
 * in the way a member does (every field typed), then refused by the server: a 422 for what was
 * typed, or a refusal the page could not foresee because the world changed after it loaded (a
 * member left, a limit was reached, a subscription started in another tab). The state behind
 * those is set up through the JSON API, never by answering the page's requests in the test.
 */
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { encodePng } from "../../scripts/lib/png";
import { ApiMember } from "./api-member";
import {
  latestEmailFor,
  linkFromEmail,
  newContext,
  openPage,
  registerThroughUi,
  signInThroughUi,
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

/** The whole text of the `role="alert"` in `scope` that says `message`, once it shows. */
async function alertSaying(scope: Page | Locator, message: string): Promise<string> {
  const alert = scope.getByRole("alert").filter({ hasText: message });
  await alert.waitFor();
  return (await alert.innerText()).trim();
}

/**
 * The server's answer to the page's next `method` request to `pathname`: its status shows that the
 * message on the page is the server's, not one the browser came to by itself.
 */
function nextAnswer(page: Page, method: string, pathname: string) {
  return page.waitForResponse(
    (response) =>
      response.request().method() === method && new URL(response.url()).pathname === pathname,
  );
}

/** A small real PNG of one shade of grey, which the browser and the server both accept. */
function greyPng(shade: number): Uint8Array<ArrayBuffer> {
  return encodePng(64, 64, new Uint8Array(64 * 64 * 3).fill(shade));
}

describe("forms show every error the server sends", () => {
  const browser = useBrowser();
  let member: TestMember;
  /** The same member on the JSON API: what they do in another tab while a page stays open. */
  let elsewhere: ApiMember;

  beforeAll(async () => {
    member = uniqueMember("formerr");
    const context = await newContext(browser());
    const page = await context.newPage();
    await registerThroughUi(page, member);
    await verifyEmailThroughMailbox(page, member);
    await context.close();
    elsewhere = new ApiMember(member);
    await elsewhere.signIn(member.email, member.password);
  });

  /** A page of its own, signed in as the member, on `pathname`. */
  async function signedInPage(pathname: string): Promise<Page> {
    const page = await openPage(browser());
    await signInThroughUi(page, member);
    await visit(page, pathname);
    return page;
  }

  /** Another verified member with a profile others can see, joined through the API. */
  function otherMember(prefix: string, firstName: string): Promise<ApiMember> {
    return new ApiMember(uniqueMember(prefix)).join({ firstName, interests: ["Hiking"] });
  }

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

  test("profile: a username another member has, in any case, is said on its field", async () => {
    const owner = await otherMember("owner", "Olive");
    const page = await signedInPage("/settings/profile");
    await page.getByLabel("Bio", { exact: true }).fill("Here for the long walks and the talks.");
    const interests = page.getByLabel("Your interests", { exact: true });
    await interests.fill("Chess");
    await interests.press("Enter");
    const preferences = page.getByLabel("Preferences", { exact: true });
    await preferences.fill("New friends");
    await preferences.press("Enter");
    // Free as far as the browser can tell: only the server knows who holds a username.
    await page.getByLabel("Username", { exact: true }).fill(owner.details.username.toUpperCase());
    const answer = nextAnswer(page, "PUT", "/my/profile");
    await page.getByRole("button", { name: "Save profile" }).click();
    expect((await answer).status()).toBe(422);
    expect(await fieldError(page, "Username", true)).toBe("This username is already taken.");
    // The save bar says it too, for a member who is not looking at that field.
    const saveBar = page.locator(".save-bar-status");
    expect(await alertSaying(saveBar, "This username is already taken.")).toBe(
      "This username is already taken.",
    );
  });

  test("photos: a disguised file and a sixth photo are each said in an alert", async () => {
    const page = await signedInPage("/settings/profile");
    const photos = page.locator('input[type="file"][name="photos"]');

    // The browser reads only the first bytes, which say PNG; the server finds markup after them.
    const disguised = Buffer.concat([
      Buffer.from(greyPng(90).subarray(0, 8)),
      Buffer.from("<html><body>Not a photo at all.</body></html>"),
    ]);
    let answer = nextAnswer(page, "POST", "/my/photos");
    await photos.setInputFiles({ name: "holiday.png", mimeType: "image/png", buffer: disguised });
    expect((await answer).status()).toBe(415);
    expect(await alertSaying(page, "Only image files are allowed")).toBe(
      "Only image files are allowed",
    );

    // Five photos arrive from another tab; this page still counts none, so it lets a sixth go.
    const form = new FormData();
    for (const shade of [20, 60, 100, 140, 180]) {
      form.append("photos", new Blob([greyPng(shade)], { type: "image/png" }), `${shade}.png`);
    }
    await elsewhere.expect("POST", "/my/photos", 201, form);
    answer = nextAnswer(page, "POST", "/my/photos");
    await photos.setInputFiles({
      name: "sixth.png",
      mimeType: "image/png",
      buffer: Buffer.from(greyPng(220)),
    });
    expect((await answer).status()).toBe(422);
    expect(await alertSaying(page, "Maximum 5 photos allowed")).toBe("Maximum 5 photos allowed");
  });

  test("block: a member who deleted their account meanwhile is said in the dialog", async () => {
    const leaver = await otherMember("leaver", "Lena");
    const page = await signedInPage(`/members/${leaver.details.username}`);
    await page.getByRole("button", { name: "More actions" }).click();
    await page.getByRole("menuitem", { name: /^Block / }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Reason").selectOption("harassment");
    await dialog.getByLabel("Note (optional)").fill("Rude in every message.");

    // While the dialog is open, the member deletes their account.
    await leaver.expect("POST", "/confirm-password", 200, { password: leaver.details.password });
    await leaver.expect("DELETE", "/my/account", 200);

    const answer = nextAnswer(page, "POST", "/my/block");
    await dialog.getByRole("button", { name: "Block", exact: true }).click();
    expect((await answer).status()).toBe(404);
    expect(await alertSaying(dialog, "Member not found.")).toBe("Member not found.");
  });

  test("report: past ten reports in an hour the limit is said in the dialog", async () => {
    const target = await otherMember("target", "Tess");
    // Ten reports from another tab use up the hour (report_account in wrangler.toml).
    for (let i = 0; i < 10; i++) {
      await elsewhere.expect("POST", "/reports", 201, { user_id: target.id, reason_type: "spam" });
    }
    const page = await signedInPage(`/members/${target.details.username}`);
    await page.getByRole("button", { name: "More actions" }).click();
    await page.getByRole("menuitem", { name: /^Report / }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("What is wrong?").selectOption("harassment");
    await dialog.getByLabel("Details (optional)").fill("Keeps writing after I said no.");
    const answer = nextAnswer(page, "POST", "/reports");
    await dialog.getByRole("button", { name: "Send report" }).click();
    expect((await answer).status()).toBe(429);
    const limit = "You have sent too many reports. Please try again later.";
    expect(await alertSaying(dialog, limit)).toBe(limit);
  });

  test("subscription: a stale page's subscribe and cancel are said in an alert", async () => {
    const page = await signedInPage("/my/subscription");
    await page.getByText("You are on the free plan", { exact: false }).waitFor();

    // Another tab subscribes; this page still offers the plans.
    await elsewhere.expect("POST", "/my/subscription", 201, {
      plan_id: "plus",
      billing_cycle: "monthly",
    });
    let answer = nextAnswer(page, "POST", "/my/subscription");
    await page.getByRole("button", { name: "Subscribe to Plus, monthly, $9.99" }).click();
    expect((await answer).status()).toBe(409);
    expect(await alertSaying(page, "You already have a subscription.")).toBe(
      "You already have a subscription.",
    );

    // Reloaded, the page shows the subscription; another tab cancels it while this one confirms.
    await visit(page, "/my/subscription");
    await expect.poll(() => page.getByTestId("subscription-status").textContent()).toBe("Active");
    await page.getByRole("button", { name: "Cancel subscription" }).click();
    await page.getByLabel("Why are you cancelling?").fill("Found someone");
    await elsewhere.expect("DELETE", "/my/subscription", 200, { reason: "Found someone" });
    answer = nextAnswer(page, "DELETE", "/my/subscription");
    await page.getByRole("button", { name: "Confirm cancellation" }).click();
    expect((await answer).status()).toBe(409);
    expect(await alertSaying(page, "You have no subscription to cancel.")).toBe(
      "You have no subscription to cancel.",
    );
  });
});
