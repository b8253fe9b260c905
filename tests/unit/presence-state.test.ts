import { describe, expect, it, vi } from "vitest";
import { Keepalive, ACTIVITY_TIMEOUT_MS, PONG_TIMEOUT_MS } from "~/realtime/client";
import {
  parsePresenceClientFrame,
  parsePresenceServerFrame,
  PRESENCE_ERRORS,
  PRESENCE_WATCH_LIMIT,
} from "~/realtime/presence";
import { fnv1a, shardOf } from "~/realtime/presence-shards";

/** Where the deployed 16 shards put four ids (jump consistent hashing of their FNV-1a). */
const PINNED_16 = [1, 4, 10, 9];
import {
  applyPresenceFrame,
  initialPresenceState,
  isOnlineIn,
  presenceDisconnected,
  presenceError,
  presenceHere,
  presenceJoining,
  presenceLeaving,
  presenceOnlineCount,
  watchUnion,
  type PresenceState,
} from "~/state/presence";

describe("presence transitions (docs/domain.md: Client state)", () => {
  it("starts empty and disconnected", () => {
    expect(initialPresenceState).toEqual({
      users: [],
      connected: false,
      error: null,
      onlineCount: null,
      watched: null,
    });
  });

  it("sets the full list on joining the channel, connected, clearing an earlier error", () => {
    const failed = presenceError(initialPresenceState, "boom");
    const s = presenceHere(failed, ["a", "b", "a"]);
    expect(s).toEqual({
      users: ["a", "b"],
      connected: true,
      error: null,
      onlineCount: null,
      watched: null,
    });
  });

  it("then adds and removes members one by one, once each", () => {
    let s = presenceHere(initialPresenceState, ["a"]);
    s = presenceJoining(s, "b");
    expect(s.users).toEqual(["a", "b"]);
    expect(presenceJoining(s, "b")).toBe(s);
    s = presenceLeaving(s, "a");
    expect(s.users).toEqual(["b"]);
    expect(presenceLeaving(s, "zzz")).toBe(s);
  });

  it("an error sets the error and marks it disconnected, keeping the last list", () => {
    const s = presenceError(presenceHere(initialPresenceState, ["a"]), "Connection lost");
    expect(s).toEqual({
      users: ["a"],
      connected: false,
      error: "Connection lost",
      onlineCount: null,
      watched: null,
    });
  });

  it("a closed socket is disconnected until the next here", () => {
    const s = presenceDisconnected(presenceHere(initialPresenceState, ["a"]));
    expect(s.connected).toBe(false);
    expect(presenceDisconnected(s)).toBe(s);
  });

  it("applies every frame of the room: here sets the list, then one by one", () => {
    const frames = [
      { type: "here", users: ["a", "b"] },
      { type: "joining", user_id: "c" },
      { type: "leaving", user_id: "a" },
      { type: "online_count", count: 42 },
      { type: "pong" },
    ];
    let s: PresenceState = initialPresenceState;
    for (const raw of frames)
      s = applyPresenceFrame(s, parsePresenceServerFrame(JSON.stringify(raw))!);
    expect(s).toEqual({
      users: ["b", "c"],
      connected: true,
      error: null,
      onlineCount: 42,
      watched: null,
    });
    // A new watch set: its `here` replaces the list and says what it answers; the count stays.
    s = applyPresenceFrame(s, { type: "here", users: ["x"] }, ["x", "y"]);
    expect(s).toEqual({
      users: ["x"],
      connected: true,
      error: null,
      onlineCount: 42,
      watched: ["x", "y"],
    });
  });

  it("an error frame sets the error and marks it disconnected", () => {
    const s = applyPresenceFrame(presenceHere(initialPresenceState, ["a"]), {
      type: "error",
      message: PRESENCE_ERRORS.tooMany,
    });
    expect(s).toEqual({
      users: ["a"],
      connected: false,
      error: PRESENCE_ERRORS.tooMany,
      onlineCount: null,
      watched: null,
    });
  });

  it("keeps the same state when the count has not changed", () => {
    const s = presenceOnlineCount(initialPresenceState, 3);
    expect(presenceOnlineCount(s, 3)).toBe(s);
    expect(presenceOnlineCount(s, 4).onlineCount).toBe(4);
  });

  it("reads a member's dot from the room while connected, else from the server's card", () => {
    const s = presenceHere(initialPresenceState, ["a"], ["a", "b"]);
    const online = new Set(s.users);
    const watched = new Set(s.watched);
    expect(isOnlineIn(s, online, watched, "a", false)).toBe(true);
    expect(isOnlineIn(s, online, watched, "b", true)).toBe(false);
    // Not in the answered set (a page whose own `here` is on its way): the server's word.
    expect(isOnlineIn(s, online, watched, "c", true)).toBe(true);
    expect(isOnlineIn(s, online, watched, "c", false)).toBe(false);
    // The contacts' `here` (set unknown): online when either says so.
    const contacts = presenceHere(initialPresenceState, ["a"]);
    expect(isOnlineIn(contacts, online, null, "a", false)).toBe(true);
    expect(isOnlineIn(contacts, online, null, "c", true)).toBe(true);
    expect(isOnlineIn(contacts, online, null, "c", false)).toBe(false);
    const down = presenceDisconnected(s);
    expect(isOnlineIn(down, online, watched, "b", true)).toBe(true);
    expect(isOnlineIn(down, online, watched, "a", false)).toBe(false);
  });
});

