import { beforeAll, describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { latestEmailTo, registerMember, uniqueMember, verifiedMember } from "../helpers/members";
import { authStatus, SESSION_COOKIE, sessionsOf, titleOf } from "../helpers/auth";

const html = { headers: { Accept: "text/html" } };

let member: Awaited<ReturnType<typeof verifiedMember>>;

beforeAll(async () => {
  member = await verifiedMember();
});

interface MailboxEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  sent_at: string;
}

const csrfMeta = (page: string) => page.match(/<meta name="csrf-token" content="([^"]*)"/)?.[1];

describe("authentication pages", () => {
  it.each([
    ["dark", ['<meta name="theme-color" content="#120d15"/>']],
    ["light", ['<meta name="theme-color" content="#faf7f9"/>']],
    [
      "system",
      [
        '<meta name="theme-color" media="(prefers-color-scheme: light)" content="#faf7f9"/>',
        '<meta name="theme-color" media="(prefers-color-scheme: dark)" content="#120d15"/>',
      ],
    ],
  ])("the browser's bars take the %s theme's page colour", async (appearance, metas) => {
    const res = await new TestClient().fetch("/login", {
      headers: { Accept: "text/html", Cookie: `appearance=${appearance}` },
    });
    const page = await res.text();
    expect(page).toContain(`data-theme="${appearance}"`);
    expect(page.match(/<meta name="theme-color"[^>]*>/g)).toEqual(metas);
  });

  it.each([
    ["/login", "Login - Heartline"],
    ["/register", "Register - Heartline"],
    ["/forgot-password", "Forgot Password - Heartline"],
  ])("%s has the title %j and a CSRF meta tag", async (path, title) => {
    const res = await new TestClient().fetch(path, html);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(titleOf(page)).toBe(title);
    expect(csrfMeta(page)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
  });

  it("sends a signed-in member from /login and /register to /dashboard", async () => {
    for (const path of ["/login", "/register"]) {
      const res = await member.client.fetch(path, html);
      expect(res.status, path).toBe(302);
      expect(res.headers.get("Location"), path).toBe("/dashboard");
    }
  });

  it("sends a visitor from a members' page to /login and back", async () => {
    const res = await new TestClient().fetch("/settings/appearance", html);
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(
      `/login?redirectTo=${encodeURIComponent("/settings/appearance")}`,
    );
  });
});

describe("plain HTML forms", () => {
  it("sign in and redirect to the dashboard", async () => {
    const client = new TestClient();
    const res = await client.form("/login", {
      email: member.details.email,
      password: member.details.password,
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/dashboard");
    const dashboard = await client.fetch("/dashboard", html);
    expect(dashboard.status).toBe(200);
    expect(titleOf(await dashboard.text())).toBe("Dashboard - Heartline");
  });

  it("go back to a same-site redirectTo, never to another site", async () => {
    const back = new TestClient();
    const res = await back.form("/login", {
      email: member.details.email,
      password: member.details.password,
      redirectTo: "/settings/appearance",
    });
    expect(res.headers.get("Location")).toBe("/settings/appearance");

    for (const redirectTo of ["//evil.example/", "https://evil.example/", "/\\evil.example"]) {
      const res = await new TestClient().form("/login", {
        email: member.details.email,
        password: member.details.password,
        redirectTo,
      });
      expect(res.status, redirectTo).toBe(302);
      expect(res.headers.get("Location"), redirectTo).toBe("/dashboard");
    }
  });

  it("show the credentials error on the page after a wrong password", async () => {
    const client = new TestClient();
    const res = await client.form("/login", {
      email: member.details.email,
      password: "wrong password",
    });
    expect(res.status).toBe(422);
    const page = await res.text();
    expect(titleOf(page)).toBe("Login - Heartline");
    expect(page).toContain("These credentials do not match our records.");
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it("register, sign in and go to the email verification notice", async () => {
    const client = new TestClient();
    const details = uniqueMember("formreg");
    const res = await client.form("/register", details);
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/verify-email");
    const notice = await client.fetch("/verify-email", html);
    expect(notice.status).toBe(200);
    expect(await notice.text()).toContain(details.email);
  });

  it("sign out, ending the session server-side", async () => {
    const { client, id } = await registerMember();
    await client.loadCsrfFromPage("/settings/appearance");
    const res = await client.form("/logout", {});
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/login");
    expect(await sessionsOf(id)).toHaveLength(0);
    await client.loadCsrfFromPage("/login");
    expect(await authStatus(client)).toBe(401);
  });
});

describe("not found", () => {
  it("renders the 404 page for an unknown path", async () => {
    const res = await new TestClient().fetch("/no/such/page", html);
    expect(res.status).toBe(404);
    const page = await res.text();
    expect(titleOf(page)).toBe("Page not found - Heartline");
    expect(page).not.toMatch(/\bat .*\.(js|ts):\d+/);
  });

  it("answers 404 to a JSON client too", async () => {
    const res = await new TestClient().fetch("/no/such/endpoint", {
      headers: { Accept: "application/json" },
    });
    expect(res.status).toBe(404);
  });
});

describe("deploy skew", () => {
  it("answers 409 with a Location to a page request (a navigation) from an older build", async () => {
    const res = await new TestClient().fetch("/login?x=1", {
      headers: { "X-Heartline-Version": "old" },
    });
    expect(res.status).toBe(409);
    expect(res.headers.get("Location")).toBe("/login?x=1");
  });

  it("sends the reload to the page the client was on (same origin only)", async () => {
    const same = await new TestClient().fetch("/forgot-password", {
      headers: { "X-Heartline-Version": "old", Referer: "http://localhost/register?a=b" },
    });
    expect(same.status).toBe(409);
    expect(same.headers.get("Location")).toBe("/register?a=b");

    const foreign = await new TestClient().fetch("/forgot-password", {
      headers: { "X-Heartline-Version": "old", Referer: "https://evil.example/phish" },
    });
    expect(foreign.headers.get("Location")).toBe("/forgot-password");
  });

  it("serves the page to a client on the current build", async () => {
    const client = new TestClient();
    const page = await (await client.fetch("/login", html)).text();
    const version = page.match(/<meta name="app-version" content="([^"]+)"/)?.[1];
    expect(version).toBeTruthy();
    const res = await client.fetch("/login", {
      headers: { "X-Heartline-Version": version!, Accept: "text/html" },
    });
    expect(res.status).toBe(200);
  });

  it("answers the app's background requests from an older build, naming the new build (nothing reloads by itself)", async () => {
    const client = new TestClient();
    const page = await (await client.fetch("/login", html)).text();
    const current = page.match(/<meta name="app-version" content="([^"]+)"/)?.[1];
    const member = await verifiedMember();
    const background = {
      "X-Heartline-Version": "old",
      "X-Requested-With": "XMLHttpRequest",
      Accept: "application/json",
    };
    const list = await member.client.fetch("/notifications", { headers: background });
    expect(list.status).toBe(200);
    expect(list.headers.get("X-Heartline-Version")).toBe(current);
    expect(await list.json()).toMatchObject({ unread_count: 0 });
    // A write from the old page works too (the heartbeat every open tab sends).
    const beat = await member.client.fetch("/me/heartbeat", {
      method: "POST",
      headers: { ...background, "X-CSRF-Token": member.client.csrfToken ?? "" },
    });
    expect(beat.status).toBe(204);
    expect(beat.headers.get("X-Heartline-Version")).toBe(current);
    // A JSON Accept alone is enough to be a background call.
    const json = await member.client.fetch("/notifications", {
      headers: { "X-Heartline-Version": "old", Accept: "application/json" },
    });
    expect(json.status).toBe(200);
    // On the current build nothing is added.
    const fresh = await member.client.fetch("/notifications", {
      headers: { ...background, "X-Heartline-Version": current! },
    });
    expect(fresh.headers.get("X-Heartline-Version")).toBeNull();
  });

  it("asks Remix's client to reload the document when its manifest version is old", async () => {
    const res = await new TestClient().fetch("/__manifest?version=old&p=/login");
    expect(res.status).toBe(204);
    expect(res.headers.get("X-Remix-Reload-Document")).toBe("true");
  });
});

describe("GET /dev/mailbox", () => {
  it("returns the emails newest first", async () => {
    const someone = await registerMember();
    const client = new TestClient();
    expect(
      (await client.json("POST", "/forgot-password", { email: someone.details.email })).status,
    ).toBe(200);
    // The reset email comes through the email queue.
    expect(await latestEmailTo(someone.details.email, 1)).not.toBeNull();

    const res = await client.json<{ emails: MailboxEmail[] }>("GET", "/dev/mailbox");
    expect(res.status).toBe(200);
    const { emails } = res.body;
    expect(emails.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(emails[0]!).sort()).toEqual([
      "headers",
      "html",
      "sent_at",
      "subject",
      "text",
      "to",
    ]);
    // An account's own emails carry no list headers (only notification emails do).
    expect(emails[0]!.headers).toEqual({});
    expect(emails[0]).toMatchObject({ to: someone.details.email, subject: "Reset your password" });
    expect(emails[1]).toMatchObject({
      to: someone.details.email,
      subject: "Verify your email address",
    });
    for (let i = 1; i < emails.length; i++) {
      expect(emails[i - 1]!.sent_at >= emails[i]!.sent_at).toBe(true);
    }
  });

  it("is also a page", async () => {
    const res = await new TestClient().fetch("/dev/mailbox", html);
    expect(res.status).toBe(200);
    expect(titleOf(await res.text())).toBe("Mailbox - Heartline");
  });
});
