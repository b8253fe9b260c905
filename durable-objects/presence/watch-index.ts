/**
 * Who watches whom, for the sockets of one presence shard (docs/decisions/011): each socket's
 * watch set, and for each watched member the sockets watching them, so that a change of member X
 * costs one lookup and one frame per socket that watches X.
 */
export class WatchIndex {
  private readonly bySocket = new Map<string, Set<string>>();
  private readonly byMember = new Map<string, Set<string>>();

  /** Replaces a socket's watch set. */
  set(socketId: string, ids: Iterable<string>) {
    const next = new Set(ids);
    const before = this.bySocket.get(socketId) ?? new Set<string>();
    for (const id of before) {
      if (!next.has(id)) this.unlink(id, socketId);
    }
    for (const id of next) {
      if (before.has(id)) continue;
      let watchers = this.byMember.get(id);
      if (!watchers) this.byMember.set(id, (watchers = new Set()));
      watchers.add(socketId);
    }
    if (next.size > 0) this.bySocket.set(socketId, next);
    else this.bySocket.delete(socketId);
  }

  /** Forgets a socket. */
  drop(socketId: string) {
    this.set(socketId, []);
  }

  watchersOf(memberId: string): ReadonlySet<string> {
    return this.byMember.get(memberId) ?? EMPTY;
  }

  watchedBy(socketId: string): ReadonlySet<string> {
    return this.bySocket.get(socketId) ?? EMPTY;
  }

  isWatched(memberId: string): boolean {
    return this.byMember.has(memberId);
  }

  private unlink(memberId: string, socketId: string) {
    const watchers = this.byMember.get(memberId);
    watchers?.delete(socketId);
    if (watchers?.size === 0) this.byMember.delete(memberId);
  }
}

const EMPTY: ReadonlySet<string> = new Set();
