import type { Change } from "~/server/room-api.server";
import type { FanOut } from "./fan-out";
import type { ShardParts } from "./parts";
import { PeerLink, RemoteStatuses } from "./peers";

/**
 * What this shard knows of the watched members of other homes (docs/decisions/011, peers.ts): it
 * registers them with their homes (one `PeerLink` a home), which answer their state and relay
 * their later changes here; a relay for a member nobody here watches any more withdraws it.
 */
export class RemoteMembers {
  private readonly remote = new RemoteStatuses();
  private readonly links = new Map<number, PeerLink>();

  constructor(
    private readonly parts: ShardParts,
    private readonly fanOut: FanOut,
  ) {}

  /** Whether a member is online: this shard's own, or as their home said. */
  isOnline(memberId: string): boolean {
    if (!this.parts.shard.isRemote(memberId)) return this.parts.local.has(memberId);
    return this.remote.online(memberId) ?? false;
  }

  /** The members of `ids` of other homes that this shard has no word of. */
  unknown(ids: Iterable<string>): string[] {
    const out: string[] = [];
    for (const id of ids) {
      if (this.parts.shard.isRemote(id) && this.remote.online(id) === undefined) out.push(id);
    }
    return out;
  }

  /** Registers members of other homes with their homes; resolves once they answered. */
  async register(ids: Iterable<string>) {
    const shard = this.parts.shard;
    const byHome = new Map<number, string[]>();
    for (const id of ids) {
      if (!shard.isRemote(id)) continue;
      const home = shard.homeOf(id);
      byHome.set(home, [...(byHome.get(home) ?? []), id]);
    }
    await Promise.all([...byHome].map(([home, list]) => this.link(home).request(list, [])));
  }

  /** Changes of members of shard `from`'s home, relayed here. */
  relayed(from: number, changes: Change[]) {
    const unwatched: string[] = [];
    for (const change of changes) {
      const { id, online } = change;
      if (!this.parts.watches.isWatched(id)) {
        unwatched.push(id);
        continue;
      }
      if (this.remote.apply(change) !== null) this.fanOut.toSockets(id, online);
    }
    // A relay for a member nobody here watches any more: withdraw from that home.
    for (const id of unwatched) this.remote.forget(id);
    if (unwatched.length > 0) void this.link(from).request([], unwatched);
  }

  private link(home: number): PeerLink {
    let link = this.links.get(home);
    if (!link) {
      const { calls, shard } = this.parts;
      link = new PeerLink(
        home,
        (add, remove) =>
          calls.call(home, (room) => room.watchRemote(home, shard.value, add, remove)),
        (states, late) => {
          for (const state of states) {
            // An answer that shows a change this shard missed goes out like a relay; so does a
            // late one (its call failed first) that finds a member online whom the sockets'
            // `here` could not name.
            const applied = this.remote.apply(state);
            if (applied === "changed" || (late && applied === "new" && state.online)) {
              this.fanOut.toSockets(state.id, state.online);
            }
          }
        },
      );
      this.links.set(home, link);
    }
    return link;
  }
}
