import { afterEach, describe, expect, it, vi } from "vitest";
import { verifiedMember } from "../helpers/members";
import { failingDatabase, fetchWith, PRODUCTION } from "../helpers/worker";
import { titleOf } from "../helpers/auth";

const json = { headers: { Accept: "application/json" } };
const html = { headers: { Accept: "text/html" } };

afterEach(() => {
  vi.restoreAllMocks();
});

describe("in production", () => {
  it("has no /dev/mailbox, for JSON or for a browser", async () => {
    const apiRes = await fetchWith(PRODUCTION, "/dev/mailbox", json);
    expect(apiRes.status).toBe(404);
    expect(await apiRes.json()).toEqual({ message: "Not found." });

    const page = await fetchWith(PRODUCTION, "/dev/mailbox", html);
    expect(page.status).toBe(404);
    const body = await page.text();
    expect(body).not.toContain("Verify your email address");
    expect(titleOf(body)).toBe("Page not found - Heartline");
  });

  it("serves the mailbox outside production", async () => {
    expect((await fetchWith({}, "/dev/mailbox", json)).status).toBe(200);
  });

  it("marks the session and CSRF cookies Secure and __Host- prefixed", async () => {
    const member = await verifiedMember();
    const ip = "198.51.100.7";
    const tokenRes = await fetchWith(PRODUCTION, "/csrf-token", { ...json, ip });
    const csrfCookie = tokenRes.headers.getSetCookie()[0]!;
    expect(csrfCookie).toMatch(/^__Host-heartline_csrf=/);
    expect(csrfCookie).toMatch(/;\s*Secure/i);
    expect(csrfCookie).toMatch(/;\s*Path=\/(;|$)/);
    expect(csrfCookie).not.toMatch(/Domain=/i);
    const { token } = (await tokenRes.json()) as { token: string };

    const login = await fetchWith(PRODUCTION, "/login", {
      method: "POST",
      ip,
      headers: {
        Accept: "application/json",
        "Content-Type": "application/json",
        "X-CSRF-Token": token,
        Cookie: csrfCookie.split(";")[0]!,
      },
      body: JSON.stringify({ email: member.details.email, password: member.details.password }),
    });
    expect(login.status).toBe(200);
    const session = login.headers.getSetCookie().find((c) => c.includes("heartline_session="));
    expect(session).toMatch(/^__Host-heartline_session=/);
    expect(session).toMatch(/;\s*Secure/i);
    expect(session).toMatch(/;\s*HttpOnly/i);
    expect(session).toMatch(/;\s*SameSite=Lax/i);
  });
});

describe("server errors", () => {
  const SECRET = "database exploded at secret-host:5432";
  const broken = { DB: failingDatabase(SECRET) };
  // A cookie that makes the Worker look the session up, which then fails.
  const withSession = (accept: string) => ({
    headers: { Accept: accept, Cookie: `heartline_session=${"a".repeat(43)}` },
  });

  function expectNoLeak(body: string) {
    expect(body).not.toContain(SECRET);
    expect(body).not.toMatch(/\bat .+:\d+:\d+/);
    expect(body).not.toMatch(/\.(ts|js|tsx):\d+/);
    expect(body).not.toContain("Error:");
  }

  it("answer 500 JSON without a stack trace, and log the error server-side", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await fetchWith(broken, "/csrf-token", withSession("application/json"));
    expect(res.status).toBe(500);
    const body = await res.text();
    expectNoLeak(body);
    expect(JSON.parse(body)).toMatchObject({ message: "Server Error" });
    expect(logged.mock.calls.flat().join(" ")).toContain(SECRET);
  });

  it("answer a 500 page without a stack trace", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await fetchWith(broken, "/login", withSession("text/html"));
    expect(res.status).toBe(500);
    const body = await res.text();
    expectNoLeak(body);
    expect(titleOf(body)).toBe("Something went wrong - Heartline");
  });

  it("answer a 500 page without a stack trace when a page's loader fails", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await fetchWith(broken, "/dev/mailbox", html);
    expect(res.status).toBe(500);
    const body = await res.text();
    expectNoLeak(body);
    expect(titleOf(body)).toBe("Something went wrong - Heartline");
  });
});
