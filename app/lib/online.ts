/**
 * What "online" means (docs/domain.md "Presence"), in one place for every reader and writer of it:
 * the presence shards (live, by socket), member cards and the "online now" search filter (both
 * from `users.last_seen_at`), the heartbeat of a tab without a presence socket, and the page.
 *
 * - **Live** (presence): a member is online while a page of theirs holds a presence socket, and for
 *   a grace period after the last one closes (PRESENCE_GRACE_MS, so that a reload does not
 *   flicker), unless they hide it.
 * - **Stored** (cards, search): a member is online when `last_seen_at` is within ONLINE_WINDOW_MS
 *   and they do not hide it (`isOnline`; search's lower bound is `onlineSince`). The presence
 *   shards write `last_seen_at` of their members every LAST_SEEN_EVERY_MS, each row only when it is
 *   older than LAST_SEEN_REFRESH_MS; a tab without a presence socket beats every
 *   HEARTBEAT_INTERVAL_MS and writes when it is older than HEARTBEAT_WRITE_AFTER_MS.
 *
 * The window is chosen so that whoever is online live is online stored too: a member with a
 * socket or in grace has a `last_seen_at` at most LAST_SEEN_REFRESH_MS + LAST_SEEN_EVERY_MS old
 * (PRESENCE_GRACE_MS more if their grace were not written), and a member kept by the heartbeat at
 * most HEARTBEAT_WRITE_AFTER_MS + HEARTBEAT_INTERVAL_MS old; both fit in the window
 * (tests/unit/online.test.ts). The other way, cards and search lag: after a member's last page
 * closes they still show online there for ONLINE_LAG_MS (from `min` to `max`, depending on when
 * their row was last written), while presence shows them gone after the grace.
 *
 * Shared with the browser and the Durable Objects: no imports.
 */

/** Members seen within this window count as online on cards and in search. */
export const ONLINE_WINDOW_MS = 3 * 60_000;

/** How long a member who closed their last presence socket still counts as online (default). */
export const PRESENCE_GRACE_MS = 5_000;

/** How often each presence shard writes last_seen_at of the members it holds (one batch). */
export const LAST_SEEN_EVERY_MS = 60_000;

/** A shard's write touches a member's row only when it is older than this (fewer index writes). */
export const LAST_SEEN_REFRESH_MS = 90_000;

/** The longest grace a deployment may configure (PRESENCE_GRACE_MS var) and keep the invariant. */
export const MAX_PRESENCE_GRACE_MS = ONLINE_WINDOW_MS - LAST_SEEN_REFRESH_MS - LAST_SEEN_EVERY_MS;

/** How often a tab without a presence socket sends POST /me/heartbeat. */
export const HEARTBEAT_INTERVAL_MS = 60_000;

/** The heartbeat writes last_seen_at only when it is older than this (a burst of tabs writes once). */
export const HEARTBEAT_WRITE_AFTER_MS = 100_000;

/**
 * How long after a member's last page closed (or their heartbeat stopped) cards and search still
 * show them online: the window less the oldest their row can be while online, up to the window
 * plus the grace (their row written "now" during the grace).
 */
export const ONLINE_LAG_MS = {
  min: ONLINE_WINDOW_MS - LAST_SEEN_REFRESH_MS - LAST_SEEN_EVERY_MS,
  max: ONLINE_WINDOW_MS + PRESENCE_GRACE_MS,
} as const;

/** Whether a member row shows as online (cards): seen within the window, and not hiding it. */
export function isOnline(
  member: { hideOnline: boolean; lastSeenAt: string | null },
  now = Date.now(),
): boolean {
  if (member.hideOnline || !member.lastSeenAt) return false;
  const seen = Date.parse(member.lastSeenAt);
  return Number.isFinite(seen) && seen >= now - ONLINE_WINDOW_MS;
}

/**
 * The "online now" filter's lower bound on last_seen_at (ISO, as the column holds it): a row seen
 * at or after it, not hiding it, is online at `now`, exactly as `isOnline` says.
 */
export const onlineSince = (now = Date.now()) => new Date(now - ONLINE_WINDOW_MS).toISOString();
