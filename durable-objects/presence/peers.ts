import { logFailure } from "~/server/log.server";
import type { Change } from "~/server/room-api.server";

/**
 * How presence shards tell each other about watched members (docs/decisions/011).
 *
 * A member's home is the shard that holds their sockets. A shard whose sockets watch a member of
 * another home registers with that home (`PeerLink`), which answers the member's state and from
 * then on relays each of their changes to it (`Relays`), and to no shard that does not watch them
 * (`PeerWatchers`). A shard withdraws when a relay names a member none of its sockets watches.
 * Every change carries a version from its home (`VersionClock`), so relays and answers that cross
 * on the way apply in order (`RemoteStatuses`). Neither a relay nor a registration is given up:
 * a call that still fails after RETRIES quick tries is kept (merged with what comes meanwhile) and
 * tried again after a growing pause, until it goes through.
 */

const RETRIES = 3;
/** The pause before a failed call is tried again: 250 ms, doubling, at most 5 s. */
export const backoffMs = (failures: number) => Math.min(5000, 250 * 2 ** (failures - 1));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `attempt` up to RETRIES times (a Durable Object being reset answers the next try). */
async function withRetries<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= RETRIES) throw error;
      await sleep(20 * i);
    }
  }
}

/**
 * Versions of a home's changes. They start from the clock (µs) when the shard's instance starts,
 * so a version given after a restart or a wake from hibernation is newer than any given before,
 * and a member with no change since then has the start value.
 */
export class VersionClock {
  private last = Date.now() * 1000;
  readonly start = this.last;
  private readonly versions = new Map<string, number>();

  stamp(memberId: string): number {
    this.last = Math.max(this.last + 1, Date.now() * 1000);
    this.versions.set(memberId, this.last);
    return this.last;
  }

  of(memberId: string): number {
    return this.versions.get(memberId) ?? this.start;
  }

  forget(memberId: string) {
    this.versions.delete(memberId);
  }
}

/** What a shard knows of the members of other homes that its sockets watch. */
export class RemoteStatuses {
  private readonly states = new Map<string, { online: boolean; version: number }>();

  /**
   * Applies a member's state if it is newer than what is known. Returns "new" when nothing was
   * known, "changed" when they came or went, and null when it is old news or the same state.
   */
  apply({ id: memberId, online, version }: Change): "new" | "changed" | null {
    const known = this.states.get(memberId);
    if (known && known.version >= version) return null;
    this.states.set(memberId, { online, version });
    if (!known) return "new";
    return known.online === online ? null : "changed";
  }

  /** Whether a member is online (undefined: not known here). */
  online(memberId: string): boolean | undefined {
    return this.states.get(memberId)?.online;
  }

  forget(memberId: string) {
    this.states.delete(memberId);
  }
}

/**
 * This shard's registrations with one other home: one request in flight at a time (so a
 * registration and a withdrawal of the same member arrive in order), the next one carrying every
 * change asked for meanwhile. `request` resolves once a call that includes it has been answered.
 */
export class PeerLink {
  private readonly add = new Set<string>();
  private readonly remove = new Set<string>();
  private tail: Promise<void> = Promise.resolve();
  private next: Promise<void> | null = null;

  constructor(
    private readonly home: number,
    private readonly call: (add: string[], remove: string[]) => Promise<Change[]>,
    /** `late`: the answer of a call that failed first, after the sockets got their `here`. */
    private readonly answered: (states: Change[], late: boolean) => void,
  ) {}

  request(add: Iterable<string>, remove: Iterable<string>): Promise<void> {
    for (const id of add) {
      this.remove.delete(id);
      this.add.add(id);
    }
    for (const id of remove) {
      this.add.delete(id);
      this.remove.add(id);
    }
    if (this.add.size + this.remove.size === 0) return this.next ?? Promise.resolve();
    this.next ??= this.tail = this.tail.then(() => this.send());
    return this.next;
  }

