/**
 * Members driven through the JSON API of the test Worker (cookies, the CSRF token, JSON in and
 * out), for the browser tests that need other members around the one in Chromium.
 */
import type { Page } from "playwright-core";
import { ApiSession } from "../../scripts/lib/api-session";
import { baseUrl, latestEmailFor, linkFromEmail, uniqueMember } from "./helpers";

/** A member driven through the JSON API of the test Worker (scripts/lib/api-session.ts). */
export class ApiMember extends ApiSession {
  id = "";

  constructor(readonly details: ReturnType<typeof uniqueMember>) {
    super(baseUrl());
  }

  /** Registers, follows the verification link from the mailbox and fills the profile. */
  async join(profile: Record<string, unknown>) {
    await this.refreshToken();
    const { username, email, password, dateOfBirth } = this.details;
    const registered = await this.expect("POST", "/register", 201, {
      username,
      email,
      password,
      password_confirmation: password,
      dateOfBirth,
    });
    this.id = String((registered?.user as { id: string }).id);
    await this.refreshToken();
    const link = linkFromEmail(await latestEmailFor(email), "/verify-email/");
    const verified = await this.call("GET", `${link.pathname}${link.search}`);
    if (verified.status !== 200 && verified.status !== 303) {
      throw new Error(`verification: ${verified.status} ${JSON.stringify(verified.json)}`);
    }
    await this.refreshToken();
    await this.expect("PUT", "/my/profile", 200, {
      bio: "Here for the long walks.",
      preferences: ["Friendship"],
      ageRange: { min: 18, max: 100 },
      ...profile,
    });
    return this;
  }
}

/** A member's id, read by the signed-in page through GET /members/{username}. */
export async function idOf(page: Page, username: string): Promise<string> {
  return page.evaluate(async (name) => {
    const res = await fetch(`/members/${encodeURIComponent(name)}`, {
      headers: { Accept: "application/json" },
    });
    const body = (await res.json()) as { member: { id: string } };
    return body.member.id;
  }, username);
}

/** The signed-in page likes a member (POST /my/likes, as its own client would); the status. */
export async function likeFromPage(page: Page, userId: string): Promise<number> {
  const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute("content")) ?? "";
  return page.evaluate(
    async ({ id, token }: { id: string; token: string }) =>
      (
        await fetch("/my/likes", {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
          body: JSON.stringify({ user_id: id }),
        })
      ).status,
    { id: userId, token: csrf },
  );
}
