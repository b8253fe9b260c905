import { DurableObject } from "cloudflare:workers";
import { parsePresenceClientFrame, PONG_FRAME } from "~/realtime/presence";
import { presenceConfig } from "~/realtime/presence-shards";
import type { Env } from "~/server/env.server";
import { loggedAlarm } from "~/server/log.server";
import { count } from "~/server/metrics.server";
import type { Change, PresenceRoomApi } from "~/server/room-api.server";
import { reportFailuresToTracker } from "~/server/error-tracker.server";
import { ShardAlarm } from "./alarm";
import { MemberBlocks } from "./blocks";
import { ShardConnections } from "./connections";
import { FanOut } from "./fan-out";
import { JoinGate, PRESENCE_TRY_AGAIN_CLOSE, tryAgainReason } from "./join-gate";
import { ShardCalls, ShardNumber, type ShardParts } from "./parts";
import { RemoteMembers } from "./remote";
import { restoreShard } from "./restore";
import { ShardCount } from "./shard-count";
import { ShardSockets } from "./sockets";
import { ShardVisibility } from "./visibility";
import { WatchIndex } from "./watch-index";
import { WatchQueue } from "./watching";
import { closeNormally, isUpgrade, notAnUpgrade, refuseSocket } from "../socket-layer";

/**
 * One shard of the presence room (docs/realtime.md "Presence room", docs/decisions/011).
 *
 * Every member has a home shard (a hash of their id) that holds all their sockets, so a member
 * with several tabs joins once and leaves once, when the last tab has been closed for a grace
 * period (a DO alarm), so that a reload does not show them leaving and coming back.
 *
 * Each socket watches a set of members (the page's `watch`, or the member's contacts before one):
 * it hears `here` for that set, then `joining`/`leaving` of those members only. The shard keeps
 * who watches whom for its sockets (WatchIndex); a watched member of another home is registered
 * with that home, which relays that member's changes to the shards that watch them, and only to
 * those (presence/peers.ts). A change goes out at once, to the sockets that watch the member.
 *
 * Hidden members never count as online; a socket never hears of members on either side of a block
 * with its member (the Worker passes the blocks at connect; `blockChanged` keeps them current).
 * Every ONLINE_COUNT_EVERY_MS the shard reports its count to shard 0 and tells its sockets the
 * total when it changed; every LAST_SEEN_EVERY_MS it writes last_seen_at of its members in one D1
 * batch. The keepalive ping is answered without waking the object; what must outlive hibernation
 * (the watch sets, grace periods, blocks and registrations) is in the socket attachments and the
 * object's storage.
 *
 * This class wires the shard's jobs, each a part of this folder (docs/decisions/051):
 * connections.ts (sockets coming and going, grace periods), watching.ts (the watch queue),
 * remote.ts (registrations with other homes), fan-out.ts (changes to sockets and shards),
 * visibility.ts (hiding and blocks), shard-count.ts, alarm.ts and restore.ts (the rebuild after a
 * start), over the shared state of parts.ts.
 */
