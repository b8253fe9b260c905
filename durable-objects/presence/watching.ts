import { logFailure } from "~/server/log.server";
import type { ShardParts } from "./parts";
import type { RemoteMembers } from "./remote";
import type { ShardCount } from "./shard-count";
import { WATCH_IN_ATTACHMENT, WATCH_PREFIX, type Attachment, type StoredWatch } from "./storage";

/**
 * Each socket's watch set (docs/decisions/011): the page's `watch` frames, or the member's
 * contacts before one, applied one after the other per socket so that each `here` answers the set
 * it follows. A set is kept in the socket's attachment when it fits, else in storage.
 */
export class WatchQueue {
  /** Per socket, its watch frames in order. */
  private readonly queue = new Map<string, Promise<void>>();

  constructor(
    private readonly parts: ShardParts,
    private readonly remote: RemoteMembers,
    private readonly count: ShardCount,
  ) {}

  /** Queues a socket's watch set (`connecting`: the first, which `online_count` follows). */
  watch(sid: string, ids: string[], connecting: boolean) {
    const previous = this.queue.get(sid) ?? Promise.resolve();
    const next = previous
      .then(() => this.apply(sid, ids, connecting))
      .catch((error: unknown) => {
        logFailure("presence_watch_failed", error);
      })
      .finally(() => {
        if (this.queue.get(sid) === next) this.queue.delete(sid);
      });
    this.queue.set(sid, next);
  }

  private async apply(sid: string, ids: string[], connecting: boolean) {
    const { sockets, watches, ctx, blocks } = this.parts;
    if (!sockets.has(sid)) return;
    watches.set(sid, ids);
    const { ws, a } = sockets.get(sid)!;
    const fits = JSON.stringify(ids).length <= WATCH_IN_ATTACHMENT;
    const next: Attachment = { ...a, watch: fits ? ids : undefined };
    sockets.save(ws, next);
    if (!fits) {
      await ctx.storage.put(WATCH_PREFIX + sid, {
        userId: a.userId,
        hidden: a.hidden,
        ids,
      } satisfies StoredWatch);
    } else if (a.watch === undefined && !connecting) {
      // The set was in storage: it is in the attachment now.
      await ctx.storage.delete(WATCH_PREFIX + sid);
    }
    // Members of other homes this shard has no word of: registered with their homes, which
    // answer. A registration outlives the last socket here that watches the member; it is
    // withdrawn when the home next relays a change nobody here watches any more (`relayed`), so
    // pages that come and go do not cost a registration each.
    await this.remote.register(this.remote.unknown(ids));
    const socket = sockets.get(sid);
    if (!socket) return;
    const blocked = blocks.of(socket.a.userId);
    const users = [...watches.watchedBy(sid)].filter(
      (id) => this.remote.isOnline(id) && !blocked?.has(id),
    );
    sockets.send(socket.ws, { type: "here", users });
    if (connecting) {
      await this.count.refresh(false);
      sockets.send(socket.ws, { type: "online_count", count: this.count.value() });
    }
  }
}
