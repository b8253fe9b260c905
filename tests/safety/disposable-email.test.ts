import { describe, expect, it } from "vitest";
import { DISPOSABLE_EMAIL, isDisposableEmail } from "~/server/email-domains.server";
import { TestClient } from "../helpers/client";
import { uniqueMember } from "../helpers/members";
import { countUsers, emailsTo, userByEmail } from "../helpers/auth";

describe("disposable email domains at registration", () => {
  it("knows throwaway domains from the maintained list, their subdomains, any case", () => {
    expect(isDisposableEmail("someone@mailinator.com")).toBe(true);
    expect(isDisposableEmail("someone@10minutemail.com")).toBe(true);
    expect(isDisposableEmail("Someone@GuerrillaMail.COM")).toBe(true);
    expect(isDisposableEmail("someone@inbox.mailinator.com")).toBe(true);
    expect(isDisposableEmail("someone@gmail.com")).toBe(false);
    expect(isDisposableEmail("someone@outlook.com")).toBe(false);
    expect(isDisposableEmail("someone@example.test")).toBe(false);
    expect(isDisposableEmail("someone@fastmail.com")).toBe(false);
  });

  it("refuses a disposable address with 422 on email and creates nothing", async () => {
    const before = await countUsers();
    const details = { ...uniqueMember("burner"), email: `burner${Date.now()}@mailinator.com` };
    const res = await new TestClient().json<{ errors?: Record<string, string[]> }>(
      "POST",
      "/register",
      details,
    );
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ email: [DISPOSABLE_EMAIL] });
    expect(await userByEmail(details.email)).toBeNull();
    expect(await emailsTo(details.email)).toHaveLength(0);
    expect(await countUsers()).toBe(before);
  });

  it("still registers a member with a permanent address", async () => {
    const details = uniqueMember("permanent");
    const res = await new TestClient().json("POST", "/register", details);
    expect(res.status).toBe(201);
  });
});