describe("presence frames", () => {
  it("refuses frames that are not in the union", () => {
    expect(parsePresenceServerFrame('{"type":"joining"}')).toBeNull();
    expect(parsePresenceServerFrame("not json")).toBeNull();
    expect(parsePresenceServerFrame('{"type":"here","users":"a"}')).toBeNull();
  });

  it("parses watch frames: ids once each, at most the limit, errors for the rest", () => {
    expect(parsePresenceClientFrame('{"type":"watch","user_ids":["a","b","a"]}')).toEqual({
      frame: { type: "watch", user_ids: ["a", "b"] },
    });
    expect(parsePresenceClientFrame('{"type":"ping"}')).toEqual({ frame: { type: "ping" } });
    const ids = Array.from({ length: PRESENCE_WATCH_LIMIT + 1 }, (_, i) => `m${i}`);
    expect(parsePresenceClientFrame(JSON.stringify({ type: "watch", user_ids: ids }))).toEqual({
      error: PRESENCE_ERRORS.tooMany,
    });
    const atLimit = JSON.stringify({ type: "watch", user_ids: ids.slice(1) });
    expect("frame" in parsePresenceClientFrame(atLimit)).toBe(true);
    expect(parsePresenceClientFrame('{"type":"watch","user_ids":"a"}')).toEqual({
      error: PRESENCE_ERRORS.watch,
    });
    expect(parsePresenceClientFrame('{"type":"watch","user_ids":[""]}')).toEqual({
      error: PRESENCE_ERRORS.watch,
    });
    for (const raw of ["nope", "[]", "null", '{"type":"subscribe"}']) {
      expect(parsePresenceClientFrame(raw)).toEqual({ error: PRESENCE_ERRORS.malformed });
    }
  });

  it("makes a page's watch set from its parts: each member once, in order, at most the limit", () => {
    expect(watchUnion([["a", "b"], ["b", "c"], []])).toEqual(["a", "b", "c"]);
    expect(watchUnion([])).toEqual([]);
    const many = Array.from({ length: 400 }, (_, i) => `m${i}`);
    const more = Array.from({ length: 400 }, (_, i) => `n${i}`);
    const union = watchUnion([many, more]);
    expect(union).toHaveLength(PRESENCE_WATCH_LIMIT);
    expect(union.slice(0, 400)).toEqual(many);
    expect(watchUnion([["a", "b", "c"]], 2)).toEqual(["a", "b"]);
  });

  it("puts a member in the same shard every time, spread evenly over all shards", () => {
    // The key is FNV-1a (32-bit); the published test vectors:
    expect(["", "a", "foobar"].map(fnv1a)).toEqual([0x811c9dc5, 0xe40c292c, 0xbf9cf968]);
    // A member's shard names the Durable Object holding their sockets: pinned for the deployed 16.
    expect(["", "a", "foobar", "abc"].map((id) => shardOf(id, 16))).toEqual(PINNED_16);
    expect(shardOf("abc", 1)).toBe(0);
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 16_000; i++) counts[shardOf(`member${i}`, 16)]! += 1;
    // 1,000 each on average; a binomial's spread is about 31.
    for (const n of counts) expect(Math.abs(n - 1000)).toBeLessThan(150);
  });

  it("moves as few members as can be when the shard count changes", () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `m-${i}-${(i * 7919) % 10007}`);
    for (const n of [1, 2, 5, 16, 31, 64]) {
      let moved = 0;
      for (const id of ids) {
        const before = shardOf(id, n);
        const after = shardOf(id, n + 1);
        if (after === before) continue;
        // Only to the new shard: nobody moves between the shards that were there.
        expect(after).toBe(n);
        moved += 1;
      }
      // 1/(n+1) of them, within a few percent of the members.
      expect(Math.abs(moved / ids.length - 1 / (n + 1))).toBeLessThan(0.02);
    }
  });
});

describe("keepalive (docs/domain.md: Limits and constants)", () => {
  it("pings after 120 s without activity and gives up 30 s later", () => {
    vi.useFakeTimers();
    try {
      const ping = vi.fn();
      const dead = vi.fn();
      const k = new Keepalive(ping, dead);
      k.activity();
      vi.advanceTimersByTime(ACTIVITY_TIMEOUT_MS - 1);
      expect(ping).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(ping).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(PONG_TIMEOUT_MS - 1);
      expect(dead).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(dead).toHaveBeenCalledTimes(1);
      k.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it("any frame (the pong included) counts as activity and restarts the wait", () => {
    vi.useFakeTimers();
    try {
      const ping = vi.fn();
      const dead = vi.fn();
      const k = new Keepalive(ping, dead);
      k.activity();
      vi.advanceTimersByTime(ACTIVITY_TIMEOUT_MS + 10_000);
      expect(ping).toHaveBeenCalledTimes(1);
      k.activity(); // the pong
      vi.advanceTimersByTime(PONG_TIMEOUT_MS + 1);
      expect(dead).not.toHaveBeenCalled();
      k.stop();
      vi.advanceTimersByTime(10 * ACTIVITY_TIMEOUT_MS);
      expect(ping).toHaveBeenCalledTimes(1);
      expect(dead).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });
});
