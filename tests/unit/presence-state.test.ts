import { describe, expect, it, vi } from "vitest";
import { Keepalive, ACTIVITY_TIMEOUT_MS, PONG_TIMEOUT_MS } from "~/realtime/client";
import { presenceChangeFrame, parsePresenceServerFrame } from "~/realtime/presence";
import { shardOf } from "~/realtime/presence-shards";
import {
  applyPresenceFrame,
  initialPresenceState,
  isOnlineIn,
  presenceDisconnected,
  presenceError,
  presenceHere,
  presenceJoining,
  presenceLeaving,
  type PresenceState,
} from "~/state/presence";

describe("SPEC.md §4 presence transitions", () => {
  it("starts empty and disconnected", () => {
    expect(initialPresenceState).toEqual({ users: [], connected: false, error: null });
  });

  it("sets the full list on joining the channel, connected, clearing an earlier error", () => {
    const failed = presenceError(initialPresenceState, "boom");
    const s = presenceHere(failed, ["a", "b", "a"]);
    expect(s).toEqual({ users: ["a", "b"], connected: true, error: null });
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
    expect(s).toEqual({ users: ["a"], connected: false, error: "Connection lost" });
  });

  it("a closed socket is disconnected until the next here", () => {
    const s = presenceDisconnected(presenceHere(initialPresenceState, ["a"]));
    expect(s.connected).toBe(false);
    expect(presenceDisconnected(s)).toBe(s);
  });

  it("applies every frame of the room, a batch as its joins then its leaves", () => {
    const frames = [
      { type: "here", users: ["a", "b"] },
      { type: "joining", user_id: "c" },
      { type: "leaving", user_id: "a" },
      { type: "presence", joining: ["d", "e"], leaving: ["b"] },
      { type: "pong" },
    ];
    let s: PresenceState = initialPresenceState;
    for (const raw of frames)
      s = applyPresenceFrame(s, parsePresenceServerFrame(JSON.stringify(raw))!);
    expect(new Set(s.users)).toEqual(new Set(["c", "d", "e"]));
    expect(s.connected).toBe(true);
  });

  it("applies a large batch in one pass with the same result", () => {
    const start = presenceHere(initialPresenceState, ["keep", "gone"]);
    const joining = Array.from({ length: 50 }, (_, i) => `m${i}`);
    const s = applyPresenceFrame(start, { type: "presence", joining, leaving: ["gone"] });
    expect(new Set(s.users)).toEqual(new Set(["keep", ...joining]));
  });

  it("reads a member's dot from the room while connected, else from the server's card", () => {
    const s = presenceHere(initialPresenceState, ["a"]);
    const online = new Set(s.users);
    expect(isOnlineIn(s, online, "a", false)).toBe(true);
    expect(isOnlineIn(s, online, "b", true)).toBe(false);
    const down = presenceDisconnected(s);
    expect(isOnlineIn(down, online, "b", true)).toBe(true);
    expect(isOnlineIn(down, online, "a", false)).toBe(false);
  });
});

describe("presence frames", () => {
  it("refuses frames that are not in the union", () => {
    expect(parsePresenceServerFrame('{"type":"joining"}')).toBeNull();
    expect(parsePresenceServerFrame("not json")).toBeNull();
    expect(parsePresenceServerFrame('{"type":"here","users":"a"}')).toBeNull();
  });

  it("announces one change as joining/leaving and several as one batch", () => {
    expect(presenceChangeFrame(["a"], [])).toEqual({ type: "joining", user_id: "a" });
    expect(presenceChangeFrame([], ["a"])).toEqual({ type: "leaving", user_id: "a" });
    expect(presenceChangeFrame(["a"], ["b"])).toEqual({
      type: "presence",
      joining: ["a"],
      leaving: ["b"],
    });
    expect(presenceChangeFrame([], [])).toBeNull();
  });

  it("puts a member in the same shard every time, spread over all shards", () => {
    expect(shardOf("abc", 16)).toBe(shardOf("abc", 16));
    expect(shardOf("abc", 1)).toBe(0);
    const used = new Set(Array.from({ length: 500 }, (_, i) => shardOf(`member${i}`, 16)));
    expect(used.size).toBe(16);
  });
});

describe("SPEC.md §9 keepalive", () => {
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
