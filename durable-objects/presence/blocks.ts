import { BLOCKS_PREFIX } from "./storage";

/**
 * The blocks of the members connected to a shard: in memory for fan-out, and in storage (only
 * when there are some) for after a restart. Stored blocks exist only while the member has a
 * socket here; a new socket brings them afresh.
 */
export class MemberBlocks {
  private readonly cache = new Map<string, Set<string>>();

  constructor(private readonly storage: DurableObjectStorage) {}

  /** The members `userId` is on either side of a block with (none: undefined or empty). */
  of(userId: string): ReadonlySet<string> | undefined {
    return this.cache.get(userId);
  }

  /** Whether a block is in the way between `userId` and `otherId`. */
  between(userId: string, otherId: string): boolean {
    return this.cache.get(userId)?.has(otherId) ?? false;
  }

  /**
   * Sets a member's blocks; `storedBefore` says whether their sockets' attachments say some are
   * stored (then an empty list deletes them).
   */
  async set(userId: string, blocks: string[], storedBefore: boolean) {
    const had = this.cache.get(userId);
    const stored = (had !== undefined && had.size > 0) || storedBefore;
    if (blocks.length > 0) this.cache.set(userId, new Set(blocks));
    else this.cache.delete(userId);
    if (blocks.length > 0) await this.storage.put(BLOCKS_PREFIX + userId, blocks);
    else if (stored) await this.storage.delete(BLOCKS_PREFIX + userId);
  }

  /** The member's last socket here closed. */
  async forget(userId: string, stored: boolean) {
    const had = this.cache.get(userId);
    this.cache.delete(userId);
    if (stored || (had !== undefined && had.size > 0)) {
      await this.storage.delete(BLOCKS_PREFIX + userId);
    }
  }

  /** Reads the stored blocks of members whose sockets say they have some (after a restart). */
  async load(userIds: Iterable<string>) {
    for (const id of userIds) {
      const blocks = await this.storage.get<string[]>(BLOCKS_PREFIX + id);
      this.cache.set(id, new Set(blocks ?? []));
    }
  }
}
