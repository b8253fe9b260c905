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
