import { describe, expect, it } from "vitest";
import { signInAs } from "../helpers/auth";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";

/**
 * Issue 12, finding 6: signing in counts as a password confirmation for 3 hours, so a session left
 * open (a borrowed phone, a stolen cookie) could change the password without knowing it. The
 * change asks for the current password every time.
 */
describe("changing the password", () => {
  it("is refused without the current password, even just after signing in", async () => {
    const member = await verifiedMember();
    const { client } = await signInAs(member.details.email, member.details.password);
    const missing = await client.json<{ errors: Record<string, string[]> }>(
      "PUT",
      "/settings/password",
      { password: "taken over passphrase", password_confirmation: "taken over passphrase" },
    );
    expect(missing.status).toBe(422);
    expect(missing.body.errors.current_password).toEqual([
      "The current password field is required.",
    ]);

    const wrong = await client.json<{ errors: Record<string, string[]> }>(
      "PUT",
      "/settings/password",
      {
        current_password: "not my password",
        password: "taken over passphrase",
        password_confirmation: "taken over passphrase",
      },
    );
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.current_password).toEqual(["The provided password is incorrect."]);

    // Nothing changed: the old password still signs in, the attacker's does not.
    await signInAs(member.details.email, member.details.password);
    const attacker = await new TestClient().json("POST", "/login", {
      email: member.details.email,
      password: "taken over passphrase",
    });
    expect(attacker.status).toBe(422);
  });

  it("works with the current password, and the page form asks for it", async () => {
    const member = await verifiedMember();
    const { client } = await signInAs(member.details.email, member.details.password);
    const page = await client.fetch("/settings/password", { headers: { Accept: "text/html" } });
    expect(await page.text()).toContain('name="current_password"');

    const form = await client.form("/settings/password", {
      current_password: "not my password",
      password: "taken over passphrase",
      password_confirmation: "taken over passphrase",
    });
    expect(form.status).toBe(422);
    expect(await form.text()).toContain("The provided password is incorrect.");

    const res = await client.json("PUT", "/settings/password", {
      current_password: member.details.password,
      password: "my own new passphrase",
      password_confirmation: "my own new passphrase",
    });
    expect(res.status).toBe(200);
    await signInAs(member.details.email, "my own new passphrase");
  });
});
