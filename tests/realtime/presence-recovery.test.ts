import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { livenessTickMs, presenceConfig } from "~/realtime/presence-shards";
import { presenceShardFor } from "~/server/presence.server";
import type { PresenceRoom } from "../../durable-objects/presence/room";
import {
  inTwoShards,
  joinPresence,
  onlineOf,
  restartHome,
  until,
  watchedAcrossShards,
} from "./presence-helpers";

type RoomMethod = "changes" | "watchRemote";

/**
 * Makes the next `times` calls of a room method fail, in every shard (the class is shared), and
 * returns how many did; `restore` puts the method back.
 */
async function failNext(method: RoomMethod, times: number) {
  // The class the rooms run, as the runtime loaded it.
  const { room } = presenceShardFor(env, "any");
  const proto = await runInDurableObject(
    room,
    (instance: PresenceRoom) => Object.getPrototypeOf(instance) as PresenceRoom,
  );
  const original = proto[method] as (...args: unknown[]) => Promise<unknown>;
  const state = { failed: 0 };
  (proto as unknown as Record<RoomMethod, unknown>)[method] = async function (
    this: PresenceRoom,
    ...args: unknown[]
  ) {
    if (state.failed < times) {
      state.failed += 1;
      throw new Error(`${method} refused (test)`);
    }
    return original.apply(this, args);
  };
  return {
    state,
    restore: () => {
      (proto as unknown as Record<RoomMethod, unknown>)[method] = original;
    },
  };
}

describe("presence between shards that fail", () => {
  it("delivers a join whose relay failed more often than the quick retries", async () => {
    const [watcher, target] = await inTwoShards();
    const w = await joinPresence(watcher.client, [target.id]);
    expect(onlineOf(w).has(target.id)).toBe(false);
    // Every relay call fails five times in a row: three quick tries, then the kept change is
    // sent again after a pause, and again.
    const failing = await failNext("changes", 5);
    try {
      const t = await joinPresence(target.client);
      await until(w, (online) => online.has(target.id), "the join to arrive after failed relays");
      expect(failing.state.failed).toBe(5);
      t.close();
      await until(w, (online) => !online.has(target.id), "the leave to follow");
    } finally {
      failing.restore();
    }
    w.close();
  });

  it("announces a member online once a registration that failed goes through", async () => {
    const [watcher, target] = await inTwoShards();
    const t = await joinPresence(target.client);
    const failing = await failNext("watchRemote", 4);
    try {
      // The registration fails: the `here` cannot name the target, who is online.
      const w = await joinPresence(watcher.client, [target.id]);
      await until(w, (online) => online.has(target.id), "the late answer to announce the target");
      expect(failing.state.failed).toBe(4);
      // And the home relays to the watcher from then on.
      t.close();
      await until(w, (online) => !online.has(target.id), "the leave to be relayed");
      w.close();
    } finally {
      failing.restore();
    }
  });
});

describe("a shard that restarts while nobody reconnects", () => {
  it("lets its members leave soon after, not at its next periodic task", async () => {
    const { target, t, w } = await watchedAcrossShards();
    await restartHome(target.id, t);
    const down = Date.now();

    // Nothing calls the target's home again: its liveness alarm wakes it, and the target leaves
    // a grace period later, not at the shard's next count report (30 s).
    const config = presenceConfig(env);
    await until(w, (online) => !online.has(target.id), "the target to leave", 30_000);
    expect(Date.now() - down).toBeLessThan(livenessTickMs(config) + config.graceMs + 1500);
    w.close();
  });
});
