import type { PresenceServerFrame } from "~/realtime/presence";
import type { Change } from "~/server/room-api.server";
import type { ShardParts } from "./parts";
import { PeerWatchers, Relays, VersionClock } from "./peers";
import { chunks } from "./storage";

/**
 * How a change of a member reaches those who watch them (docs/decisions/011): the sockets of this
 * shard that watch them, at once, and the shards registered with this home for them (relayed,
 * with a version from this home's clock). At a home, it also keeps which shards watch each of
 * its members (`register`).
 */
export class FanOut {
  private readonly clock = new VersionClock();
  readonly peers = new PeerWatchers();
  private readonly relays: Relays;

  constructor(private readonly parts: ShardParts) {
    this.relays = new Relays((to, changes) =>
      parts.calls.call(to, (room) => room.changes(to, parts.shard.value, changes)),
    );
  }

  /** One of this shard's own members came or went: to the sockets and shards that watch them. */
  change(userId: string, online: boolean) {
    const version = this.clock.stamp(userId);
    this.toSockets(userId, online);
    for (const shard of this.peers.of(userId)) {
      this.relays.queue(shard, { id: userId, online, version });
    }
  }

  /** Tells every socket of this shard that watches `memberId`, unless a block is in the way. */
  toSockets(memberId: string, online: boolean) {
    const { watches, sockets, blocks } = this.parts;
    const watchers = watches.watchersOf(memberId);
    if (watchers.size === 0) return;
    const text = JSON.stringify({
      type: online ? "joining" : "leaving",
      user_id: memberId,
    } satisfies PresenceServerFrame);
    for (const sid of watchers) {
      const socket = sockets.get(sid);
      if (!socket) continue;
      if (socket.a.hasBlocks && blocks.between(socket.a.userId, memberId)) continue;
      sockets.sendText(socket.ws, text);
    }
  }

  /** A member left for good: versions matter only to shards that watch them. */
  left(userId: string) {
    // The others learn the start value.
    if (this.peers.of(userId).size === 0) this.clock.forget(userId);
  }

  /**
   * At a home: shard `from` starts watching `add` and stops watching `remove` (kept in storage).
   * Answers the state of each member of `add`; their later changes are relayed to `from`.
   */
  async register(from: number, add: string[], remove: string[]): Promise<Change[]> {
    const writes = this.peers.update(from, add, remove);
    const puts: Record<string, number[]> = {};
    const deletes: string[] = [];
    for (const [key, value] of writes) {
      if (value) puts[key] = value;
      else deletes.push(key);
    }
    const storage = this.parts.ctx.storage;
    for (const chunk of chunks(Object.entries(puts))) {
      await storage.put(Object.fromEntries(chunk));
    }
    for (const chunk of chunks(deletes)) await storage.delete(chunk);
    const local = this.parts.local;
    return add.map((id) => ({ id, online: local.has(id), version: this.clock.of(id) }));
  }
}
