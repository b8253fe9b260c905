import { DurableObject } from "cloudflare:workers";
import {
  parsePresenceClientFrame,
  PONG_FRAME,
  type PresenceServerFrame,
} from "~/realtime/presence";
import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import {
  presenceConfig,
  shardName,
  shardOf,
  type PresenceConfig,
} from "~/realtime/presence-shards";
import type { Env } from "~/server/env.server";
import { log, loggedAlarm, logFailure } from "~/server/log.server";
import type { Change, PresenceRoomApi } from "~/server/room-api.server";
import { AlarmSchedule } from "./alarm-schedule";
import { MemberBlocks } from "./blocks";
import { LastSeen } from "./last-seen";
import { OnlineCounts, OnlineTotal } from "./online-count";
import { PEER_PREFIX, PeerLink, PeerWatchers, Relays, RemoteStatuses, VersionClock } from "./peers";
import { ShardSockets } from "./sockets";
import {
  chunks,
  LEAVE_PREFIX,
  MEMBER_PREFIX,
  SHARD_KEY,
  WATCH_IN_ATTACHMENT,
  WATCH_PREFIX,
  type Attachment,
  type StoredMember,
  type StoredWatch,
} from "./storage";
import { WatchIndex } from "./watch-index";
import { closeNormally, isUpgrade, notAnUpgrade } from "../socket-layer";
import { reportFailuresToTracker } from "~/server/error-tracker.server";

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
 */
export class PresenceRoom extends DurableObject<Env> implements PresenceRoomApi {
  private readonly config: PresenceConfig;
  private shard = 0;
  private shardKnown = false;

  /** The open sockets by id, with their attachments. */
  private readonly sockets: ShardSockets;
  /** This shard's members who count as online to others (visible; with a socket or in grace). */
  private readonly local = new Set<string>();
  /** When each member in their grace period leaves (mirrors the `leave:` storage keys). */
  private readonly leaveAt = new Map<string, number>();
  private readonly lastSeen: LastSeen;
  private readonly blocks: MemberBlocks;
  private readonly watches = new WatchIndex();
  /** Per socket, its watch frames in order (each `here` answers the set it follows). */
  private readonly watchQueue = new Map<string, Promise<void>>();

  private readonly clock = new VersionClock();
  private readonly remote = new RemoteStatuses();
  private readonly peers = new PeerWatchers();
  private readonly links = new Map<number, PeerLink>();
  private readonly relays: Relays;

  /** Shard 0 only: the counts reported by every shard. */
  private readonly counts = new OnlineCounts();
  private readonly total = new OnlineTotal();
  private readonly schedule: AlarmSchedule;
  private readonly peerRooms = new Map<number, DurableObjectStub<PresenceRoom>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    reportFailuresToTracker(env);
    this.config = presenceConfig(env);
    this.sockets = new ShardSockets(ctx);
    this.lastSeen = new LastSeen(env);
    this.blocks = new MemberBlocks(ctx.storage);
    this.schedule = new AlarmSchedule(ctx.storage, this.config);
    this.relays = new Relays((to, changes) =>
      this.call(to, (room) => room.changes(to, this.shard, changes)),
    );
    void this.ctx.blockConcurrencyWhile(() => this.load());
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
    await this.learnShard(Number(request.headers.get("X-Presence-Shard") ?? 0));
    await this.setBlocks(userId, blocks);

