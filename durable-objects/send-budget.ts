import { SENDING_TOO_FAST, type SendCounter } from "~/server/chat-rules.server";
import { conversationRoom } from "~/server/chat-rooms.server";
import type { Env } from "~/server/env.server";
import { slidingWindowGiveBack, slidingWindowHit } from "~/server/rate-limit.server";
import type { RateLimitSpec, Refusal, SendGrant, SendsReturned } from "~/server/room-api.server";

/** The most sends one grant hands a room. */
export const SEND_GRANT_MAX = 16;
/**
 * A grant is at most this share of what is left of the limit (and at least one send): far from
 * the limit a room writes without asking for a while; near it, every send is asked for, so the
 * limit is met exactly.
 */
const GRANT_SHARE_OF_LEFT = 4;

interface Outstanding {
  conversationId: string;
  granted: number;
  windowStart: number;
}

/**
 * A member's send limit (`chat_send_account`), counted in their hub across every conversation
 * (docs/decisions/021). Asking the hub before each message cost a call between two objects per
 * message, so a conversation's room asks for a few sends at once (a grant, counted here when
 * granted), spends them without asking, and gives back what it did not use when it asks again
 * (docs/decisions/048). Before refusing, the hub takes back the unused sends of every grant it
 * handed out: a member is refused only past the limit, wherever they wrote.
 */
export class SendBudget {
  private counter: SendCounter | undefined;
  /** Grants handed out whose unused sends were not given back yet, by grant id. */
  private readonly outstanding = new Map<string, Outstanding>();
  private readonly instance = crypto.randomUUID().slice(0, 8);
  private granted = 0;
  private recalling: Promise<void> | null = null;

  constructor(private readonly env: Env) {}

  /**
   * Up to `want` sends for `memberId` in `conversationId` (at least one), or the refusal past the
   * limit (nothing counted). `returned` is the room's previous grant's unused sends.
   */
  async take(
    limit: RateLimitSpec,
    memberId: string,
    conversationId: string,
    want: number,
    returned: SendsReturned | null,
    now = Date.now(),
  ): Promise<{ grant: SendGrant } | { refusal: Refusal }> {
    if (returned) this.giveBack(limit, returned);
    this.forgetPast(limit, now);
    if (this.left(limit, now) < 1 && this.outstanding.size > 0) {
      await this.recallAll(limit, memberId);
      now = Date.now();
    }
    const left = this.left(limit, now);
    if (left < 1) {
      const { result } = slidingWindowHit(limit, this.counter, now);
      return { refusal: { status: 429, message: SENDING_TOO_FAST, retryAfter: result.retryAfter } };
    }
    const count = Math.max(
      1,
      Math.min(want, SEND_GRANT_MAX, Math.floor(left / GRANT_SHARE_OF_LEFT), left),
    );
    const { next } = slidingWindowHit(limit, this.counter, now, count);
    this.counter = next;
    this.granted += 1;
    const id = `${this.instance}.${this.granted}`;
    this.outstanding.set(id, { conversationId, granted: count, windowStart: next.windowStart });
    return { grant: { id, count, windowStart: next.windowStart } };
  }

  /** Whole sends left of the limit at `now`. */
  private left(limit: RateLimitSpec, now: number): number {
    return slidingWindowHit(limit, this.counter, now, 0).result.remaining;
  }

  private giveBack(limit: RateLimitSpec, returned: SendsReturned) {
    this.outstanding.delete(returned.id);
    this.counter = slidingWindowGiveBack(
      limit,
      this.counter,
      returned.windowStart,
      returned.unused,
    );
  }

  /** Grants of a window the limit no longer counts weigh nothing: not worth taking back. */
  private forgetPast(limit: RateLimitSpec, now: number) {
    const { next } = slidingWindowHit(limit, this.counter, now, 0);
    for (const [id, grant] of this.outstanding) {
      if (grant.windowStart < next.windowStart - limit.windowSeconds) this.outstanding.delete(id);
    }
  }

  /**
   * Asks every room holding a grant for its unused sends (one round at a time). A room that no
   * longer holds the grant (it gave it back meanwhile, or restarted and forgot it) answers null:
   * what it gave back, if anything, came with its own call.
   */
  private async recallAll(limit: RateLimitSpec, memberId: string): Promise<void> {
    this.recalling ??= (async () => {
      const grants = [...this.outstanding];
      // A room that cannot be reached keeps its grant (still counted).
      await Promise.allSettled(
        grants.map(async ([id, grant]) => {
          const unused = await conversationRoom(this.env, grant.conversationId).returnSends(
            memberId,
            id,
          );
          this.outstanding.delete(id);
          if (unused !== null) {
            this.counter = slidingWindowGiveBack(limit, this.counter, grant.windowStart, unused);
          }
        }),
      );
    })().finally(() => {
      this.recalling = null;
    });
    await this.recalling;
  }
}
