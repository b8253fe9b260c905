import { livenessTickMs, type PresenceConfig } from "~/realtime/presence-shards";
import { LAST_SEEN_EVERY_MS } from "~/lib/online";
import { ONLINE_COUNT_EVERY_MS } from "./online-count";

/**
 * When a shard's alarm rings: the next grace end, the next report of the online count, the next
 * last_seen_at write and, while it holds sockets, the liveness tick (at most half a grace period
 * away, so that if the instance dies with nobody reconnecting, that alarm wakes the next one soon
 * and its members leave instead of at the next periodic task).
 */
export class AlarmSchedule {
  private nextCountAt = 0;
  private nextLastSeenAt = 0;
  private nextAliveAt = 0;
  /** The alarm as set (null: none; undefined: not read since the instance started). */
  private alarmAt: number | null | undefined = undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly config: PresenceConfig,
  ) {}

  /** The alarm rang at `now`: it is spent, and the liveness tick is due again. */
  rang(now: number) {
    this.alarmAt = null;
    if (now >= this.nextAliveAt) this.nextAliveAt = 0;
  }

  /** Whether the online count is due at `now` (it is then set for next time). */
  countDue(now: number): boolean {
    if (now < this.nextCountAt) return false;
    this.nextCountAt = now + ONLINE_COUNT_EVERY_MS;
    return true;
  }

  /** Whether the last_seen_at write is due at `now` (it is then set for next time). */
  lastSeenDue(now: number): boolean {
    if (now < this.nextLastSeenAt) return false;
    this.nextLastSeenAt = now + LAST_SEEN_EVERY_MS;
    return true;
  }

  /**
   * Sets the alarm to the next grace end or periodic task, when that is earlier than the set one
   * (`always` from the alarm handler itself, whose own alarm is spent). `active`: the shard has
   * sockets, members or departures that need the periodic tasks.
   */
  async schedule(
    graceEnds: Iterable<number>,
    shard: { active: boolean; hasSockets: boolean },
    always = false,
  ) {
    let next: number | null = null;
    for (const at of graceEnds) next = next === null ? at : Math.min(next, at);
    if (shard.active) {
      const now = Date.now();
      if (this.nextCountAt === 0) this.nextCountAt = now + ONLINE_COUNT_EVERY_MS;
      if (this.nextLastSeenAt === 0) this.nextLastSeenAt = now + LAST_SEEN_EVERY_MS;
      let tick = Math.min(this.nextCountAt, this.nextLastSeenAt);
      if (shard.hasSockets) {
        if (this.nextAliveAt === 0) this.nextAliveAt = now + livenessTickMs(this.config);
        tick = Math.min(tick, this.nextAliveAt);
      }
      next = next === null ? tick : Math.min(next, tick);
    }
    if (next === null) return;
    // Only this object sets its alarm: after the first read, memory knows it.
    if (this.alarmAt === undefined) this.alarmAt = await this.storage.getAlarm();
    const current = always ? null : this.alarmAt;
    if (current === null || next < current) {
      this.alarmAt = next;
      await this.storage.setAlarm(next);
    }
  }
}