    const a: Attachment = {
      sid: crypto.randomUUID(),
      userId,
      hidden,
      hasBlocks: blocks.length > 0,
    };
    const first = this.sockets.of(userId).length === 0 && !this.leaveAt.has(userId);
    const { response } = this.sockets.accept(a);
    log({
      event: "socket_opened",
      level: "info",
      request_id: request.headers.get("X-Request-Id") ?? undefined,
      user_id: userId,
      channel: "presence",
    });
    if (first) {
      await this.ctx.storage.put(MEMBER_PREFIX + userId, { hidden } satisfies StoredMember);
    }
    // Back within the grace period (a reload): nobody saw them leave, nobody sees them join.
    if (this.leaveAt.delete(userId)) await this.ctx.storage.delete(LEAVE_PREFIX + userId);
    this.applyHidden(userId, hidden);
    // The contacts are the watch set until the page sends its own; `here` and the count follow.
    this.queueWatch(a.sid, contacts, true);
    await this.scheduleAlarm();
    return response;
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const a = this.sockets.attachment(ws);
    // A socket the shard closed is not heard, even if its client ignored the close frame.
    if (!a || a.ended || !this.sockets.has(a.sid)) return;
    // A socket past its frame rate is closed (FRAME_FLOOD_CLOSE) and heard no more.
    if (!this.sockets.layer.withinRate(ws)) {
      await this.socketGone(ws);
      return;
    }
    const parsed = parsePresenceClientFrame(typeof message === "string" ? message : "");
    if ("error" in parsed) {
      this.sockets.send(ws, { type: "error", message: parsed.error });
      return;
    }
    if (parsed.frame.type === "ping") {
      this.sockets.sendText(ws, PONG_FRAME);
      return;
    }
    this.queueWatch(a.sid, parsed.frame.user_ids, false);
  }

  override async webSocketClose(ws: WebSocket): Promise<void> {
    closeNormally(ws);
    await this.socketGone(ws);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.webSocketClose(ws);
  }

  private async socketGone(ws: WebSocket) {
    const a = this.sockets.attachment(ws);
    if (!a || !this.sockets.has(a.sid)) return;
    this.sockets.delete(a.sid);
    this.watches.drop(a.sid);
    if (a.watch === undefined) await this.ctx.storage.delete(WATCH_PREFIX + a.sid);
    if (this.sockets.of(a.userId).length > 0) return;
    // Blocks matter only while the member has a socket here; a new one brings them afresh.
    await this.blocks.forget(a.userId, a.hasBlocks);
    const at = Date.now() + this.config.graceMs;
    this.leaveAt.set(a.userId, at);
    await this.ctx.storage.put(LEAVE_PREFIX + a.userId, at);
    await this.scheduleAlarm();
  }

  // ------------------------------------------------------------------------------------------
  // Watch sets

  /** Runs a socket's watch frames one after the other, so each `here` follows its own frame. */
  private queueWatch(sid: string, ids: string[], connecting: boolean) {
    const previous = this.watchQueue.get(sid) ?? Promise.resolve();
    const next = previous
      .then(() => this.applyWatch(sid, ids, connecting))
      .catch((error: unknown) => {
        logFailure("presence_watch_failed", error);
      })
      .finally(() => {
        if (this.watchQueue.get(sid) === next) this.watchQueue.delete(sid);
      });
    this.watchQueue.set(sid, next);
  }

  private async applyWatch(sid: string, ids: string[], connecting: boolean) {
    if (!this.sockets.has(sid)) return;
    this.watches.set(sid, ids);
    const { ws, a } = this.sockets.get(sid)!;
    const fits = JSON.stringify(ids).length <= WATCH_IN_ATTACHMENT;
    const next: Attachment = { ...a, watch: fits ? ids : undefined };
    this.sockets.save(ws, next);
    if (!fits) {
      await this.ctx.storage.put(WATCH_PREFIX + sid, {
        userId: a.userId,
        hidden: a.hidden,
        ids,
      } satisfies StoredWatch);
    } else if (a.watch === undefined && !connecting) {
      // The set was in storage: it is in the attachment now.
      await this.ctx.storage.delete(WATCH_PREFIX + sid);
    }
    // Members of other homes this shard has no word of: registered with their homes, which
    // answer. A registration outlives the last socket here that watches the member; it is
    // withdrawn when the home next relays a change nobody here watches any more (`changes`), so
    // pages that come and go do not cost a registration each.
    await this.registerRemote(
      ids.filter((id) => this.isRemote(id) && this.remote.online(id) === undefined),
    );
    const socket = this.sockets.get(sid);
    if (!socket) return;
    const blocked = this.blocks.of(socket.a.userId);
    const users = [...this.watches.watchedBy(sid)].filter(
      (id) => this.isOnline(id) && !blocked?.has(id),
    );
    this.sockets.send(socket.ws, { type: "here", users });
    if (connecting) {
      await this.refreshCount(false);
      this.sockets.send(socket.ws, {
        type: "online_count",
        count: this.total.value(this.local.size),
      });
    }
  }

  private isRemote(memberId: string) {
    return shardOf(memberId, this.config.shards) !== this.shard;
  }

  private isOnline(memberId: string): boolean {
    if (!this.isRemote(memberId)) return this.local.has(memberId);
    return this.remote.online(memberId) ?? false;
  }

  /** Registers members of other homes with their homes; resolves once they answered. */
  private async registerRemote(ids: Iterable<string>) {
    const byHome = new Map<number, string[]>();
    for (const id of ids) {
      if (!this.isRemote(id)) continue;
      const home = shardOf(id, this.config.shards);
      byHome.set(home, [...(byHome.get(home) ?? []), id]);
    }
    await Promise.all([...byHome].map(([home, list]) => this.link(home).request(list, [])));
  }

  private link(home: number): PeerLink {
    let link = this.links.get(home);
    if (!link) {
      link = new PeerLink(
        home,
        (add, remove) => this.call(home, (room) => room.watchRemote(home, this.shard, add, remove)),
        (states, late) => {
          for (const state of states) {
            // An answer that shows a change this shard missed goes out like a relay; so does a
            // late one (its call failed first) that finds a member online whom the sockets'
            // `here` could not name.
            const applied = this.remote.apply(state);
            if (applied === "changed" || (late && applied === "new" && state.online)) {
              this.fanOut(state.id, state.online);
            }
          }
        },
      );
      this.links.set(home, link);
    }
    return link;
  }

  // ------------------------------------------------------------------------------------------
  // Changes

  /** One of this shard's own members came or went: to the sockets and shards that watch them. */
  private change(userId: string, online: boolean) {
    const version = this.clock.stamp(userId);
    this.fanOut(userId, online);
    for (const shard of this.peers.of(userId))
      this.relays.queue(shard, { id: userId, online, version });
  }

  /** Tells every socket of this shard that watches `memberId`, unless a block is in the way. */
  private fanOut(memberId: string, online: boolean) {
    const watchers = this.watches.watchersOf(memberId);
    if (watchers.size === 0) return;
    const text = JSON.stringify({
      type: online ? "joining" : "leaving",
      user_id: memberId,
    } satisfies PresenceServerFrame);
    for (const sid of watchers) {
      const socket = this.sockets.get(sid);
      if (!socket) continue;
      if (socket.a.hasBlocks && this.blocks.between(socket.a.userId, memberId)) continue;
      this.sockets.sendText(socket.ws, text);
    }
  }

  /** Makes a member (with an open page or in grace) visible or hidden, announcing the change. */
  private applyHidden(userId: string, hidden: boolean) {
    let changed = false;
    for (const ws of this.sockets.of(userId)) {
      const a = this.sockets.attachment(ws)!;
      if (a.hidden === hidden) continue;
      this.sockets.save(ws, { ...a, hidden });
      changed = true;
    }
    // Storage writes of an object apply in order; nothing here needs to wait for this one.
    if (changed)
      void this.ctx.storage.put(MEMBER_PREFIX + userId, { hidden } satisfies StoredMember);
    if (hidden && this.local.delete(userId)) this.change(userId, false);
    if (!hidden && !this.local.has(userId)) {
      this.local.add(userId);
      this.change(userId, true);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Grace periods, the online count and last_seen_at (the alarm)

  override async alarm(): Promise<void> {
    await loggedAlarm("presence_alarm_failed", () => this.ring());
  }

  private async ring(): Promise<void> {
    const now = Date.now();
    // The liveness tick (AlarmSchedule): if the instance dies with nobody reconnecting, the alarm
    // wakes the next one soon and its members leave (load()) instead of at the next periodic task.
    this.schedule.rang(now);
    const done: string[] = [];
    for (const [userId, at] of [...this.leaveAt]) {
      if (at > now) continue;
      this.leaveAt.delete(userId);
      done.push(LEAVE_PREFIX + userId);
      if (this.sockets.of(userId).length > 0) continue;
      done.push(MEMBER_PREFIX + userId);
      this.lastSeen.left(userId, at - this.config.graceMs);
      // Versions matter only to shards that watch the member; the others learn the start value.
      if (this.peers.of(userId).size === 0) this.clock.forget(userId);
      if (this.local.delete(userId)) this.change(userId, false);
    }
    // One storage call for every member whose grace ended.
    for (const keys of chunks(done)) await this.ctx.storage.delete(keys);
    if (this.schedule.countDue(now)) await this.refreshCount(true);
    if (this.schedule.lastSeenDue(now)) await this.writeLastSeen();
    await this.scheduleAlarm(true);
  }

  /** Sets the alarm to the next grace end or periodic task (AlarmSchedule). */
  private async scheduleAlarm(always = false) {
    const active = this.sockets.size > 0 || this.local.size > 0 || this.lastSeen.pending;
    await this.schedule.schedule(
      this.leaveAt.values(),
      { active, hasSockets: this.sockets.size > 0 },
      always,
    );
  }

  /**
   * Reports this shard's count to shard 0 and learns the total (`force`, or when not known yet);
   * with `broadcast`, tells the sockets when the total changed.
   */
  private async refreshCount(broadcast: boolean) {
    if (this.total.known && !broadcast) return;
    const reportedLocal = this.local.size;
    let count: number;
    try {
      count =
        this.shard === 0
          ? this.counts.report(0, reportedLocal)
          : await this.call(0, (room) => room.reportCount(0, this.shard, reportedLocal));
    } catch (error) {
      logFailure("presence_count_failed", error);
      return;
    }
    this.total.learned(count, reportedLocal);
    if (!broadcast) return;
    const total = this.total.value(this.local.size);
    if (this.total.changed(total)) this.sockets.broadcast({ type: "online_count", count: total });
  }

  /** Writes last_seen_at of this shard's members in one batch (LastSeen). */
  async writeLastSeen(): Promise<number> {
    const present = [...this.sockets.values()].map(({ a }) => a.userId);
    return this.lastSeen.write([...present, ...this.leaveAt.keys()]);
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
    await this.learnShard(shard);
    const writes = this.peers.update(from, add, remove);
    const puts: Record<string, number[]> = {};
    const deletes: string[] = [];
    for (const [key, value] of writes) {
      if (value) puts[key] = value;
      else deletes.push(key);
    }
    for (const chunk of chunks(Object.entries(puts))) {
      await this.ctx.storage.put(Object.fromEntries(chunk));
    }
    for (const chunk of chunks(deletes)) await this.ctx.storage.delete(chunk);
    return add.map((id) => ({ id, online: this.local.has(id), version: this.clock.of(id) }));
  }

  /** At a watching shard: changes of members of shard `from`'s home. */
  async changes(shard: number, from: number, changes: Change[]) {
    await this.learnShard(shard);
    const unwatched: string[] = [];
    for (const change of changes) {
      const { id, online } = change;
      if (!this.watches.isWatched(id)) {
        unwatched.push(id);
        continue;
      }
      if (this.remote.apply(change) !== null) this.fanOut(id, online);
    }
    // A relay for a member nobody here watches any more: withdraw from that home.
    for (const id of unwatched) this.remote.forget(id);
    if (unwatched.length > 0) void this.link(from).request([], unwatched);
  }

  /** Shard 0: a shard's count of its own members online; answers the total. */
  async reportCount(shard: number, from: number, count: number): Promise<number> {
    await this.learnShard(shard);
    return this.counts.report(from, count);
  }

  // ------------------------------------------------------------------------------------------
  // What the Worker tells the room (RPC)

  /**
   * A block between two members changed (`blocked` says whether any block between them remains).
   * Called on the shard of each of them; it updates its own member's blocks and tells their open
   * pages that watch the other member that they left (or, once unblocked and online, joined).
   */
  async blockChanged(shard: number, userId: string, otherId: string, blocked: boolean) {
    await this.learnShard(shard);
    const sockets = this.sockets.of(userId);
    if (sockets.length === 0) return;
    const next = new Set(this.blocks.of(userId) ?? []);
    // Nothing to tell when the pair was already on this side of a block (or already not).
    if (next.has(otherId) === blocked) return;
    if (blocked) next.add(otherId);
    else next.delete(otherId);
    await this.setBlocks(userId, [...next]);
    const watching: WebSocket[] = [];
    for (const ws of sockets) {
      const a = { ...this.sockets.attachment(ws)!, hasBlocks: next.size > 0 };
      this.sockets.save(ws, a);
      if (this.watches.watchedBy(a.sid).has(otherId)) watching.push(ws);
    }
    if (watching.length === 0) return;
    if (this.isRemote(otherId) && this.remote.online(otherId) === undefined) {
      await this.registerRemote([otherId]);
    }
    if (!this.isOnline(otherId)) return;
    const frame: PresenceServerFrame = blocked
      ? { type: "leaving", user_id: otherId }
      : { type: "joining", user_id: otherId };
    for (const ws of watching) this.sockets.send(ws, frame);
  }

  /** A member switched "hide my online status" on or off while their pages are open. */
  async setHidden(shard: number, userId: string, hidden: boolean) {
    await this.learnShard(shard);
    if (this.sockets.of(userId).length === 0 && !this.leaveAt.has(userId)) return;
    this.applyHidden(userId, hidden);
  }

  /**
   * The member's sessions ended: closes their sockets here. They leave after the grace period,
   * unless a page of theirs that is still signed in reconnects first.
   */
  async closeMember(shard: number, userId: string): Promise<number> {
    await this.learnShard(shard);
    const sockets = this.sockets.of(userId);
    for (const ws of sockets) {
      this.sockets.layer.close([ws], SESSION_ENDED_CLOSE, "Signed out.");
      await this.socketGone(ws);
    }
    return sockets.length;
  }

  /** How many sockets this shard holds (operations and tests). */
  async connectionCount(): Promise<number> {
    return this.sockets.count();
  }

  // ------------------------------------------------------------------------------------------
  // State

  /**
   * Rebuilds the shard after a start or a wake from hibernation: its sockets and their watch
   * sets, grace periods, blocks and the shards registered for its members. What other homes said
   * of their members is asked again when a `here` needs it; their relays keep coming meanwhile.
   */
  private async load() {
    const shard = await this.ctx.storage.get<number>(SHARD_KEY);
    if (shard !== undefined) {
      this.shard = shard;
      this.shardKnown = true;
    }
    const withBlocks = new Set<string>();
    for (const a of this.sockets.restore()) {
      if (a.watch) this.watches.set(a.sid, a.watch);
      if (!a.hidden) this.local.add(a.userId);
      if (a.hasBlocks) withBlocks.add(a.userId);
    }
    // A member stored as having a socket here who has none now, nor a grace period, had their
    // sockets die with the previous instance (a restart, not a hibernation, which keeps sockets):
    // they leave after the grace period, unless they come back first, as after any closed tab.
    const gone = new Set<string>();
    const stale: string[] = [];
    const connected = new Set([...this.sockets.values()].map(({ a }) => a.userId));
    for (const [key, member] of await this.ctx.storage.list<StoredMember>({
      prefix: MEMBER_PREFIX,
    })) {
      const userId = key.slice(MEMBER_PREFIX.length);
      if (connected.has(userId)) continue;
      if (member.hidden) stale.push(key);
      else gone.add(userId);
    }
    // Watch sets too large for an attachment; one whose socket is gone died with it.
    const stored = await this.ctx.storage.list<StoredWatch>({ prefix: WATCH_PREFIX });
    for (const [key, watch] of stored) {
      const sid = key.slice(WATCH_PREFIX.length);
      if (this.sockets.has(sid)) {
        this.watches.set(sid, watch.ids);
        continue;
      }
      stale.push(key);
      if (!watch.hidden && !connected.has(watch.userId)) gone.add(watch.userId);
    }
    for (const keys of chunks(stale)) await this.ctx.storage.delete(keys);
    await this.blocks.load(withBlocks);
    for (const [key, at] of await this.ctx.storage.list<number>({ prefix: LEAVE_PREFIX })) {
      const userId = key.slice(LEAVE_PREFIX.length);
      this.leaveAt.set(userId, at);
      this.local.add(userId);
    }
    this.peers.load(await this.ctx.storage.list<number[]>({ prefix: PEER_PREFIX }));
    // Noticed at the latest by the liveness tick (half a grace period after the instance died,
    // when nothing else wakes the shard first), they get a whole grace period to reconnect.
    const at = Date.now() + this.config.graceMs;
    for (const userId of gone) {
      if (this.local.has(userId)) continue;
      this.local.add(userId);
      this.leaveAt.set(userId, at);
      await this.ctx.storage.put(LEAVE_PREFIX + userId, at);
    }
    if (gone.size > 0) await this.scheduleAlarm();
  }

  /** The shard's own number, kept in storage so that an alarm after a restart knows it. */
  private async learnShard(shard: number) {
    if (this.shardKnown) return;
    this.shard = Number.isInteger(shard) && shard >= 0 ? shard : 0;
    this.shardKnown = true;
    await this.ctx.storage.put(SHARD_KEY, this.shard);
  }

  /** A connected member's blocks (MemberBlocks). */
  private async setBlocks(userId: string, blocks: string[]) {
    const stored = this.sockets.of(userId).some((s) => this.sockets.attachment(s)!.hasBlocks);
    await this.blocks.set(userId, blocks, stored);
  }

  /**
   * Calls another shard through the handle kept for it between calls. A handle whose call failed
   * is let go: once that shard has been reset (a deploy, an exception that broke it), the old
   * handle fails every call, so each retry of the caller gets a new one.
   */
  private async call<T>(shard: number, fn: (room: DurableObjectStub<PresenceRoom>) => Promise<T>) {
    let peer = this.peerRooms.get(shard);
    if (!peer) {
      const ns = this.env.PRESENCE_ROOM;
      peer = ns.get(ns.idFromName(shardName(shard, this.config.shards)));
      this.peerRooms.set(shard, peer);
    }
    try {
      return await fn(peer);
    } catch (error) {
      if (this.peerRooms.get(shard) === peer) this.peerRooms.delete(shard);
      throw error;
    }
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
