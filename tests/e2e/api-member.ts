/**
 * Members driven through the JSON API of the test Worker (cookies, the CSRF token, JSON in and
 * out), for the browser tests that need other members around the one in Chromium.
 */
import type { Page } from "playwright-core";
import { baseUrl, latestEmailFor, linkFromEmail, uniqueMember } from "./helpers";

/** A member driven through the JSON API: cookies, the CSRF token, JSON in and out. */
export class ApiMember {
  private cookies = new Map<string, string>();
  private csrf = "";
  id = "";

  constructor(readonly details: ReturnType<typeof uniqueMember>) {}

  private async call(method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.cookies.size) {
      headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    }
    if (method !== "GET") headers["X-CSRF-Token"] = this.csrf;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(new URL(path, baseUrl()), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual",
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    return { status: res.status, json };
  }

  private async refreshToken() {
    this.csrf = String((await this.call("GET", "/csrf-token")).json?.token ?? "");
  }

  async expect(method: string, path: string, status: number, body?: unknown) {
    const res = await this.call(method, path, body);
    if (res.status !== status) {
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
    }
    return res.json;
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
