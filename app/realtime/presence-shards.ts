/**
 * How the presence room is spread over Durable Objects (docs/decisions/011): each member belongs
 * to one shard by a hash of their id (their home), and holds all their sockets there. Shared by
 * the Worker (which routes an upgrade), the shards themselves (which tell each other about watched
 * members) and the benchmark.
 */
import { MAX_PRESENCE_GRACE_MS, PRESENCE_GRACE_MS } from "~/lib/online";

export interface PresenceConfig {
  /** How many shards the room has (1 = one room for everyone). */
  shards: number;
  /**
   * How long a member who closed their last tab still counts as online (a reload does not
   * flicker): PRESENCE_GRACE_MS of app/lib/online.ts unless configured, at most
   * MAX_PRESENCE_GRACE_MS (so that whoever presence shows online, cards and search do too).
   */
  graceMs: number;
  /**
   * How many sockets a shard joins a second before it asks the others to come back later
   * (durable-objects/presence/join-gate.ts): what one shard was measured to hold at the join →
   * seen p99 goal (docs/decisions/047, `bench/presence --shards 1`).
   */
  joinsPerSecond: number;
}

export const PRESENCE_DEFAULTS: PresenceConfig = {
  shards: 16,
  graceMs: PRESENCE_GRACE_MS,
  joinsPerSecond: 100,
};

function intOr(value: unknown, fallback: number, min: number, max: number): number {
  const n = typeof value === "number" ? value : Number.parseInt(String(value ?? ""), 10);
  return Number.isFinite(n) && n >= min && n <= max ? Math.floor(n) : fallback;
}

/**
 * Reads the room's configuration from the Worker's vars (PRESENCE_SHARDS, PRESENCE_GRACE_MS,
 * PRESENCE_JOINS_PER_SECOND).
 */
export function presenceConfig(vars: {
  PRESENCE_SHARDS?: unknown;
  PRESENCE_GRACE_MS?: unknown;
  PRESENCE_JOINS_PER_SECOND?: unknown;
}): PresenceConfig {
  return {
    shards: intOr(vars.PRESENCE_SHARDS, PRESENCE_DEFAULTS.shards, 1, 1024),
    graceMs: intOr(vars.PRESENCE_GRACE_MS, PRESENCE_DEFAULTS.graceMs, 0, MAX_PRESENCE_GRACE_MS),
    joinsPerSecond: intOr(
      vars.PRESENCE_JOINS_PER_SECOND,
      PRESENCE_DEFAULTS.joinsPerSecond,
      1,
      100_000,
    ),
  };
}

/**
 * How far ahead a shard that holds sockets keeps its alarm: half a grace period (at least a
 * second), so that the members of an instance that died with nobody reconnecting are noticed that
 * soon and leave a grace period later, not at the shard's next periodic task (30 s).
 */
export function livenessTickMs(config: PresenceConfig): number {
  return Math.max(1000, Math.floor(config.graceMs / 2));
}

/** FNV-1a of a member id (32 bits): the key the shard is chosen from. */
export function fnv1a(memberId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < memberId.length; i++) {
    hash ^= memberId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const MASK_64 = (1n << 64n) - 1n;

/**
 * The shard a member belongs to: jump consistent hashing (Lamping and Veach, 2014) of the FNV-1a
 * of their id. The shards are equally loaded, and changing the count moves as few members as can
 * be: going from n to n + 1 shards moves 1/(n + 1) of them, all to the new shard, and going back
 * moves only the last shard's (docs/decisions/011). A modulo would move almost everyone.
 */
export function shardOf(memberId: string, shards: number): number {
  if (shards <= 1) return 0;
  let key = BigInt(fnv1a(memberId));
  let shard = -1;
  let next = 0;
  while (next < shards) {
    shard = next;
    key = (key * 2862933555777941757n + 1n) & MASK_64;
    next = Math.floor((shard + 1) * (2 ** 31 / (Number(key >> 33n) + 1)));
  }
  return shard;
}

/** The Durable Object name of a shard ("global" when the room is not sharded). Shard 0 also
 * adds up the shards' counts of members online. */
export const shardName = (shard: number, shards: number) =>
  shards <= 1 ? "global" : `global:${shard}`;