export class PresenceRoom extends DurableObject<Env> implements PresenceRoomApi {
  private readonly parts: ShardParts;
  private readonly fanOut: FanOut;
  private readonly remote: RemoteMembers;
  private readonly count: ShardCount;
  private readonly watching: WatchQueue;
  private readonly visibility: ShardVisibility;
  private readonly alarms: ShardAlarm;
  private readonly connections: ShardConnections;
  /** How many sockets a second this shard joins (docs/decisions/047); the rest retry later. */
  private readonly gate: JoinGate;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    reportFailuresToTracker(env);
    const config = presenceConfig(env);
    this.parts = {
      ctx,
      config,
      shard: new ShardNumber(ctx.storage, config),
      sockets: new ShardSockets(ctx),
      local: new Set(),
      leaveAt: new Map(),
      watches: new WatchIndex(),
      blocks: new MemberBlocks(ctx.storage),
      calls: new ShardCalls(env, config),
    };
    this.gate = new JoinGate(config.joinsPerSecond);
    this.fanOut = new FanOut(this.parts);
    this.remote = new RemoteMembers(this.parts, this.fanOut);
    this.count = new ShardCount(this.parts);
    this.watching = new WatchQueue(this.parts, this.remote, this.count);
    this.visibility = new ShardVisibility(this.parts, this.fanOut, this.remote);
    this.alarms = new ShardAlarm(this.parts, env, this.fanOut, this.count);
    this.connections = new ShardConnections(
      this.parts,
      this.visibility,
      this.watching,
      this.alarms,
    );
    void this.ctx.blockConcurrencyWhile(() => restoreShard(this.parts, this.fanOut, this.alarms));
  }

  // ------------------------------------------------------------------------------------------
  // Sockets

  override async fetch(request: Request): Promise<Response> {
    if (!isUpgrade(request)) return notAnUpgrade();
    const userId = request.headers.get("X-Member-Id");
    if (!userId) return new Response("Missing member", { status: 400 });
    const hidden = request.headers.get("X-Member-Hidden") === "1";
    const blocks = idList(request.headers.get("X-Member-Blocks"));
    const contacts = idList(request.headers.get("X-Member-Contacts"));
    if (!blocks || !contacts) return new Response("Bad member header", { status: 400 });
    // Past what the shard joins a second (a deploy's wave): told when to come back, at once.
    const retrySeconds = this.gate.admit();
    if (retrySeconds > 0) {
      count(this.env, "presence_turned_away");
      return refuseSocket(PRESENCE_TRY_AGAIN_CLOSE, tryAgainReason(retrySeconds));
    }
    await this.parts.shard.learn(Number(request.headers.get("X-Presence-Shard") ?? 0));
    const requestId = request.headers.get("X-Request-Id") ?? undefined;
    return this.connections.open({ userId, hidden, blocks, contacts, requestId });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const sockets = this.parts.sockets;
    const a = sockets.attachment(ws);
    // A socket the shard closed is not heard, even if its client ignored the close frame.
    if (!a || a.ended || !sockets.has(a.sid)) return;
    // A socket past its frame rate is closed (FRAME_FLOOD_CLOSE) and heard no more.
    if (!sockets.layer.withinRate(ws)) {
      await this.connections.gone(ws);
      return;
    }
    const parsed = parsePresenceClientFrame(typeof message === "string" ? message : "");
    if ("error" in parsed) {
      sockets.send(ws, { type: "error", message: parsed.error });
      return;
    }
    if (parsed.frame.type === "ping") {
      sockets.sendText(ws, PONG_FRAME);
      return;
    }
    this.watching.watch(a.sid, parsed.frame.user_ids, false);
  }

  override async webSocketClose(ws: WebSocket): Promise<void> {
    closeNormally(ws);
    await this.connections.gone(ws);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.webSocketClose(ws);
  }

  // ------------------------------------------------------------------------------------------
  // Grace periods, the online count and last_seen_at

  override async alarm(): Promise<void> {
    await loggedAlarm("presence_alarm_failed", () => this.alarms.ring());
  }

  /** Writes last_seen_at of this shard's members in one batch (LastSeen). */
  async writeLastSeen(): Promise<number> {
    return this.alarms.writeLastSeen();
  }

  // ------------------------------------------------------------------------------------------
  // What other shards tell this one (RPC)

  /**
   * At a home: shard `from` starts watching `add` and stops watching `remove`. Answers the state
   * of each member of `add`; their later changes are relayed to `from`.
   */
  async watchRemote(
    shard: number,
    from: number,
    add: string[],
    remove: string[],
  ): Promise<Change[]> {
    await this.parts.shard.learn(shard);
    return this.fanOut.register(from, add, remove);
  }

  /** At a watching shard: changes of members of shard `from`'s home. */
  async changes(shard: number, from: number, changes: Change[]) {
    await this.parts.shard.learn(shard);
    this.remote.relayed(from, changes);
  }

  /** Shard 0: a shard's count of its own members online; answers the total. */
  async reportCount(shard: number, from: number, count: number): Promise<number> {
    await this.parts.shard.learn(shard);
    return this.count.report(from, count);
  }

  // ------------------------------------------------------------------------------------------
  // What the Worker tells the room (RPC)

  /**
   * A block between two members changed (`blocked` says whether any block between them remains).
   * Called on the shard of each of them; it updates its own member's blocks and tells their open
   * pages that watch the other member that they left (or, once unblocked and online, joined).
   */
  async blockChanged(shard: number, userId: string, otherId: string, blocked: boolean) {
    await this.parts.shard.learn(shard);
    await this.visibility.blockChanged(userId, otherId, blocked);
  }

  /** A member switched "hide my online status" on or off while their pages are open. */
  async setHidden(shard: number, userId: string, hidden: boolean) {
    await this.parts.shard.learn(shard);
    this.visibility.setHidden(userId, hidden);
  }

  /**
   * The member's sessions ended: closes their sockets here. They leave after the grace period,
   * unless a page of theirs that is still signed in reconnects first.
   */
  async closeMember(shard: number, userId: string): Promise<number> {
    await this.parts.shard.learn(shard);
    return this.connections.closeMember(userId);
  }

  /** How many sockets this shard holds (operations and tests). */
  async connectionCount(): Promise<number> {
    return this.parts.sockets.count();
  }
}

/** A JSON list of ids from a header the Worker set (null when it is not one). */
function idList(raw: string | null): string[] | null {
  try {
    const parsed: unknown = JSON.parse(raw ?? "[]");
    if (!Array.isArray(parsed)) return null;
    return parsed.filter((id): id is string => typeof id === "string");
  } catch {
    return null;
  }
}
