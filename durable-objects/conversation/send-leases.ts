import type { Refusal, SendGrant, SendsReturned } from "~/server/room-api.server";

/** A grant is spent within this long of its granting, or given back. */
export const SEND_GRANT_LIFE_MS = 5_000;
/** The most sends asked for at once (the hub may grant fewer). */
const SEND_WANT_MAX = 16;

interface Held extends SendGrant {
  left: number;
  grantedAt: number;
}

type Ask = (
  want: number,
  returned: SendsReturned | null,
) => Promise<{ grant: SendGrant } | { refusal: Refusal }>;

/**
 * The sends each member's hub granted this room (durable-objects/send-budget.ts,
 * docs/decisions/048). A send spends one without asking the hub; when none is left, or the grant
 * is older than SEND_GRANT_LIFE_MS, the room asks for more and gives the unused ones back in the
 * same call. A member who writes quickly is granted more at a time (twice the last grant they
 * spent within its life); one who writes now and then asks for one each time, so that unused
 * sends never sit here. Kept in memory only: a room that restarts forgets its grants, whose sends
 * then count until the limit's window slides past them.
 */
export class SendLeases {
  private readonly held = new Map<string, Held>();
  private readonly asking = new Map<string, Promise<unknown>>();

  /** Spends one of `senderId`'s sends: null, or the hub's refusal (nothing spent). */
  async spend(senderId: string, ask: Ask, now = Date.now): Promise<Refusal | null> {
    for (;;) {
      const held = this.held.get(senderId);
      if (held && held.left > 0 && now() - held.grantedAt < SEND_GRANT_LIFE_MS) {
        held.left -= 1;
        return null;
      }
      const pending = this.asking.get(senderId);
      if (!pending) return this.askFor(senderId, held, ask, now);
      // One question to the hub at a time per sender: the others spend what it brings.
      await pending.catch(() => undefined);
    }
  }

  /** The hub takes grant `grantId` back: its unused sends, or null when this room no longer has it. */
  giveBack(senderId: string, grantId: string): number | null {
    const held = this.held.get(senderId);
    if (held?.id !== grantId) return null;
    this.held.delete(senderId);
    return held.left;
  }

  /** The conversation was erased (its grants are given back with the hub's next recall). */
  forget() {
    this.held.clear();
  }

  private async askFor(
    senderId: string,
    held: Held | undefined,
    ask: Ask,
    now: () => number,
  ): Promise<Refusal | null> {
    const spentInTime =
      held !== undefined && held.left === 0 && now() - held.grantedAt < SEND_GRANT_LIFE_MS;
    const want = spentInTime ? Math.min(SEND_WANT_MAX, held.count * 2) : 1;
    const returned = held
      ? { id: held.id, unused: held.left, windowStart: held.windowStart }
      : null;
    // Given back with this call: a recall meanwhile finds nothing here.
    this.held.delete(senderId);
    const question = ask(want, returned);
    this.asking.set(senderId, question);
    try {
      const answer = await question;
      if ("refusal" in answer) return answer.refusal;
      const { grant } = answer;
      this.held.set(senderId, { ...grant, left: grant.count - 1, grantedAt: now() });
      return null;
    } finally {
      this.asking.delete(senderId);
    }
  }
}
