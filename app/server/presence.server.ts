import { eq, sql } from "drizzle-orm";
import { presenceConfig, shardName, shardOf } from "~/realtime/presence-shards";
import { PRESENCE_WATCH_LIMIT } from "~/realtime/presence";
import { HEARTBEAT_WRITE_AFTER_MS, LAST_SEEN_REFRESH_MS } from "~/lib/online";
import { getDb, nowIso, schema } from "./db.server";
import type { Env } from "./env.server";
import { logFailure } from "./log.server";
import { memberHub } from "./member-hub.server";
import type { PresenceStart } from "./room-api.server";
import { blockedEitherWayStatement, isBlockedEitherWay } from "./visibility.server";
import { run, statement } from "./sql.server";

/**
 * Presence: the room's shards (docs/decisions/011), what a socket starts with (blocks and
 * contacts), what the Worker tells the shards when a block or a member's privacy changes, and
 * `last_seen_at`: written in bulk by the shards for the members they hold, and by the heartbeat
 * only for members the shards do not keep fresh.
 */

/** The shard of the presence room that holds a member's sockets. */
export function presenceShardFor(env: Env, memberId: string) {
  const { shards } = presenceConfig(env);
  const shard = shardOf(memberId, shards);
  const room = env.PRESENCE_ROOM.get(env.PRESENCE_ROOM.idFromName(shardName(shard, shards)));
  return { shard, room };
}

/**
 * Reads what a member's presence socket starts with from D1 (contacts: matches and conversation
 * partners, most recent first, at most the watch limit) in one round trip. The member's hub keeps what it read
 * (durable-objects/socket-admission.ts) until one of them changes (`presenceStartChanged`), so a
 * presence socket normally costs D1 nothing.
 */
export async function presenceConnectInfo(env: Env, userId: string): Promise<PresenceStart> {
  const [blocks, contacts, hidden] = await env.DB.batch<{ id: string }>([
    blockedEitherWayStatement(env, userId),
    statement(
      env.DB,
      sql`SELECT id FROM (
         SELECT l.liked_id AS id, max(l.created_at, r.created_at) AS at FROM likes l
           JOIN likes r ON r.liker_id = l.liked_id AND r.liked_id = l.liker_id
           WHERE l.liker_id = ${userId}
         UNION ALL
         SELECT CASE WHEN c.user_low = ${userId} THEN c.user_high ELSE c.user_low END AS id,
                m.last_activity_at AS at
           FROM conversation_members m JOIN conversations c ON c.id = m.conversation_id
           WHERE m.user_id = ${userId}
       ) GROUP BY id ORDER BY max(at) DESC LIMIT ${PRESENCE_WATCH_LIMIT}`,
    ),
    statement(env.DB, sql`SELECT id FROM users WHERE id = ${userId} AND hide_online = 1`),
  ]);
  const ids = (rows: { results: { id: string }[] } | undefined) =>
    (rows?.results ?? []).map((r) => r.id);
  return { blocks: ids(blocks), contacts: ids(contacts), hidden: ids(hidden).length > 0 };
}

/**
 * A member's blocks, contacts or hidden setting changed: their hub reads them again for the next
 * presence socket. Best effort (logged): the open sockets hear of the change from the shards.
 */
export async function presenceStartChanged(env: Env, ...userIds: string[]): Promise<void> {
  await Promise.all(
    userIds.map((userId) =>
      memberHub(env, userId)
        .presenceChanged()
        .catch((error: unknown) =>
          logFailure("presence_start_update_failed", error, { user_id: userId }),
        ),
    ),
  );
}

/**
 * A block between two members was added or removed: each one's open pages stop (or start) seeing
 * the other's presence. What matters is stored in D1 first; a failure here is logged, and the next
 * connection of either member carries the blocks afresh.
 */
export async function presenceBlockChanged(env: Env, a: string, b: string): Promise<void> {
  await presenceStartChanged(env, a, b);
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

/**
 * A member's "hide my online status" setting (docs/api.md "Member card": `online` false when
 * hidden).
 */
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
  await Promise.all([setPresenceHidden(env, userId, hidden), presenceStartChanged(env, userId)]);
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

/** Ids per statement of the bulk write (its JSON stays far below D1's statement size). */
const LAST_SEEN_CHUNK = 1000;

/**
 * Writes last_seen_at for many members in one D1 batch: `[memberId, iso time]` pairs, each row
 * written only when it is older than LAST_SEEN_REFRESH_MS before its time (so the search index
 * triggers run rarely). Returns how many rows changed.
 */
export async function writeLastSeen(
  env: Env,
  seen: [string, string][],
  now = Date.now(),
): Promise<number> {
  if (seen.length === 0) return 0;
  const stale = nowIso(now - LAST_SEEN_REFRESH_MS);
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < seen.length; i += LAST_SEEN_CHUNK) {
    statements.push(
      statement(
        env.DB,
        sql`UPDATE users SET last_seen_at = json_extract(j.value, '$[1]')
         FROM json_each(${JSON.stringify(seen.slice(i, i + LAST_SEEN_CHUNK))}) AS j
         WHERE users.id = json_extract(j.value, '$[0]')
           AND (users.last_seen_at IS NULL OR users.last_seen_at < ${stale})`,
      ),
    );
  }
  const results = await env.DB.batch(statements);
  return results.reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}

/**
 * POST /me/heartbeat: the member is here. One conditional UPDATE by primary key that writes only
 * when last_seen_at is older than HEARTBEAT_WRITE_AFTER_MS (app/lib/online.ts; a burst of tabs
 * costs one write, and a member with a presence socket, kept fresher by their shard, none).
 * Returns whether it wrote.
 */
export async function recordHeartbeat(env: Env, userId: string, now = Date.now()) {
  const result = await run(
    env.DB,
    sql`UPDATE users SET last_seen_at = ${nowIso(now)}
     WHERE id = ${userId} AND (last_seen_at IS NULL OR last_seen_at < ${nowIso(now - HEARTBEAT_WRITE_AFTER_MS)})`,
  );
  return result.meta.changes > 0;
}
