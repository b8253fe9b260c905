import { DurableObject } from "cloudflare:workers";
import {
  PING_FRAME,
  PONG_FRAME,
  presenceChangeFrame,
  type PresenceServerFrame,
} from "~/realtime/presence";
import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import { presenceConfig, shardName, type PresenceConfig } from "~/realtime/presence-shards";
import type { Env } from "~/server/env.server";

/** What each socket carries through hibernation. */
interface Attachment {
  userId: string;
  hidden: boolean;
  /** Whether the member has blocks (kept in storage under `blocks:{id}`). */
  hasBlocks: boolean;
}

/** A shard's own changes since its previous relay, as the other shards receive them. */
export interface RelayBatch {
  from: number;
  /** Changes on every start of the shard's instance: a receiver then reloads that shard. */
  epoch: string;
  /** 1, 2, 3… per epoch: a receiver that sees a gap reloads that shard. */
  version: number;
  joining: string[];
  leaving: string[];
}

/** What a shard answers when another shard (re)loads its members. */
export interface ShardSnapshot {
  epoch: string;
  version: number;
  members: string[];
}

interface RemoteShard {
  loaded: boolean;
  epoch: string;
  version: number;
  members: Set<string>;
  /** Relays that arrived while the shard was loading, applied after its snapshot. */
  queued: RelayBatch[];
  loading: Promise<void> | null;
}

const LEAVE_PREFIX = "leave:";
const BLOCKS_PREFIX = "blocks:";
const SHARD_KEY = "shard";
/** Relays waiting for a snapshot are bounded; past this the snapshot is simply retaken. */
const MAX_QUEUED_RELAYS = 200;

/**
 * One shard of the global presence room (API.md "Realtime", docs/decisions/004).
 *
 * Every member belongs to one shard (a hash of their id) and holds all their sockets there, so a
 * member with several tabs joins once and leaves once, when the last tab has been closed for a
 * grace period (a DO alarm), so that a reload does not show them leaving and coming back.
 *
 * Each shard knows its own online members and keeps a copy of every other shard's, updated by
 * relays: when its own members come or go it tells the other shards in one batch per fan-out
 * window, and it sends its sockets one frame per window with every change it learnt (its own and
 * the relayed ones). A socket's frames leave out members who hide their online status and members
 * on either side of a block with the socket's member; the Worker passes a member's blocks when the
 * socket connects and `blockChanged` keeps them current.
 *
 * With one shard and a window of 0 this is the plain single room: every change goes to every
 * socket at once. The keepalive ping is answered without waking the object.
 */
export class PresenceRoom extends DurableObject<Env> {
  private readonly config: PresenceConfig;
  private readonly epoch = crypto.randomUUID();
  private shard: number | null = null;
  private version = 0;

  /** This shard's members who count as online to others (visible; with a socket or in grace). */
  private local: Set<string> | null = null;
  /** When each member in their grace period leaves (mirrors the `leave:` storage keys). */
  private leaveAt = new Map<string, number>();
  /** The alarm this instance set (null: none, or not known after a restart). */
  private alarmAt: number | null = null;
  private remote = new Map<number, RemoteShard>();
  private blockCache = new Map<string, Set<string>>();

