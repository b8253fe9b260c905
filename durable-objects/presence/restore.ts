import type { ShardAlarm } from "./alarm";
import type { FanOut } from "./fan-out";
import type { ShardParts } from "./parts";
import { PEER_PREFIX } from "./peers";
import {
  chunks,
  LEAVE_PREFIX,
  MEMBER_PREFIX,
  WATCH_PREFIX,
  type StoredMember,
  type StoredWatch,
} from "./storage";

/**
 * Rebuilds a shard after a start or a wake from hibernation: its number, its sockets and their
 * watch sets, grace periods, blocks and the shards registered for its members. What other homes
 * said of their members is asked again when a `here` needs it; their relays keep coming meanwhile.
 */
export async function restoreShard(parts: ShardParts, fanOut: FanOut, alarm: ShardAlarm) {
  const { ctx, sockets, watches, local, leaveAt, config } = parts;
  await parts.shard.load();
  const withBlocks = new Set<string>();
  for (const a of sockets.restore()) {
    if (a.watch) watches.set(a.sid, a.watch);
    if (!a.hidden) local.add(a.userId);
    if (a.hasBlocks) withBlocks.add(a.userId);
  }
  // A member stored as having a socket here who has none now, nor a grace period, had their
  // sockets die with the previous instance (a restart, not a hibernation, which keeps sockets):
  // they leave after the grace period, unless they come back first, as after any closed tab.
  const gone = new Set<string>();
  const stale: string[] = [];
  const connected = new Set([...sockets.values()].map(({ a }) => a.userId));
  for (const [key, member] of await ctx.storage.list<StoredMember>({ prefix: MEMBER_PREFIX })) {
    const userId = key.slice(MEMBER_PREFIX.length);
    if (connected.has(userId)) continue;
    if (member.hidden) stale.push(key);
    else gone.add(userId);
  }
  // Watch sets too large for an attachment; one whose socket is gone died with it.
  const stored = await ctx.storage.list<StoredWatch>({ prefix: WATCH_PREFIX });
  for (const [key, watch] of stored) {
    const sid = key.slice(WATCH_PREFIX.length);
    if (sockets.has(sid)) {
      watches.set(sid, watch.ids);
      continue;
    }
    stale.push(key);
    if (!watch.hidden && !connected.has(watch.userId)) gone.add(watch.userId);
  }
  for (const keys of chunks(stale)) await ctx.storage.delete(keys);
  await parts.blocks.load(withBlocks);
  for (const [key, at] of await ctx.storage.list<number>({ prefix: LEAVE_PREFIX })) {
    const userId = key.slice(LEAVE_PREFIX.length);
    leaveAt.set(userId, at);
    local.add(userId);
  }
  fanOut.peers.load(await ctx.storage.list<number[]>({ prefix: PEER_PREFIX }));
  // Noticed at the latest by the liveness tick (half a grace period after the instance died,
  // when nothing else wakes the shard first), they get a whole grace period to reconnect.
  const at = Date.now() + config.graceMs;
  for (const userId of gone) {
    if (local.has(userId)) continue;
    local.add(userId);
    leaveAt.set(userId, at);
    await ctx.storage.put(LEAVE_PREFIX + userId, at);
  }
  if (gone.size > 0) await alarm.set();
}
