import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readSessionById } from "~/server/session.server";
import type { Env } from "~/server/env.server";
import { sessionRowOf } from "../helpers/auth";
import { verifiedMember } from "../helpers/members";

/**
 * The session read under every request: one statement, its columns read as the schema types them
 * (booleans, the profile's first name and ages through the left join), and the member it names.
 */
describe("readSessionById", () => {
  it("reads the session and its member as the schema types them", async () => {
    const member = await verifiedMember();
    const row = await sessionRowOf(member.client);
    const user = await env.DB.prepare(
      "SELECT id, username, email, email_verified_at, created_at FROM users WHERE email = ?1",
    )
      .bind(member.details.email)
      .first<Record<string, string>>();
    await env.DB.prepare("UPDATE users SET hide_online = 1 WHERE id = ?1").bind(user!.id).run();
    await env.DB.prepare("UPDATE profiles SET first_name = 'Ada' WHERE user_id = ?1")
      .bind(user!.id)
      .run();

    const profile = await env.DB.prepare(
      "SELECT date_of_birth, age_min, age_max FROM profiles WHERE user_id = ?1",
    )
      .bind(user!.id)
      .first<{ date_of_birth: string; age_min: number; age_max: number }>();

    const read = await readSessionById(env as unknown as Env, row!.id_hash);
    expect(read).toEqual({
      session: {
        idHash: row!.id_hash,
        userId: user!.id,
        remember: Boolean(row!.remember),
        createdAt: row!.created_at,
        expiresAt: row!.expires_at,
        passwordConfirmedAt: row!.password_confirmed_at,
      },
      user: {
        id: user!.id,
        username: user!.username,
        email: user!.email,
        emailVerifiedAt: user!.email_verified_at,
        role: "member",
        status: "active",
        hiddenByReports: false,
        hideOnline: true,
        createdAt: user!.created_at,
        firstName: "Ada",
        onboarding: "skipped",
        ages: {
          dob: profile!.date_of_birth,
          ageMin: profile!.age_min,
          ageMax: profile!.age_max,
          // No place saved: searches by distance have no origin.
          latitude: null,
          longitude: null,
        },
      },
    });
  });

  it("reads a member without a profile row, with no first name", async () => {
    const member = await verifiedMember();
    const row = await sessionRowOf(member.client);
    await env.DB.prepare("DELETE FROM profiles WHERE user_id = ?1").bind(row!.user_id).run();
    const read = await readSessionById(env as unknown as Env, row!.id_hash);
    expect(read?.user.firstName).toBeNull();
    expect(read?.user.ages).toBeNull();
    expect(read?.user.hideOnline).toBe(false);
    expect(typeof read?.session.remember).toBe("boolean");
  });

  it("ends a suspended member's session", async () => {
    const member = await verifiedMember();
    const row = await sessionRowOf(member.client);
    await env.DB.prepare("UPDATE users SET status = 'suspended' WHERE id = ?1")
      .bind(row!.user_id)
      .run();
    expect(await readSessionById(env as unknown as Env, row!.id_hash)).toBeNull();
    expect(await sessionRowOf(member.client)).toBeNull();
  });
});
