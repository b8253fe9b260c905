import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { requestMeta } from "~/server/context.server";
import { registerMember, verifiedMember } from "../helpers/members";
import { fetchWith, PRODUCTION } from "../helpers/worker";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Issue 12, findings 9 and 10: body sizes, client addresses, the dev mailbox, unverified settings. */

describe("request bodies", () => {
  it("a JSON body past the limit is refused with 413 before it is read, and changes nothing", async () => {
    const member = await verifiedMember();
    await member.client.loadCsrfFromPage("/dashboard");
    const big = JSON.stringify({ bio: "x".repeat(20 * 1024 * 1024) });
    const res = await member.client.fetch("/my/profile", {
      method: "PUT",
      headers: {
        Accept: "application/json",
        "Content-Type": "application/json",
        "X-CSRF-Token": member.client.csrfToken,
      },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      message: "The request body may not be larger than 64 KB.",
    });
  });

  it("a streamed body without Content-Length is cut off at the limit too", async () => {
    const member = await verifiedMember();
    await member.client.loadCsrfFromPage("/dashboard");
    const chunk = new TextEncoder().encode("a".repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ >= 100) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await member.client.fetch("/login", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "text/html" },
      body,
      // @ts-expect-error -- workerd's fetch takes a stream body as in the browser
      duplex: "half",
    });
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(20);
  });

  it("ordinary bodies still work", async () => {
    const member = await verifiedMember();
    const res = await member.client.json("PUT", "/my/privacy", { hide_online: true });
    expect(res.status).toBe(200);
  });
});

describe("client addresses", () => {
  it("never come from X-Forwarded-For", () => {
    const forged = new Request("http://localhost/login", {
      headers: { "X-Forwarded-For": "203.0.113.9" },
    });
    expect(requestMeta(forged).ip).not.toBe("203.0.113.9");
    const real = new Request("http://localhost/login", {
      headers: { "CF-Connecting-IP": "198.51.100.4", "X-Forwarded-For": "203.0.113.9" },
    });
    expect(requestMeta(real).ip).toBe("198.51.100.4");
  });
});

describe("/dev/mailbox", () => {
  const json = { headers: { Accept: "application/json" } };

  it("exists only in development or the tests, and only when DEV_MAILBOX is on", async () => {
    expect((await fetchWith({}, "/dev/mailbox", json)).status).toBe(200);
    expect(
      (await fetchWith({ APP_ENV: "development", MAIL_TRANSPORT: "mailbox" }, "/dev/mailbox", json))
        .status,
    ).toBe(200);
    for (const overrides of [
      { DEV_MAILBOX: undefined },
      { DEV_MAILBOX: "off" },
      { APP_ENV: "staging" },
      { APP_ENV: "Development" },
    ]) {
      const res = await fetchWith(overrides, "/dev/mailbox", json);
      expect(res.status, JSON.stringify(overrides)).toBe(404);
      await res.body?.cancel();
    }
    // Production with the mailbox switched on serves nothing at all (productionProblems).
    vi.spyOn(console, "error").mockImplementation(() => {});
    const refused = await fetchWith({ ...PRODUCTION, DEV_MAILBOX: "on" }, "/dev/mailbox", json);
    expect(refused.status).toBe(503);
    expect(await refused.text()).not.toContain("emails");
  });
});

describe("unverified members", () => {
  it("may read and change their privacy and notification settings", async () => {
    const member = await registerMember();
    expect((await member.client.json("GET", "/my/privacy")).status).toBe(200);
    const privacy = await member.client.json("PUT", "/my/privacy", { hide_online: true });
    expect(privacy.status).toBe(200);
    expect((await member.client.json("GET", "/my/notification-preferences")).status).toBe(200);
    const prefs = await member.client.json("PUT", "/my/notification-preferences", { like: false });
    expect(prefs.status).toBe(200);
    const stored = await env.DB.prepare("SELECT hide_online FROM users WHERE id = ?1")
      .bind(member.id)
      .first<{ hide_online: number }>();
    expect(stored?.hide_online).toBe(1);
    // Still nothing else.
    expect((await member.client.json("GET", "/my/likes")).status).toBe(403);
  });
});
