import { logFailure } from "~/server/log.server";
import { OnlineCounts, OnlineTotal } from "./online-count";
import type { ShardParts } from "./parts";

/**
 * "N members online" at one shard (online-count.ts): it reports its count to shard 0 and learns
 * the total; shard 0 adds up the reports of every shard.
 */
export class ShardCount {
  /** Shard 0 only: the counts reported by every shard. */
  private readonly counts = new OnlineCounts();
  private readonly total = new OnlineTotal();

  constructor(private readonly parts: ShardParts) {}

  /** The members online everywhere, with this shard's own count as it is now. */
  value(): number {
    return this.total.value(this.parts.local.size);
  }

  /** Shard 0: a shard's count of its own members online; answers the total. */
  report(from: number, count: number): number {
    return this.counts.report(from, count);
  }

  /**
   * Reports this shard's count to shard 0 and learns the total (`broadcast`, or when not known
   * yet); with `broadcast`, tells the sockets when the total changed.
   */
  async refresh(broadcast: boolean) {
    if (this.total.known && !broadcast) return;
    const { shard, local, calls } = this.parts;
    const reportedLocal = local.size;
    let count: number;
    try {
      count =
        shard.value === 0
          ? this.counts.report(0, reportedLocal)
          : await calls.call(0, (room) => room.reportCount(0, shard.value, reportedLocal));
    } catch (error) {
      logFailure("presence_count_failed", error);
      return;
    }
    this.total.learned(count, reportedLocal);
    if (!broadcast) return;
    const total = this.value();
    if (this.total.changed(total)) {
      this.parts.sockets.broadcast({ type: "online_count", count: total });
    }
  }
}
