/**
 * How the presence room is spread over Durable Objects (docs/decisions/011): each member belongs
 * to one shard by a hash of their id (their home), and holds all their sockets there. Shared by
 * the Worker (which routes an upgrade), the shards themselves (which tell each other about watched
 * members) and the benchmark.
 */
export interface PresenceConfig {
  /** How many shards the room has (1 = one room for everyone). */
  shards: number;
  /** How long a member who closed their last tab still counts as online (a reload does not flicker). */
  graceMs: number;
}

export const PRESENCE_DEFAULTS: PresenceConfig = { shards: 16, graceMs: 5000 };

function intOr(value: unknown, fallback: number, min: number, max: number): number {
  const n = typeof value === "number" ? value : Number.parseInt(String(value ?? ""), 10);
  return Number.isFinite(n) && n >= min && n <= max ? Math.floor(n) : fallback;
}

/** Reads the room's configuration from the Worker's vars (PRESENCE_SHARDS, PRESENCE_GRACE_MS). */
export function presenceConfig(vars: {
  PRESENCE_SHARDS?: unknown;
  PRESENCE_GRACE_MS?: unknown;
}): PresenceConfig {
  return {
    shards: intOr(vars.PRESENCE_SHARDS, PRESENCE_DEFAULTS.shards, 1, 1024),
    graceMs: intOr(vars.PRESENCE_GRACE_MS, PRESENCE_DEFAULTS.graceMs, 0, 300_000),
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

/** The shard a member belongs to: FNV-1a of the id, modulo the shard count. */
export function shardOf(memberId: string, shards: number): number {
  if (shards <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < memberId.length; i++) {
    hash ^= memberId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** The Durable Object name of a shard ("global" when the room is not sharded). Shard 0 also
 * adds up the shards' counts of members online. */
export const shardName = (shard: number, shards: number) =>
  shards <= 1 ? "global" : `global:${shard}`;
