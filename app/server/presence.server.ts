import { eq } from "drizzle-orm";
import { presenceConfig, shardName, shardOf } from "~/realtime/presence-shards";
import { isBlockedEitherWay } from "./blocks.server";
import { getDb, nowIso, schema } from "./db.server";
import type { Env } from "./env.server";

/**
 * Presence: the global room's shards (docs/decisions/004), what the Worker tells them when a block
 * or a member's privacy changes, and the heartbeat that keeps `last_seen_at` fresh.
 */

/** The shard of the presence room that holds a member's sockets. */
export function presenceShardFor(env: Env, memberId: string) {
  const { shards } = presenceConfig(env);
  const shard = shardOf(memberId, shards);
  const room = env.PRESENCE_ROOM.get(env.PRESENCE_ROOM.idFromName(shardName(shard, shards)));
  return { shard, room };
}

function logFailure(event: string, error: unknown) {
  console.error(JSON.stringify({ level: "error", event, error: String(error) }));
}

/**
 * A block between two members was added or removed: each one's open pages stop (or start) seeing
 * the other's presence. What matters is stored in D1 first; a failure here is logged, and the next
 * connection of either member carries the blocks afresh.
 */
export async function presenceBlockChanged(env: Env, a: string, b: string): Promise<void> {
  try {
    const blocked = await isBlockedEitherWay(env, a, b);
    const one = presenceShardFor(env, a);
    const two = presenceShardFor(env, b);
    await Promise.all([
      one.room.blockChanged(one.shard, a, b, blocked),
      two.room.blockChanged(two.shard, b, a, blocked),
    ]);
  } catch (error) {
    logFailure("presence_block_update_failed", error);
  }
}

/** A member's "hide my online status" setting (API.md member card: `online` false when hidden). */
export async function getHideOnline(env: Env, userId: string): Promise<boolean> {
  const row = await getDb(env.DB)
    .select({ hideOnline: schema.users.hideOnline })
    .from(schema.users)
    .where(eq(schema.users.id, userId))
    .get();
  return row?.hideOnline ?? false;
}

/** Stores the setting and applies it at once to the member's open pages in the presence room. */
export async function setHideOnline(env: Env, userId: string, hidden: boolean): Promise<boolean> {
  await getDb(env.DB)
    .update(schema.users)
    .set({ hideOnline: hidden, updatedAt: nowIso() })
    .where(eq(schema.users.id, userId));
  await setPresenceHidden(env, userId, hidden);
  return hidden;
}

/**
 * Shows or hides the member in everyone's presence at once (the setting above, a suspension, an
 * account deletion). Best effort: the room forgets them anyway when their sockets close.
 */
export async function setPresenceHidden(env: Env, userId: string, hidden: boolean) {
  try {
    const { shard, room } = presenceShardFor(env, userId);
    await room.setHidden(shard, userId, hidden);
  } catch (error) {
    logFailure("presence_hidden_update_failed", error);
  }
}

/** last_seen_at is written at most this often per member. */
export const HEARTBEAT_WRITE_EVERY_MS = 60_000;

/**
 * POST /me/heartbeat: the member is here. Writes last_seen_at only when it is older than a minute
 * (one conditional UPDATE, so a burst of tabs costs one write). Returns whether it wrote.
 */
export async function recordHeartbeat(env: Env, userId: string, now = Date.now()) {
  const result = await env.DB.prepare(
    `UPDATE users SET last_seen_at = ?2
     WHERE id = ?1 AND (last_seen_at IS NULL OR last_seen_at < ?3)`,
  )
    .bind(userId, nowIso(now), nowIso(now - HEARTBEAT_WRITE_EVERY_MS))
    .run();
  return result.meta.changes > 0;
}
