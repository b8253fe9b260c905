import { describe, expect, it } from "vitest";
import { SEND_GRANT_LIFE_MS, SendLeases } from "../../durable-objects/conversation/send-leases";
import type { Refusal, SendGrant, SendsReturned } from "~/server/room-api.server";

/**
 * A conversation room's grants of sends from the members' hubs (docs/decisions/048): the hub is
 * asked once per grant, not once per message, and gets back what was not used.
 */

interface Question {
  want: number;
  returned: SendsReturned | null;
}

/** A hub that grants what it is asked for, up to `budget` in all, and notes each question. */
function hub(budget = Infinity) {
  const questions: Question[] = [];
  let left = budget;
  let n = 0;
  const ask = async (
    want: number,
    returned: SendsReturned | null,
  ): Promise<{ grant: SendGrant } | { refusal: Refusal }> => {
    questions.push({ want, returned });
    left += returned?.unused ?? 0;
    await Promise.resolve();
    if (left < 1) return { refusal: { status: 429, message: "slow down", retryAfter: 9 } };
    const count = Math.min(want, left);
    left -= count;
    n += 1;
    return { grant: { id: `g${n}`, count, windowStart: 0 } };
  };
  return { ask, questions, left: () => left };
}

describe("a room's grants of sends", () => {
  it("asks its hub five times for thirty quick messages, each grant twice the one spent", async () => {
    const leases = new SendLeases();
    const h = hub();
    let t = 1_000;
    for (let i = 0; i < 30; i += 1) {
      expect(await leases.spend("alice", h.ask, () => t)).toBeNull();
      t += 10;
    }
    expect(h.questions.map((q) => q.want)).toEqual([1, 2, 4, 8, 16]);
    // Each question gave back the last grant, spent to the end.
    expect(h.questions.slice(1).map((q) => q.returned?.unused)).toEqual([0, 0, 0, 0]);
  });

  it("asks for one at a time for a member who writes now and then, and gives back a stale grant's rest", async () => {
    const leases = new SendLeases();
    const h = hub();
    let t = 1_000;
    for (let i = 0; i < 5; i += 1) {
      expect(await leases.spend("alice", h.ask, () => t)).toBeNull();
      t += 10;
    }
    // 1 + 2 + 4 granted, 5 spent: 2 left when she pauses past the grant's life.
    t += SEND_GRANT_LIFE_MS;
    expect(await leases.spend("alice", h.ask, () => t)).toBeNull();
    expect(h.questions.at(-1)).toEqual({
      want: 1,
      returned: { id: "g3", unused: 2, windowStart: 0 },
    });
    expect(h.left()).toBe(Infinity);
  });

  it("asks once for sends that arrive together, which spend the one grant", async () => {
    const leases = new SendLeases();
    const h = hub();
    // A first grant spent within its life makes the next question ask for two.
    expect(await leases.spend("alice", h.ask, () => 0)).toBeNull();
    const together = await Promise.all([
      leases.spend("alice", h.ask, () => 1),
      leases.spend("alice", h.ask, () => 1),
    ]);
    expect(together).toEqual([null, null]);
    expect(h.questions).toHaveLength(2);
  });

  it("answers the hub's refusal, and spends nothing past the member's budget", async () => {
    const leases = new SendLeases();
    const h = hub(3);
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await leases.spend("alice", h.ask, () => i));
    expect(answers.slice(0, 3)).toEqual([null, null, null]);
    expect(answers.slice(3)).toEqual([
      { status: 429, message: "slow down", retryAfter: 9 },
      { status: 429, message: "slow down", retryAfter: 9 },
    ]);
  });

  it("gives a grant back to its hub once: its unused sends, then null", async () => {
    const leases = new SendLeases();
    const h = hub();
    for (let i = 0; i < 2; i += 1) await leases.spend("alice", h.ask, () => i);
    // 1 + 2 granted, 2 spent.
    expect(leases.giveBack("alice", "g1")).toBeNull();
    expect(leases.giveBack("alice", "g2")).toBe(1);
    expect(leases.giveBack("alice", "g2")).toBeNull();
    // The next send asks again, with nothing to give back.
    await leases.spend("alice", h.ask, () => 3);
    expect(h.questions.at(-1)).toEqual({ want: 1, returned: null });
  });

  it("keeps each sender's grant apart", async () => {
    const leases = new SendLeases();
    const h = hub();
    await leases.spend("alice", h.ask, () => 0);
    await leases.spend("bob", h.ask, () => 0);
    expect(h.questions).toHaveLength(2);
    expect(leases.giveBack("bob", "g1")).toBeNull();
    expect(leases.giveBack("bob", "g2")).toBe(0);
  });
});
