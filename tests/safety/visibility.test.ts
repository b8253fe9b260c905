import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { canSee } from "~/server/visibility.server";
import { verifiedMember } from "../helpers/members";
import { block, memberWithPhoto, page, unblock } from "./helpers";

describe("a block hides members from each other, both ways", () => {
  it("profiles (page and JSON) and photos are 404 for both members, and come back on unblock", async () => {
    const alice = await memberWithPhoto();
    const bob = await memberWithPhoto();
    expect((await bob.client.json("GET", `/members/${alice.details.username}`)).status).toBe(200);
    expect((await bob.client.fetch(`/photos/${alice.photoId}`)).status).toBe(200);

    await block(alice, bob);
    for (const [viewer, target] of [
      [alice, bob],
      [bob, alice],
    ] as const) {
      expect((await viewer.client.json("GET", `/members/${target.details.username}`)).status).toBe(
        404,
      );
      expect((await page(viewer.client, `/members/${target.details.username}`)).status).toBe(404);
      expect((await viewer.client.fetch(`/photos/${target.photoId}`)).status).toBe(404);
      // Their own photo is still theirs.
      expect((await viewer.client.fetch(`/photos/${viewer.photoId}`)).status).toBe(200);
      expect(await canSee(env, viewer.id, target.id)).toBe(false);
    }

    await unblock(alice, bob);
    expect((await bob.client.json("GET", `/members/${alice.details.username}`)).status).toBe(200);
    expect((await alice.client.fetch(`/photos/${bob.photoId}`)).status).toBe(200);
  });

  it("profile viewers never list a member blocked either way, and total_count agrees", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const carol = await verifiedMember();
    await bob.client.json("GET", `/members/${alice.details.username}`);
    await carol.client.json("GET", `/members/${alice.details.username}`);
    const viewers = () =>
      alice.client.json<{ viewers: { id: string }[]; total_count: number }>(
        "GET",
        "/my/profile-viewers",
      );
    expect((await viewers()).body.total_count).toBe(2);

    await block(bob, alice);
    const afterBlockedBy = (await viewers()).body;
    expect(afterBlockedBy.viewers.map((v) => v.id)).toEqual([carol.id]);
    expect(afterBlockedBy.total_count).toBe(1);

    await block(alice, carol);
    expect((await viewers()).body).toMatchObject({ viewers: [], total_count: 0 });

    await unblock(bob, alice);
    expect((await viewers()).body.viewers.map((v) => v.id)).toEqual([bob.id]);
  });

  it("the blocked list shows neither photo nor presence of the blocked member", async () => {
    const alice = await verifiedMember();
    const bob = await memberWithPhoto();
    await env.DB.prepare("UPDATE users SET last_seen_at = ?2 WHERE id = ?1")
      .bind(bob.id, new Date().toISOString())
      .run();
    await block(alice, bob);
    const list = await alice.client.json<{ blocked_users: Record<string, unknown>[] }>(
      "GET",
      "/my/blocked-users",
    );
    expect(list.body.blocked_users[0]).toMatchObject({
      id: bob.id,
      photo_url: null,
      photo_urls: null,
      online: false,
      last_seen_at: null,
    });
  });

  it("a suspended or unverified member cannot be seen; a member always sees themself", async () => {
    const alice = await verifiedMember();
    const bob = await memberWithPhoto();
    expect(await canSee(env, alice.id, alice.id)).toBe(true);
    await env.DB.prepare("UPDATE users SET status = 'suspended' WHERE id = ?1").bind(bob.id).run();
    expect(await canSee(env, alice.id, bob.id)).toBe(false);
    expect((await alice.client.fetch(`/photos/${bob.photoId}`)).status).toBe(404);
    await env.DB.prepare(
      "UPDATE users SET status = 'active', email_verified_at = NULL WHERE id = ?1",
    )
      .bind(bob.id)
      .run();
    expect(await canSee(env, alice.id, bob.id)).toBe(false);
    expect(await canSee(env, alice.id, "nobody")).toBe(false);
  });
});
