/**
 * Who watches whom, for the sockets of one presence shard (docs/decisions/011): each socket's
 * watch set, and for each watched member the sockets watching them, so that a change of member X
 * costs one lookup and one frame per socket that watches X.
 */
export class WatchIndex {
  private readonly bySocket = new Map<string, Set<string>>();
  private readonly byMember = new Map<string, Set<string>>();

  /**
   * Replaces a socket's watch set. Returns the members this shard starts watching (no socket of
   * it watched them before) and those it stops watching (no socket watches them any more).
   */
  set(socketId: string, ids: Iterable<string>): { added: string[]; removed: string[] } {
    const next = new Set(ids);
    const before = this.bySocket.get(socketId) ?? new Set<string>();
    const added: string[] = [];
    const removed: string[] = [];
    for (const id of before) {
      if (next.has(id)) continue;
      if (this.unlink(id, socketId)) removed.push(id);
    }
    for (const id of next) {
      if (before.has(id)) continue;
      let watchers = this.byMember.get(id);
      if (!watchers) {
        watchers = new Set();
        this.byMember.set(id, watchers);
        added.push(id);
      }
      watchers.add(socketId);
    }
    if (next.size > 0) this.bySocket.set(socketId, next);
    else this.bySocket.delete(socketId);
    return { added, removed };
  }

  /** Forgets a socket; returns the members no socket of this shard watches any more. */
  drop(socketId: string): string[] {
    return this.set(socketId, []).removed;
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

  /** Every member some socket of this shard watches. */
  watched(): IterableIterator<string> {
    return this.byMember.keys();
  }

  private unlink(memberId: string, socketId: string): boolean {
    const watchers = this.byMember.get(memberId);
    if (!watchers) return false;
    watchers.delete(socketId);
    if (watchers.size > 0) return false;
    this.byMember.delete(memberId);
    return true;
  }
}

const EMPTY: ReadonlySet<string> = new Set();
