import { describe, expect, it } from "vitest";
import { verifiedMember } from "../helpers/members";

describe("blocking API", () => {
  it("blocks, checks both directions, lists and unblocks with docs/api.md's messages", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();

    const blocked = await alice.client.json("POST", "/my/block", {
      user_id: bob.id,
      reason_type: "spam",
    });
    expect(blocked).toMatchObject({
      status: 200,
      body: { message: "User has been blocked successfully." },
    });
    // Blocking twice is harmless.
    expect(
      (await alice.client.json("POST", "/my/block", { user_id: bob.id, reason_type: "other" }))
        .status,
    ).toBe(200);

    expect((await alice.client.json("GET", `/my/block/check/${bob.id}`)).body).toEqual({
      is_blocked: true,
      is_blocked_by: false,
      has_mutual_block: false,
    });
    expect((await bob.client.json("GET", `/my/block/check/${alice.id}`)).body).toEqual({
      is_blocked: false,
      is_blocked_by: true,
      has_mutual_block: false,
    });
    await bob.client.json("POST", "/my/block", { user_id: alice.id, reason_type: "harassment" });
    expect((await bob.client.json("GET", `/my/block/check/${alice.id}`)).body).toMatchObject({
      has_mutual_block: true,
    });

    const list = await alice.client.json<{ blocked_users: Record<string, unknown>[] }>(
      "GET",
      "/my/blocked-users",
    );
    expect(list.body.blocked_users).toHaveLength(1);
    expect(list.body.blocked_users[0]).toMatchObject({ id: bob.id, reason_type: "spam" });
    expect(list.body.blocked_users[0]!.blocked_at).toMatch(/Z$/);

    const unblocked = await alice.client.json("DELETE", `/my/block/${bob.id}`);
    expect(unblocked).toMatchObject({
      status: 200,
      body: { message: "User has been unblocked successfully." },
    });
    expect((await alice.client.json("GET", "/my/blocked-users")).body).toMatchObject({
      blocked_users: [],
    });
  });

  it("refuses bad input with 422 and changes nothing", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const bad = await alice.client.json<{ errors: Record<string, string[]> }>("POST", "/my/block", {
      user_id: bob.id,
      reason_type: "because",
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.reason_type).toBeDefined();
    const self = await alice.client.json("POST", "/my/block", {
      user_id: alice.id,
      reason_type: "spam",
    });
    expect(self.status).toBe(422);
    const unknown = await alice.client.json("POST", "/my/block", {
      user_id: "nobody",
      reason_type: "spam",
    });
    expect(unknown.status).toBe(404);
    expect((await alice.client.json("GET", `/my/block/check/${bob.id}`)).body).toMatchObject({
      is_blocked: false,
    });
  });
});
