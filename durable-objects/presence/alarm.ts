import type { Env } from "~/server/env.server";
import { AlarmSchedule } from "./alarm-schedule";
import type { FanOut } from "./fan-out";
import { LastSeen } from "./last-seen";
import type { ShardParts } from "./parts";
import type { ShardCount } from "./shard-count";
import { chunks, LEAVE_PREFIX, MEMBER_PREFIX } from "./storage";

/**
 * What a shard's alarm does: members whose grace period ended leave, the online count is
 * reported every ONLINE_COUNT_EVERY_MS, last_seen_at is written every LAST_SEEN_EVERY_MS, and the
 * alarm is set again for the next of these (AlarmSchedule).
 */
export class ShardAlarm {
  private readonly schedule: AlarmSchedule;
  private readonly lastSeen: LastSeen;

  constructor(
    private readonly parts: ShardParts,
    env: Env,
    private readonly fanOut: FanOut,
    private readonly count: ShardCount,
  ) {
    this.schedule = new AlarmSchedule(parts.ctx.storage, parts.config);
    this.lastSeen = new LastSeen(env);
  }

  async ring(): Promise<void> {
    const { leaveAt, sockets, local, config, ctx } = this.parts;
    const now = Date.now();
    // The liveness tick (AlarmSchedule): if the instance dies with nobody reconnecting, the alarm
    // wakes the next one soon and its members leave (restore.ts) instead of at the next periodic
    // task.
    this.schedule.rang(now);
    const done: string[] = [];
    for (const [userId, at] of [...leaveAt]) {
      if (at > now) continue;
      leaveAt.delete(userId);
      done.push(LEAVE_PREFIX + userId);
      if (sockets.of(userId).length > 0) continue;
      done.push(MEMBER_PREFIX + userId);
      this.lastSeen.left(userId, at - config.graceMs);
      this.fanOut.left(userId);
      if (local.delete(userId)) this.fanOut.change(userId, false);
    }
    // One storage call for every member whose grace ended.
    for (const keys of chunks(done)) await ctx.storage.delete(keys);
    if (this.schedule.countDue(now)) await this.count.refresh(true);
    if (this.schedule.lastSeenDue(now)) await this.writeLastSeen();
    await this.set(true);
  }

  /** Sets the alarm to the next grace end or periodic task (`always`: from the alarm itself). */
  async set(always = false) {
    const { sockets, local, leaveAt } = this.parts;
    const active = sockets.size > 0 || local.size > 0 || this.lastSeen.pending;
    await this.schedule.schedule(
      leaveAt.values(),
      { active, hasSockets: sockets.size > 0 },
      always,
    );
  }

  /** Writes last_seen_at of this shard's members in one batch (LastSeen). */
  async writeLastSeen(): Promise<number> {
    const { sockets, leaveAt } = this.parts;
    const present = [...sockets.values()].map(({ a }) => a.userId);
    return this.lastSeen.write([...present, ...leaveAt.keys()]);
  }
}