  private async send() {
    this.next = null;
    const add = [...this.add];
    const remove = [...this.remove];
    this.add.clear();
    this.remove.clear();
    if (add.length + remove.length === 0) return;
    try {
      this.answered(await withRetries(() => this.call(add, remove)), false);
    } catch (error) {
      logFailure("presence_watch_remote_failed", error, { home: this.home, ids: add.length });
      // Whoever waits for this call goes on with what is known (the `here` says offline); the
      // call is kept, and its late answer announces whoever turns out to be online.
      void this.retry(add, remove);
    }
  }

  private async retry(add: string[], remove: string[]) {
    for (let failures = 1; ; failures++) {
      await sleep(backoffMs(failures));
      // What was asked meanwhile wins: a later withdrawal of an id drops its registration here.
      const adding = add.filter((id) => !this.remove.has(id));
      const removing = remove.filter((id) => !this.add.has(id));
      if (adding.length + removing.length === 0) return;
      const done = this.tail.then(async () => {
        this.answered(await withRetries(() => this.call(adding, removing)), true);
      });
      this.tail = done.catch(() => undefined);
      try {
        await done;
        return;
      } catch (error) {
        logFailure("presence_watch_remote_failed", error, { home: this.home, ids: adding.length });
      }
    }
  }
}

/**
 * A home's changes on their way to the shards that watch them: sent at once (no window), one call
 * in flight per shard; changes that come while it is under way go in the next call, the latest
 * of each member only. On an idle room every change is its own call; on a busy one the calls grow
 * instead of queueing. A call that fails is sent again (see backoffMs) until it goes through.
 */
export class Relays {
  private readonly pending = new Map<number, Map<string, Change>>();
  private readonly busy = new Set<number>();

  constructor(private readonly call: (shard: number, changes: Change[]) => Promise<void>) {}

  queue(shard: number, change: Change) {
    let changes = this.pending.get(shard);
    if (!changes) this.pending.set(shard, (changes = new Map()));
    changes.set(change.id, change);
    if (!this.busy.has(shard)) void this.pump(shard);
  }

  private async pump(shard: number) {
    this.busy.add(shard);
    let failures = 0;
    try {
      for (;;) {
        const changes = this.pending.get(shard);
        if (!changes || changes.size === 0) return;
        this.pending.delete(shard);
        try {
          await withRetries(() => this.call(shard, [...changes.values()]));
          failures = 0;
        } catch (error) {
          failures += 1;
          logFailure("presence_relay_failed", error, { to: shard, changes: changes.size });
          // Kept for the next call, unless a newer change of the same member came meanwhile.
          let later = this.pending.get(shard);
          if (!later) this.pending.set(shard, (later = new Map()));
          for (const [id, change] of changes) if (!later.has(id)) later.set(id, change);
          await sleep(backoffMs(failures));
        }
      }
    } finally {
      this.busy.delete(shard);
    }
  }
}

export const PEER_PREFIX = "peer:";

/**
 * At a home: which other shards watch each of its members. Kept in storage (`peer:{id}`), since a
 * shard that hibernates must still relay to the shards registered with it.
 */
export class PeerWatchers {
  private readonly shards = new Map<string, Set<number>>();

  load(stored: Map<string, number[]>) {
    for (const [key, list] of stored) {
      this.shards.set(key.slice(PEER_PREFIX.length), new Set(list));
    }
  }

  of(memberId: string): ReadonlySet<number> {
    return this.shards.get(memberId) ?? EMPTY;
  }

  /** Registers and withdraws `from`; returns the storage writes (null: delete the key). */
  update(from: number, add: string[], remove: string[]): Map<string, number[] | null> {
    const writes = new Map<string, number[] | null>();
    for (const id of add) {
      let set = this.shards.get(id);
      if (!set) this.shards.set(id, (set = new Set()));
      if (set.has(from)) continue;
      set.add(from);
      writes.set(PEER_PREFIX + id, [...set]);
    }
    for (const id of remove) {
      const set = this.shards.get(id);
      if (!set?.delete(from)) continue;
      if (set.size === 0) this.shards.delete(id);
      writes.set(PEER_PREFIX + id, set.size > 0 ? [...set] : null);
    }
    return writes;
  }
}

const EMPTY: ReadonlySet<number> = new Set();
