import { shardName, shardOf, type PresenceConfig } from "~/realtime/presence-shards";
import type { Env } from "~/server/env.server";
import type { MemberBlocks } from "./blocks";
import type { ShardSockets } from "./sockets";
import { SHARD_KEY } from "./storage";
import type { WatchIndex } from "./watch-index";

/**
 * The parts of one presence shard that its jobs share (docs/decisions/014, 051), built once by
 * room.ts: the jobs (watching.ts, remote.ts, fan-out.ts, visibility.ts, connections.ts,
 * shard-count.ts, alarm.ts, restore.ts) each take what they need from here.
 */
export interface ShardParts {
  readonly ctx: DurableObjectState;
  readonly config: PresenceConfig;
  readonly shard: ShardNumber;
  /** The open sockets by id, with their attachments. */
  readonly sockets: ShardSockets;
  /** This shard's members who count as online to others (visible; with a socket or in grace). */
  readonly local: Set<string>;
  /** When each member in their grace period leaves (mirrors the `leave:` storage keys). */
  readonly leaveAt: Map<string, number>;
  readonly watches: WatchIndex;
  readonly blocks: MemberBlocks;
  readonly calls: ShardCalls;
}

/** The shard's own number, kept in storage so that an alarm after a restart knows it. */
export class ShardNumber {
  value = 0;
  private known = false;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly config: PresenceConfig,
  ) {}

  /** Reads the stored number (load). */
  async load() {
    const shard = await this.storage.get<number>(SHARD_KEY);
    if (shard === undefined) return;
    this.value = shard;
    this.known = true;
  }

  /** Learns the number a caller addressed this shard by, once. */
  async learn(shard: number) {
    if (this.known) return;
    this.value = Number.isInteger(shard) && shard >= 0 ? shard : 0;
    this.known = true;
    await this.storage.put(SHARD_KEY, this.value);
  }

  /** The home of a member. */
  homeOf(memberId: string): number {
    return shardOf(memberId, this.config.shards);
  }

  /** Whether a member's home is another shard. */
  isRemote(memberId: string): boolean {
    return this.homeOf(memberId) !== this.value;
  }
}

type ShardStub = ReturnType<Env["PRESENCE_ROOM"]["get"]>;

/**
 * Calls to other shards, through the handle kept for each between calls. A handle whose call
 * failed is let go: once that shard has been reset (a deploy, an exception that broke it), the old
 * handle fails every call, so each retry of the caller gets a new one.
 */
export class ShardCalls {
  private readonly stubs = new Map<number, ShardStub>();

  constructor(
    private readonly env: Env,
    private readonly config: PresenceConfig,
  ) {}

  async call<T>(shard: number, fn: (room: ShardStub) => Promise<T>): Promise<T> {
    let peer = this.stubs.get(shard);
    if (!peer) {
      const ns = this.env.PRESENCE_ROOM;
      peer = ns.get(ns.idFromName(shardName(shard, this.config.shards)));
      this.stubs.set(shard, peer);
    }
    try {
      return await fn(peer);
    } catch (error) {
      if (this.stubs.get(shard) === peer) this.stubs.delete(shard);
      throw error;
    }
  }
}