  /** Changes (member id → online) to send this shard's sockets at the next flush. */
  private fanout = new Map<string, boolean>();
  /** This shard's own changes to relay to the other shards at the next flush. */
  private outbox = new Map<string, boolean>();
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private lastFlush = 0;
  /** This shard's own changes not yet relayed, and whether a relay is in flight. */
  private unrelayed = new Map<string, boolean>();
  private relaying = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = presenceConfig(env);
    this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_FRAME, PONG_FRAME));
  }

  // ------------------------------------------------------------------------------------------
  // Sockets

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade") !== "websocket") {
      return new Response("Expected a websocket upgrade", { status: 426 });
    }
    const userId = request.headers.get("X-Member-Id");
    if (!userId) return new Response("Missing member", { status: 400 });
    const hidden = request.headers.get("X-Member-Hidden") === "1";
    let blocks: string[] = [];
    try {
      const parsed: unknown = JSON.parse(request.headers.get("X-Member-Blocks") ?? "[]");
      if (Array.isArray(parsed)) blocks = parsed.filter((b): b is string => typeof b === "string");
    } catch {
      return new Response("Bad blocks header", { status: 400 });
    }
    await this.learnShard(Number(request.headers.get("X-Presence-Shard") ?? 0));
    await this.ensureLocal();
    await this.setBlocks(userId, blocks);
    await this.ensureRemote();

    // From here to `here` nothing awaits, so no frame reaches the socket before it.
    const pair = new WebSocketPair();
    const socket = pair[1];
    this.ctx.acceptWebSocket(socket, [userId]);
    socket.serializeAttachment({
      userId,
      hidden,
      hasBlocks: blocks.length > 0,
    } satisfies Attachment);
    // Back within the grace period (a reload): nobody saw them leave, nobody sees them join.
    const returning = this.leaveAt.delete(userId);
    this.applyHidden(userId, hidden);
    this.send(socket, { type: "here", users: this.visibleTo(userId) });
    if (returning) await this.ctx.storage.delete(LEAVE_PREFIX + userId);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  override async webSocketMessage(): Promise<void> {
    // Clients only ping, which the auto-response answers; anything else is ignored.
  }

  override async webSocketClose(socket: WebSocket): Promise<void> {
    // Never echo 1005/1006 back (it throws): close normally.
    try {
      socket.close(1000, "closing");
    } catch {
      // Already closed.
    }
    await this.socketGone(socket);
  }

  override async webSocketError(socket: WebSocket): Promise<void> {
    await this.webSocketClose(socket);
  }

  private async socketGone(socket: WebSocket) {
    const a = socket.deserializeAttachment() as Attachment | null;
    if (!a) return;
    await this.ensureLocal();
    if (this.socketsOf(a.userId, socket).length > 0) return;
    // Blocks matter only while the member has a socket here; a new one brings them afresh.
    await this.forgetBlocks(a.userId, a.hasBlocks);
    if (this.local!.has(a.userId)) {
      const at = Date.now() + this.config.graceMs;
      this.leaveAt.set(a.userId, at);
      await this.ctx.storage.put(LEAVE_PREFIX + a.userId, at);
      await this.scheduleAlarm();
    }
  }

  /** The open sockets of a member, without one that is closing. */
  private socketsOf(userId: string, except?: WebSocket): WebSocket[] {
    return this.ctx.getWebSockets(userId).filter((s) => {
      if (s === except) return false;
      return s.readyState === WebSocket.OPEN || s.readyState === WebSocket.CONNECTING;
    });
  }

  /** Ends the grace periods that are over: those members leave. */
  override async alarm(): Promise<void> {
    await this.ensureLocal();
    const now = Date.now();
    for (const [userId, at] of [...this.leaveAt]) {
      if (at > now) continue;
      this.leaveAt.delete(userId);
      await this.ctx.storage.delete(LEAVE_PREFIX + userId);
      if (this.socketsOf(userId).length > 0) continue;
      if (this.local!.delete(userId)) this.change(userId, false);
    }
    this.alarmAt = null;
    await this.scheduleAlarm();
  }

  /** Sets the alarm to the first grace period to end (a write only when that time moves). */
  private async scheduleAlarm() {
    let next: number | null = null;
    for (const at of this.leaveAt.values()) next = next === null ? at : Math.min(next, at);
    if (next === this.alarmAt) return;
    if (next === null) await this.ctx.storage.deleteAlarm();
    else if (this.alarmAt === null || next < this.alarmAt) await this.ctx.storage.setAlarm(next);
    else return; // An earlier alarm is set: it reschedules when it runs.
    this.alarmAt = next;
  }

  // ------------------------------------------------------------------------------------------
  // What the Worker tells the room (RPC)

  /**
   * A block between two members changed (`blocked` says whether any block between them remains).
   * Called on the shard of each of them; it updates its own member's blocks and tells their open
   * pages the other member left (or, once unblocked and online, joined).
   */
  async blockChanged(shard: number, userId: string, otherId: string, blocked: boolean) {
    await this.learnShard(shard);
    await this.ensureLocal();
    const sockets = this.socketsOf(userId);
    if (sockets.length === 0) return;
    const next = new Set(this.blockCache.get(userId) ?? []);
    // Nothing to tell when the pair was already on this side of a block (or already not).
    if (next.has(otherId) === blocked) return;
    if (blocked) next.add(otherId);
    else next.delete(otherId);
    await this.setBlocks(userId, [...next]);
    for (const socket of sockets) {
      const a = socket.deserializeAttachment() as Attachment;
      socket.serializeAttachment({ ...a, hasBlocks: next.size > 0 } satisfies Attachment);
    }
    await this.ensureRemote();
    const online = this.isOnline(otherId);
    if (!online) return;
    const frame: PresenceServerFrame = blocked
      ? { type: "leaving", user_id: otherId }
      : { type: "joining", user_id: otherId };
    for (const socket of sockets) this.send(socket, frame);
  }

  /** A member switched "hide my online status" on or off while their pages are open. */
  async setHidden(shard: number, userId: string, hidden: boolean) {
    await this.learnShard(shard);
    await this.ensureLocal();
    if (this.socketsOf(userId).length === 0 && !this.leaveAt.has(userId)) return;
    this.applyHidden(userId, hidden);
  }

  /**
   * The member's sessions ended: closes their sockets here. They leave after the grace period,
   * unless a page of theirs that is still signed in reconnects first.
   */
  async closeMember(shard: number, userId: string): Promise<number> {
    await this.learnShard(shard);
    const sockets = this.socketsOf(userId);
    for (const socket of sockets) {
      try {
        socket.close(SESSION_ENDED_CLOSE, "Signed out.");
      } catch {
        // Already closed.
      }
    }
    if (sockets[0]) await this.socketGone(sockets[0]);
    return sockets.length;
  }

  /** Another shard's own changes since its previous relay. */
  async relay(shard: number, batch: RelayBatch) {
    await this.learnShard(shard);
    const state = this.remoteState(batch.from);
    if (!state.loaded) {
      // Loading: keep it for after the snapshot. Without sockets nothing is loaded or kept.
      if (state.loading) {
        if (state.queued.length < MAX_QUEUED_RELAYS) state.queued.push(batch);
      } else if (this.ctx.getWebSockets().length > 0) {
        if (state.queued.length < MAX_QUEUED_RELAYS) state.queued.push(batch);
        void this.loadShard(batch.from);
      }
      return;
    }
    if (batch.epoch !== state.epoch || batch.version > state.version + 1) {
      // That shard restarted, or a relay went missing: take its members afresh.
      state.loaded = false;
      state.queued = [batch];
      void this.loadShard(batch.from);
      return;
    }
    if (batch.version <= state.version) return;
    this.applyRemote(state, batch);
  }

  /** This shard's online members, for another shard that (re)loads them. */
  async snapshot(shard: number): Promise<ShardSnapshot> {
    await this.learnShard(shard);
    await this.ensureLocal();
    return { epoch: this.epoch, version: this.version, members: [...this.local!] };
  }

  /** How many sockets this shard holds (operations and tests). */
  async connectionCount(): Promise<number> {
    return this.ctx.getWebSockets().length;
  }

  // ------------------------------------------------------------------------------------------
  // State

  /** The shard's own number, kept in storage so that an alarm after a restart knows it. */
  private async learnShard(shard: number) {
    if (this.shard !== null) return;
    const stored = await this.ctx.storage.get<number>(SHARD_KEY);
    if (stored !== undefined) {
      this.shard = stored;
      return;
    }
    this.shard = Number.isInteger(shard) && shard >= 0 ? shard : 0;
    await this.ctx.storage.put(SHARD_KEY, this.shard);
  }

  /** Rebuilds the shard's own members after a restart: visible sockets and grace periods. */
  private async ensureLocal() {
    if (this.local) return;
    if (this.shard === null) await this.learnShard(0);
    const local = new Set<string>();
    const withBlocks = new Set<string>();
    for (const socket of this.ctx.getWebSockets()) {
      const a = socket.deserializeAttachment() as Attachment | null;
      if (a && !a.hidden) local.add(a.userId);
      if (a?.hasBlocks && !this.blockCache.has(a.userId)) withBlocks.add(a.userId);
    }
    // Fan-out reads blocks from memory only: load the connected members' blocks once.
    if (withBlocks.size > 0) {
      const stored = await this.ctx.storage.get<string[]>(
        [...withBlocks].map((id) => BLOCKS_PREFIX + id),
      );
      for (const id of withBlocks) {
        if (!this.blockCache.has(id))
          this.blockCache.set(id, new Set(stored.get(BLOCKS_PREFIX + id) ?? []));
      }
    }
    const leaves = await this.ctx.storage.list<number>({ prefix: LEAVE_PREFIX });
    for (const [key, at] of leaves) {
      const userId = key.slice(LEAVE_PREFIX.length);
      this.leaveAt.set(userId, at);
      local.add(userId);
    }
    this.local ??= local;
  }

  private remoteState(shard: number): RemoteShard {
    let state = this.remote.get(shard);
    if (!state) {
      state = {
        loaded: false,
        epoch: "",
        version: 0,
        members: new Set(),
        queued: [],
        loading: null,
      };
      this.remote.set(shard, state);
    }
    return state;
  }

  /** Loads every other shard's members that are not loaded yet (best effort). */
  private async ensureRemote() {
    const waits: Promise<void>[] = [];
    for (let s = 0; s < this.config.shards; s++) {
      if (s === this.shard) continue;
      const state = this.remoteState(s);
      if (!state.loaded) waits.push(this.loadShard(s));
    }
    await Promise.all(waits);
  }

  private loadShard(shard: number): Promise<void> {
    const state = this.remoteState(shard);
    state.loading ??= (async () => {
      try {
        const snap = await this.shardRoom(shard).snapshot(shard);
        const reload = state.epoch !== "";
        const before = state.members;
        const queued = state.queued;
        state.queued = [];
        state.members = new Set(snap.members);
        state.epoch = snap.epoch;
        state.version = snap.version;
        state.loaded = true;
        if (reload) {
          // Taken afresh after a gap: what changed meanwhile goes out like any other change.
          for (const id of before) if (!state.members.has(id)) this.queueFanout(id, false);
          for (const id of state.members) if (!before.has(id)) this.queueFanout(id, true);
        }
        // Relays that arrived while loading: the snapshot already holds the older ones, but this
        // shard's sockets have not heard of them yet; the newer ones apply in order.
        const later: RelayBatch[] = [];
        for (const batch of queued) {
          if (batch.epoch === snap.epoch && batch.version > snap.version) later.push(batch);
          else
            for (const id of [...batch.joining, ...batch.leaving]) {
              this.queueFanout(id, state.members.has(id));
            }
        }
        later.sort((x, y) => x.version - y.version);
        for (const batch of later) {
          if (batch.version !== state.version + 1) break;
          this.applyRemote(state, batch);
        }
      } catch (error) {
        console.error(
          JSON.stringify({
            level: "error",
            event: "presence_shard_load_failed",
            shard,
            error: String(error),
          }),
        );
      } finally {
        state.loading = null;
      }
    })();
    return state.loading;
  }

  private applyRemote(state: RemoteShard, batch: RelayBatch) {
    state.version = batch.version;
    for (const id of batch.joining) {
      state.members.add(id);
      this.queueFanout(id, true);
    }
    for (const id of batch.leaving) {
      state.members.delete(id);
      this.queueFanout(id, false);
    }
  }

  private isOnline(userId: string): boolean {
    if (this.local?.has(userId)) return true;
    for (const state of this.remote.values()) if (state.members.has(userId)) return true;
    return false;
  }

  /** Every online member `userId` may see (themself included when visible). */
  private visibleTo(userId: string): string[] {
    const blocked = this.blockCache.get(userId) ?? new Set<string>();
    const users: string[] = [];
    const add = (id: string) => {
      if (!blocked.has(id)) users.push(id);
    };
    for (const id of this.local ?? []) add(id);
    for (const state of this.remote.values()) for (const id of state.members) add(id);
    return users;
  }

  /** Makes a member (with an open page or in grace) visible or hidden, announcing the change. */
  private applyHidden(userId: string, hidden: boolean) {
    for (const socket of this.socketsOf(userId)) {
      const a = socket.deserializeAttachment() as Attachment;
      if (a.hidden !== hidden) socket.serializeAttachment({ ...a, hidden } satisfies Attachment);
    }
    const local = this.local!;
    if (hidden && local.delete(userId)) this.change(userId, false);
    if (!hidden && !local.has(userId)) {
      local.add(userId);
      this.change(userId, true);
    }
  }

  /**
   * A connected member's blocks: in memory for fan-out, and in storage (only when there are some)
   * for after a restart. Stored blocks exist only while the member has a socket here.
   */
  private async setBlocks(userId: string, blocks: string[]) {
    const had = this.blockCache.get(userId);
    const stored =
      (had !== undefined && had.size > 0) ||
      this.socketsOf(userId).some((s) => (s.deserializeAttachment() as Attachment).hasBlocks);
    this.blockCache.set(userId, new Set(blocks));
    if (blocks.length > 0) await this.ctx.storage.put(BLOCKS_PREFIX + userId, blocks);
    else if (stored) await this.ctx.storage.delete(BLOCKS_PREFIX + userId);
  }

  private async forgetBlocks(userId: string, stored: boolean) {
    const had = this.blockCache.get(userId);
    this.blockCache.delete(userId);
    if (stored || (had !== undefined && had.size > 0)) {
      await this.ctx.storage.delete(BLOCKS_PREFIX + userId);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Fan-out

  /** One of this shard's own members came or went: to its sockets and to the other shards. */
  private change(userId: string, online: boolean) {
    this.outbox.set(userId, online);
    this.queueFanout(userId, online);
    if (this.config.shards > 1) this.scheduleFlush();
  }

  private queueFanout(userId: string, online: boolean) {
    if (this.config.flushMs === 0) {
      // No window: every change goes to every socket on its own, at once (the plain room).
      this.fanOut(new Map([[userId, online]]));
      return;
    }
    this.fanout.set(userId, online);
    this.scheduleFlush();
  }

  /** Flushes at once after a quiet window, else at the end of the current one. */
  private scheduleFlush() {
    if (this.flushTimer !== null) return;
    const wait = Math.max(0, this.lastFlush + this.config.flushMs - Date.now());
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flush();
    }, wait);
  }

  private flush() {
    this.lastFlush = Date.now();
    const fanout = this.fanout;
    const outbox = this.outbox;
    this.fanout = new Map();
    this.outbox = new Map();
    if (fanout.size > 0) this.fanOut(fanout);
    if (outbox.size > 0 && this.config.shards > 1) {
      for (const [id, online] of outbox) this.unrelayed.set(id, online);
      void this.pumpRelays();
    }
  }

  /**
   * One relay in flight at a time, so that every other shard receives them in order; the next one
   * carries every change since (when the other shards are slow, relays grow instead of queueing).
   */
  private async pumpRelays() {
    if (this.relaying) return;
    this.relaying = true;
    try {
      while (this.unrelayed.size > 0) {
        const changes = this.unrelayed;
        this.unrelayed = new Map();
        this.version += 1;
        await this.relayToOthers({
          from: this.shard ?? 0,
          epoch: this.epoch,
          version: this.version,
          joining: [...changes].filter(([, on]) => on).map(([id]) => id),
          leaving: [...changes].filter(([, on]) => !on).map(([id]) => id),
        });
      }
    } finally {
      this.relaying = false;
    }
  }

  /** Sends each socket the changes it may see, as one frame (shared text where possible). */
  private fanOut(changes: Map<string, boolean>) {
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0) return;
    const joining: string[] = [];
    const leaving: string[] = [];
    for (const [id, online] of changes) (online ? joining : leaving).push(id);
    const common = presenceChangeFrame(joining, leaving);
    const commonText = common ? JSON.stringify(common) : null;
    for (const socket of sockets) {
      const a = socket.deserializeAttachment() as Attachment | null;
      if (!a) continue;
      if (!a.hasBlocks && !changes.has(a.userId)) {
        if (commonText) this.sendText(socket, commonText);
        continue;
      }
      const blocked = (a.hasBlocks && this.blockCache.get(a.userId)) || new Set<string>();
      const keep = (id: string) => id !== a.userId && !blocked.has(id);
      const frame = presenceChangeFrame(joining.filter(keep), leaving.filter(keep));
      if (frame) this.send(socket, frame);
    }
  }

  private async relayToOthers(batch: RelayBatch) {
    const sends: Promise<void>[] = [];
    for (let s = 0; s < this.config.shards; s++) {
      if (s === batch.from) continue;
      sends.push(
        this.shardRoom(s)
          .relay(s, batch)
          .catch((error: unknown) => {
            // The receiver notices the gap at the next relay and reloads this shard.
            console.error(
              JSON.stringify({
                level: "error",
                event: "presence_relay_failed",
                from: batch.from,
                to: s,
                error: String(error),
              }),
            );
          }),
      );
    }
    await Promise.all(sends);
  }

  private shardRoom(shard: number) {
    const ns = this.env.PRESENCE_ROOM;
    return ns.get(ns.idFromName(shardName(shard, this.config.shards)));
  }

  private send(socket: WebSocket, frame: PresenceServerFrame) {
    this.sendText(socket, JSON.stringify(frame));
  }

  private sendText(socket: WebSocket, text: string) {
    try {
      socket.send(text);
    } catch {
      // A socket closing while we send: its close handler tidies up.
    }
  }
}
