/**
 * "N members online": every shard reports how many of its own members are online to shard 0,
 * which adds the latest report of each shard up (docs/decisions/011). Reports come every
 * ONLINE_COUNT_EVERY_MS; one older than three of those is from a shard that has gone quiet.
 */
export const ONLINE_COUNT_EVERY_MS = 30_000;
const STALE_AFTER_MS = 3 * ONLINE_COUNT_EVERY_MS;

export class OnlineCounts {
  private readonly reports = new Map<number, { count: number; at: number }>();

  report(shard: number, count: number, now = Date.now()): number {
    if (count > 0) this.reports.set(shard, { count, at: now });
    else this.reports.delete(shard);
    let total = 0;
    for (const [s, r] of this.reports) {
      if (now - r.at > STALE_AFTER_MS) this.reports.delete(s);
      else total += r.count;
    }
    return total;
  }
}

/**
 * What one shard knows of the total: the last total shard 0 answered, with the count this shard
 * reported for it, and the total last told to its sockets.
 */
export class OnlineTotal {
  private last: { count: number; reportedLocal: number } | null = null;
  private lastSent: number | null = null;

  /** Whether a total was learned since the instance started. */
  get known() {
    return this.last !== null;
  }

  learned(count: number, reportedLocal: number) {
    this.last = { count, reportedLocal };
  }

  /** The members online everywhere: the last total, with this shard's own count as it is now. */
  value(local: number): number {
    const t = this.last ?? { count: 0, reportedLocal: 0 };
    return Math.max(local, t.count - t.reportedLocal + local);
  }

  /** Whether the sockets must hear of `total` (it changed since they last did). */
  changed(total: number): boolean {
    if (total === this.lastSent) return false;
    this.lastSent = total;
    return true;
  }
}
