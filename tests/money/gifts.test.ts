import { describe, expect, it } from "vitest";
import { conversationPair, roomMessages, send } from "../chat/helpers";
import { balanceOf, buyPack, ledgerOf } from "./helpers";

describe("gifts paid with bought credits", () => {
  it("50 concurrent gift sends with credits for exactly 10: 10 pass, 40 get 402, balance 0", async () => {
    const { alice, bob, id } = await conversationPair();
    // Bob has answered, so Alice may send more than the first three messages.
    expect((await send(bob.client, id, "Hi Alice")).status).toBe(201);
    // The Starter pack: 50 credits, ten roses at 5.
    expect((await buyPack(alice.client, "starter")).new_balance).toBe(50);

    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        send(alice.client, id, `rose ${i}`, { gift_id: "rose", client_id: `rose-${i}` }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(40);
    for (const r of results.filter((r) => r.status === 402)) {
      expect(r.body).toEqual({ message: "Not enough credits" });
    }

    const totals = await balanceOf(alice.id);
    expect(totals).toEqual({ balance: 0, lifetime_earned: 50, lifetime_spent: 50 });
    expect(totals.lifetime_earned - totals.lifetime_spent).toBe(totals.balance);
    // The balance is the sum of the ledger; every gift message has its ledger row and no other.
    const ledger = await ledgerOf(alice.id);
    const sum = ledger.reduce((n, t) => n + (t.direction === "in" ? t.amount : -t.amount), 0);
    expect(sum).toBe(0);
    const gifts = { results: (await roomMessages(id)).filter((m) => m.gift !== null) };
    expect(gifts.results).toHaveLength(10);
    expect(
      ledger
        .filter((t) => t.reason === "gift")
        .map((t) => t.reference)
        .sort(),
    ).toEqual(gifts.results.map((g) => g.id).sort());
  });
});
