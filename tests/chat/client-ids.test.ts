import { env, runInDurableObject } from "cloudflare:test";
import { conversationRoom } from "~/server/chat-rooms.server";
import { restartObject } from "../helpers/restart";
import { describe, expect, it } from "vitest";
import type { MemberHub } from "../../durable-objects/member-hub";
import { verifiedMember } from "../helpers/members";
import { conversationPair, page, send, sent, start, type Member } from "./helpers";

const hubOf = (userId: string) => env.MEMBER_HUB.get(env.MEMBER_HUB.idFromName(userId));

/** The client ids the member's hub has claimed, with their conversation. */
async function claims(member: Member) {
  return runInDurableObject(hubOf(member.id), (_hub, state: DurableObjectState) =>
    state.storage.sql
      .exec<{
        client_id: string;
        conversation_id: string;
      }>("SELECT client_id, conversation_id FROM client_ids ORDER BY client_id")
      .toArray()
      .map((r) => [r.client_id, r.conversation_id]),
  );
}

/** As if the member's last lease had been taken back long ago (no wait for the quiet time). */
async function quietSinceLastLease(member: Member) {
  await runInDurableObject(hubOf(member.id), (hub: MemberHub) => {
    (hub["clientIds"] as unknown as { recalledAt: number }).recalledAt = 0;
  });
}

/** A conversation of `alice` with a new member who has written back. */
async function answered(alice: Member) {
  const other = await verifiedMember();
  const id = (await start(alice, other)).body.conversation.id;
  await sent(other.client, id, "hello");
  return id;
}

describe("client ids under the conversation's lease", () => {
  it("claims nothing per message in one conversation, and still refuses those ids elsewhere", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(bob.client, id, "hi");
    for (const n of [1, 2, 3]) {
      expect((await send(alice.client, id, `a${n}`, { client_id: `a-${n}` })).status).toBe(201);
    }
    // The first claim granted the conversation the lease: the next ids were not claimed one by one.
    expect(await claims(alice)).toEqual([["a-1", id]]);

    // The room restarts (its lease was in memory only); the hub hands it back on the next claim.
    await restartObject(conversationRoom(env, id));
    for (const n of [4, 5]) {
      expect((await send(alice.client, id, `a${n}`, { client_id: `a-${n}` })).status).toBe(201);
    }
    expect((await claims(alice)).length).toBeLessThanOrEqual(2);

    // Another conversation's claim takes the lease back: every id used under it is refused there.
    const other = await answered(alice);
    for (const n of [2, 3, 5]) {
      expect((await send(alice.client, other, "again", { client_id: `a-${n}` })).status).toBe(409);
    }
    expect(await claims(alice)).toEqual([1, 2, 3, 4, 5].map((n) => [`a-${n}`, id]));
    expect((await send(alice.client, other, "new", { client_id: "b-1" })).status).toBe(201);
    // A retry in the first conversation is still answered with its message, lease or not.
    const retry = await send(alice.client, id, "a3", { client_id: "a-3" });
    expect(retry.status).toBe(201);
    expect(retry.body.message.message).toBe("a3");
    const texts = (await page(bob.client, id)).body.messages.map((m) => m.message);
    expect(texts).toEqual(["hi", "a1", "a2", "a3", "a4", "a5"]);
  });

  it("the holder refuses the ids the member used in other conversations before it", async () => {
    const alice = await verifiedMember();
    const first = await answered(alice);
    const second = await answered(alice);
    expect((await send(alice.client, first, "one", { client_id: "x-1" })).status).toBe(201);
    expect((await send(alice.client, second, "two", { client_id: "y-1" })).status).toBe(201);
    await quietSinceLastLease(alice);
    // The second conversation now gets the lease, with the ids used elsewhere.
    expect((await send(alice.client, second, "three", { client_id: "y-2" })).status).toBe(201);
    expect((await send(alice.client, second, "four", { client_id: "y-3" })).status).toBe(201);
    expect((await claims(alice)).map(([c]) => c)).toEqual(["x-1", "y-1", "y-2"]);
    expect((await send(alice.client, second, "x again", { client_id: "x-1" })).status).toBe(409);
    const texts = (await page(alice.client, second)).body.messages.map((m) => m.message);
    expect(texts).toEqual(["hello", "two", "three", "four"]);
  });

  it("lets one of two conversations have a client id sent to both at once", async () => {
    const alice = await verifiedMember();
    const first = await answered(alice);
    const second = await answered(alice);
    expect((await send(alice.client, first, "lease", { client_id: "l-0" })).status).toBe(201);
    for (let round = 1; round <= 4; round++) {
      if (round % 2) await quietSinceLastLease(alice);
      const clientId = `both-${round}`;
      const results = await Promise.all(
        [first, second].map((id) => send(alice.client, id, clientId, { client_id: clientId })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      const stored = await Promise.all(
        [first, second].map(async (id) =>
          (await page(alice.client, id)).body.messages.filter((m) => m.client_id === clientId),
        ),
      );
      expect(stored.flat()).toHaveLength(1);
    }
  });
});

describe("a room's leases", () => {
  it("ignores a grant that comes after its lease was taken back", async () => {
    const { ClientIdLeases } = await import("../../durable-objects/conversation/client-ids");
    const leases = new ClientIdLeases();
    leases.take("m", { epoch: 3, elsewhere: ["x"] });
    expect(leases.covers("m", "new")).toBe(true);
    expect(leases.covers("m", "x")).toBe(false);
    expect(leases.covers("other", "new")).toBe(false);
    leases.surrender("m", 3);
    expect(leases.covers("m", "new")).toBe(false);
    // The answer to a claim made before the lease was taken back, arriving after.
    leases.take("m", { epoch: 3, elsewhere: [] });
    expect(leases.covers("m", "new")).toBe(false);
    leases.take("m", { epoch: 4, elsewhere: [] });
    expect(leases.covers("m", "new")).toBe(true);
    leases.take("m", null);
    expect(leases.covers("m", "new")).toBe(false);
  });
});
