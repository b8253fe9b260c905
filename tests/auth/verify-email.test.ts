import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { verificationUrl } from "~/server/auth.server";
import { HttpError } from "~/server/errors.server";
import { requireVerified } from "../../worker/middleware/auth";
import type { AppBindings } from "../../worker/types";
import { TestClient } from "../helpers/client";
import { firstLink, latestEmailTo, registerMember, verifiedMember } from "../helpers/members";
import { emailsTo, HOUR, sha256Hex, userByEmail } from "../helpers/auth";

const INVALID = "/verify-email?invalid=1";

async function linkOf(member: { details: { email: string } }) {
  const mail = await latestEmailTo(member.details.email);
  expect(mail?.subject).toBe("Verify your email address");
  return new URL(firstLink(mail!.text), "http://localhost");
}

const isVerified = async (email: string) => Boolean((await userByEmail(email))?.email_verified_at);

const pathOf = (url: URL) => `${url.pathname}${url.search}`;

describe("GET /verify-email/{id}/{hash}", () => {
  it("marks the member verified and redirects to /dashboard", async () => {
    const member = await registerMember();
    expect(await isVerified(member.details.email)).toBe(false);
    const res = await member.client.fetch(pathOf(await linkOf(member)));
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("Location")!, "http://localhost").pathname).toBe("/dashboard");
    expect(await isVerified(member.details.email)).toBe(true);

    // The dashboard now leads to onboarding, which opens.
    const dashboard = await member.client.fetch("/dashboard?verified=1", {
      headers: { Accept: "text/html" },
    });
    expect(dashboard.status).toBe(302);
    expect(dashboard.headers.get("Location")).toBe("/onboarding?verified=1");
    const onboarding = await member.client.fetch("/onboarding?verified=1", {
      headers: { Accept: "text/html" },
    });
    expect(onboarding.status).toBe(200);
  });

  it("works from a browser that is not signed in, and answers JSON when asked", async () => {
    const member = await registerMember();
    const res = await new TestClient().json("GET", pathOf(await linkOf(member)));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ verified: true });
    expect(await isVerified(member.details.email)).toBe(true);
  });

  it("refuses a link whose id, hash, expiry or signature was changed", async () => {
    const member = await registerMember();
    const other = await registerMember();
    const link = await linkOf(member);
    const [, , id, hash] = link.pathname.split("/");
    const expires = link.searchParams.get("expires")!;
    const signature = link.searchParams.get("signature")!;
    const flip = (s: string, at: number) =>
      s.slice(0, at) + (s[at] === "A" ? "B" : "A") + s.slice(at + 1);

    const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const respell = (s: string) => s.slice(0, -1) + B64[B64.indexOf(s.at(-1)!) | 1];

    const tampered = [
      `/verify-email/${other.id}/${hash}?expires=${expires}&signature=${signature}`,
      `/verify-email/${id}/${await sha256Hex(other.details.email)}?expires=${expires}&signature=${signature}`,
      `/verify-email/${id}/${hash}?expires=${Number(expires) + 3600}&signature=${signature}`,
      `/verify-email/${id}/${hash}?expires=${expires}&signature=${flip(signature, 5)}`,
      // The same bytes spelled differently: base64 decoding drops a last character's spare bits.
      `/verify-email/${id}/${hash}?expires=${expires}&signature=${respell(signature)}`,
      `/verify-email/${id}/${hash}?expires=${expires}`,
      `/verify-email/${id}/${hash}?signature=${signature}`,
      `/verify-email/${id}/${hash}?expires=soon&signature=${signature}`,
      `/verify-email/${id}/${hash}?expires=${expires}&signature=%25%25%25`,
    ];
    for (const path of tampered) {
      const res = await new TestClient().fetch(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get("Location"), path).toBe(INVALID);
      const json = await new TestClient().json("GET", path);
      expect(json.status, path).toBe(403);
      expect(json.body).toEqual({ message: expect.any(String) });
    }
    expect(await isVerified(member.details.email)).toBe(false);
    expect(await isVerified(other.details.email)).toBe(false);

    // The untouched link still works.
    expect((await new TestClient().fetch(pathOf(link))).status).toBe(303);
    expect(await isVerified(member.details.email)).toBe(true);
    expect(await isVerified(other.details.email)).toBe(false);
  });

  it("refuses an expired link", async () => {
    const member = await registerMember();
    // A correctly signed link that was issued two hours ago (links last 60 minutes).
    const expired = await verificationUrl(
      env,
      { id: member.id, email: member.details.email },
      "http://localhost",
      Date.now() - 2 * HOUR,
    );
    const res = await new TestClient().fetch(pathOf(new URL(expired)));
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(INVALID);
    expect(await isVerified(member.details.email)).toBe(false);
  });

  it("shows the invalid-link notice on /verify-email", async () => {
    const res = await new TestClient().fetch(INVALID, { headers: { Accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("invalid or has expired");
  });
});

describe("unverified members", () => {
  it("are sent from /dashboard to /verify-email, while verified members get the page", async () => {
    const unverified = await registerMember();
    const res = await unverified.client.fetch("/dashboard", { headers: { Accept: "text/html" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/verify-email");

    const verified = await verifiedMember();
    const ok = await verified.client.fetch("/dashboard", { headers: { Accept: "text/html" } });
    expect(ok.status).toBe(200);
  });

  it("may still open their settings", async () => {
    const unverified = await registerMember();
    const res = await unverified.client.fetch("/settings/appearance", {
      headers: { Accept: "text/html" },
    });
    expect(res.status).toBe(200);
  });

  it("are refused with 403 by the verified-only API guard", async () => {
    const app = new Hono<AppBindings>();
    let raised: unknown;
    app.onError((error, c) => {
      raised = error;
      return c.text("", 500);
    });
    app.use(async (c, next) => {
      const verifiedAt = c.req.header("X-Verified") ?? null;
      c.set("rc", { user: { id: "u1", emailVerifiedAt: verifiedAt } } as never);
      return next();
    });
    app.get("/verified-only", requireVerified, (c) => c.json({ ok: true }));

    await app.request("/verified-only");
    expect(raised).toBeInstanceOf(HttpError);
    expect((raised as HttpError).status).toBe(403);
    expect((raised as HttpError).toJSON()).toEqual({
      message: "Your email address is not verified.",
    });

    raised = undefined;
    const ok = await app.request("/verified-only", {
      headers: { "X-Verified": "2026-01-01T00:00:00.000Z" },
    });
    expect(ok.status).toBe(200);
    expect(raised).toBeUndefined();
  });
});

describe("POST /email/verification-notification", () => {
  it("answers 202 and sends a new link to an unverified member", async () => {
    const member = await registerMember();
    expect(await emailsTo(member.details.email)).toHaveLength(1);
    const res = await member.client.json("POST", "/email/verification-notification");
    expect(res.status).toBe(202);
    const emails = await emailsTo(member.details.email, 2);
    expect(emails).toHaveLength(2);
    expect(emails[1]!.subject).toBe("Verify your email address");
    // The new link works.
    expect((await new TestClient().fetch(firstLink(emails[1]!.text))).status).toBe(303);
    expect(await isVerified(member.details.email)).toBe(true);
  });

  it("sends nothing to a member who is already verified", async () => {
    const member = await verifiedMember();
    const before = (await emailsTo(member.details.email)).length;
    expect((await member.client.json("POST", "/email/verification-notification")).status).toBe(202);
    expect(await emailsTo(member.details.email)).toHaveLength(before);
  });

  it("needs a signed-in member", async () => {
    expect((await new TestClient().json("POST", "/email/verification-notification")).status).toBe(
      401,
    );
  });
});
