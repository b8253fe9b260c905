import { describe, expect, it } from "vitest";
import {
  HEARTBEAT_INTERVAL_MS,
  HEARTBEAT_WRITE_AFTER_MS,
  isOnline,
  LAST_SEEN_EVERY_MS,
  LAST_SEEN_REFRESH_MS,
  MAX_PRESENCE_GRACE_MS,
  ONLINE_LAG_MS,
  ONLINE_WINDOW_MS,
  onlineSince,
  PRESENCE_GRACE_MS,
} from "~/lib/online";
import { presenceConfig } from "~/realtime/presence-shards";

/** One definition of "online" (app/lib/online.ts). */

const SECOND = 1000;

describe("the invariant: whoever is online live is online on cards and in search", () => {
  it("the shards' writes, with the grace, fit in the window", () => {
    expect(LAST_SEEN_REFRESH_MS + LAST_SEEN_EVERY_MS + PRESENCE_GRACE_MS).toBeLessThanOrEqual(
      ONLINE_WINDOW_MS,
    );
    expect(LAST_SEEN_REFRESH_MS + LAST_SEEN_EVERY_MS + MAX_PRESENCE_GRACE_MS).toBeLessThanOrEqual(
      ONLINE_WINDOW_MS,
    );
    expect(PRESENCE_GRACE_MS).toBeLessThanOrEqual(MAX_PRESENCE_GRACE_MS);
  });

  it("the heartbeat of a tab without a presence socket fits in the window", () => {
    expect(HEARTBEAT_WRITE_AFTER_MS + HEARTBEAT_INTERVAL_MS).toBeLessThanOrEqual(ONLINE_WINDOW_MS);
  });

  it("a configured grace past the invariant is not taken", () => {
    expect(presenceConfig({ PRESENCE_GRACE_MS: String(MAX_PRESENCE_GRACE_MS) }).graceMs).toBe(
      MAX_PRESENCE_GRACE_MS,
    );
    expect(presenceConfig({ PRESENCE_GRACE_MS: String(MAX_PRESENCE_GRACE_MS + 1) }).graceMs).toBe(
      PRESENCE_GRACE_MS,
    );
    expect(presenceConfig({}).graceMs).toBe(PRESENCE_GRACE_MS);
  });

  it("search's key floor holds: the window is under an hour", () => {
    expect(ONLINE_WINDOW_MS).toBeLessThan(3_600_000);
  });

  /**
   * A member connected from 0 to `leftAt` on a shard whose writes fall every LAST_SEEN_EVERY_MS
   * from `phase` on, each touching the row only when older than LAST_SEEN_REFRESH_MS: writes
   * "now" while the member is connected or in grace, then their leaving time. Checked every
   * second: online on cards from the first write until the grace ends, and offline again within
   * ONLINE_LAG_MS of leaving, never before the grace ends.
   */
  it("holds at every second of a simulated connection, whatever the phase of the writes", () => {
    const leftAt = 20 * 60 * SECOND;
    for (const grace of [0, PRESENCE_GRACE_MS, MAX_PRESENCE_GRACE_MS]) {
      for (let phase = 0; phase < LAST_SEEN_EVERY_MS; phase += 7 * SECOND) {
        let row: number | null = null;
        let firstWrite: number | null = null;
        let offlineAt: number | null = null;
        let departed = false;
        for (let t = 0; t <= leftAt + ONLINE_WINDOW_MS + 2 * LAST_SEEN_EVERY_MS; t += SECOND) {
          if (t >= phase && (t - phase) % LAST_SEEN_EVERY_MS === 0) {
            const present = t <= leftAt + grace;
            const value = present ? t : departed ? null : leftAt;
            if (!present) departed = true;
            if (value !== null && (row === null || row < t - LAST_SEEN_REFRESH_MS)) row = value;
            firstWrite ??= t;
          }
          const shown = isOnline(
            { hideOnline: false, lastSeenAt: row === null ? null : new Date(row).toISOString() },
            t,
          );
          const live = t <= leftAt + grace;
          if (live && firstWrite !== null) expect(shown, `t=${t} phase=${phase}`).toBe(true);
          if (!live && !shown) offlineAt ??= t;
        }
        expect(offlineAt).not.toBeNull();
        const lag = offlineAt! - leftAt;
        expect(lag).toBeGreaterThan(grace);
        expect(lag).toBeGreaterThanOrEqual(ONLINE_LAG_MS.min);
        expect(lag).toBeLessThanOrEqual(ONLINE_WINDOW_MS + grace + SECOND);
      }
    }
  });
});

describe("isOnline and onlineSince", () => {
  const now = Date.parse("2030-05-01T12:00:00.000Z");
  const at = (ms: number) => new Date(ms).toISOString();

  it("a member seen within the window is online unless they hide it", () => {
    expect(isOnline({ hideOnline: false, lastSeenAt: at(now - ONLINE_WINDOW_MS) }, now)).toBe(true);
    expect(isOnline({ hideOnline: false, lastSeenAt: at(now - ONLINE_WINDOW_MS - 1) }, now)).toBe(
      false,
    );
    expect(isOnline({ hideOnline: true, lastSeenAt: at(now) }, now)).toBe(false);
    expect(isOnline({ hideOnline: false, lastSeenAt: null }, now)).toBe(false);
    expect(isOnline({ hideOnline: false, lastSeenAt: "not a time" }, now)).toBe(false);
  });

  it("the search's bound says what the predicate says, compared as the column is", () => {
    const bound = onlineSince(now);
    for (const offset of [-1, 0, 1, 999, -ONLINE_WINDOW_MS, 30_000]) {
      const seen = at(now - ONLINE_WINDOW_MS + offset);
      // SQL: last_seen_at >= onlineSince (ISO text, compared as text).
      expect(seen >= bound, seen).toBe(isOnline({ hideOnline: false, lastSeenAt: seen }, now));
    }
  });

  it("states the lag: cards and search let a member go after presence, within the window and the grace", () => {
    expect(ONLINE_LAG_MS.min).toBeGreaterThanOrEqual(PRESENCE_GRACE_MS);
    expect(ONLINE_LAG_MS.max).toBe(ONLINE_WINDOW_MS + PRESENCE_GRACE_MS);
  });
});
