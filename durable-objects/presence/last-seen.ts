import type { Env } from "~/server/env.server";
import { logFailure } from "~/server/log.server";
import { writeLastSeen } from "~/server/presence.server";

/**
 * last_seen_at of a shard's members, written in one D1 batch every LAST_SEEN_EVERY_MS: now for
 * those with a socket or in grace, their leaving time for those who left since the last write.
 */
export class LastSeen {
  /** Members who left since the last write, and when. */
  private readonly departed = new Map<string, number>();

  constructor(private readonly env: Env) {}

  /** A member left (their grace period ended) at `at`. */
  left(userId: string, at: number) {
    this.departed.set(userId, at);
  }

  /** Whether someone left since the last write (the shard still has work to do). */
  get pending() {
    return this.departed.size > 0;
  }

  /** Writes the batch: `present`, the members with a socket or in grace. */
  async write(present: Iterable<string>): Promise<number> {
    const now = Date.now();
    const nowIso = new Date(now).toISOString();
    const seen = new Map<string, string>();
    for (const [userId, at] of this.departed) seen.set(userId, new Date(at).toISOString());
    for (const userId of present) seen.set(userId, nowIso);
    this.departed.clear();
    try {
      return await writeLastSeen(this.env, [...seen], now);
    } catch (error) {
      logFailure("presence_last_seen_failed", error);
      return 0;
    }
  }
}
