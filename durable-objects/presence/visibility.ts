import type { PresenceServerFrame } from "~/realtime/presence";
import type { FanOut } from "./fan-out";
import type { ShardParts } from "./parts";
import type { RemoteMembers } from "./remote";
import { MEMBER_PREFIX, type StoredMember } from "./storage";

/**
 * Who may see a member of this shard online: hidden members never count as online, and a socket
 * never hears of members on either side of a block with its member (docs/decisions/011). The
 * Worker passes the hidden setting and the blocks at connect; `setHidden` and `blockChanged`
 * keep them current.
 */
export class ShardVisibility {
  constructor(
    private readonly parts: ShardParts,
    private readonly fanOut: FanOut,
    private readonly remote: RemoteMembers,
  ) {}

  /** Makes a member (with an open page or in grace) visible or hidden, announcing the change. */
  applyHidden(userId: string, hidden: boolean) {
    const { sockets, local, ctx } = this.parts;
    let changed = false;
    for (const ws of sockets.of(userId)) {
      const a = sockets.attachment(ws)!;
      if (a.hidden === hidden) continue;
      sockets.save(ws, { ...a, hidden });
      changed = true;
    }
    // Storage writes of an object apply in order; nothing here needs to wait for this one.
    if (changed) void ctx.storage.put(MEMBER_PREFIX + userId, { hidden } satisfies StoredMember);
    if (hidden && local.delete(userId)) this.fanOut.change(userId, false);
    if (!hidden && !local.has(userId)) {
      local.add(userId);
      this.fanOut.change(userId, true);
    }
  }

  /** A member switched "hide my online status" on or off while their pages are open. */
  setHidden(userId: string, hidden: boolean) {
    if (this.parts.sockets.of(userId).length === 0 && !this.parts.leaveAt.has(userId)) return;
    this.applyHidden(userId, hidden);
  }

  /** A connected member's blocks (MemberBlocks). */
  async setBlocks(userId: string, blocks: string[]) {
    const { sockets } = this.parts;
    const stored = sockets.of(userId).some((s) => sockets.attachment(s)!.hasBlocks);
    await this.parts.blocks.set(userId, blocks, stored);
  }

  /**
   * A block between `userId` (of this shard) and `otherId` changed (`blocked`: whether any block
   * between them remains): the member's blocks are updated, and their open pages that watch the
   * other member hear that they left (or, once unblocked and online, joined).
   */
  async blockChanged(userId: string, otherId: string, blocked: boolean) {
    const { sockets, watches } = this.parts;
    const open = sockets.of(userId);
    if (open.length === 0) return;
    const next = new Set(this.parts.blocks.of(userId) ?? []);
    // Nothing to tell when the pair was already on this side of a block (or already not).
    if (next.has(otherId) === blocked) return;
    if (blocked) next.add(otherId);
    else next.delete(otherId);
    await this.setBlocks(userId, [...next]);
    const watching: WebSocket[] = [];
    for (const ws of open) {
      const a = { ...sockets.attachment(ws)!, hasBlocks: next.size > 0 };
      sockets.save(ws, a);
      if (watches.watchedBy(a.sid).has(otherId)) watching.push(ws);
    }
    if (watching.length === 0) return;
    const unknown = this.remote.unknown([otherId]);
    if (unknown.length > 0) await this.remote.register(unknown);
    if (!this.remote.isOnline(otherId)) return;
    const frame: PresenceServerFrame = blocked
      ? { type: "leaving", user_id: otherId }
      : { type: "joining", user_id: otherId };
    for (const ws of watching) sockets.send(ws, frame);
  }
}
