import ReconnectingWebSocket, { type UrlProvider } from "partysocket/ws";
import { jitteredOptions, MEMBER_BACKOFF, retryHint } from "./backoff";
import { startHeartbeat } from "./heartbeat";
import {
  parseMemberServerFrame,
  SESSION_ENDED_CLOSE,
  type MemberClientFrame,
  type MemberServerFrame,
} from "./member";
import { isConversationOpen } from "./open-conversations";
import { socketTicketRefused, socketUrl } from "./ticket";
import { watchUnion } from "~/state/presence";
import {
  parsePresenceServerFrame,
  PING_FRAME,
  type PresenceClientFrame,
  type PresenceServerFrame,
} from "./presence";

/**
 * The browser's realtime client: at most two sockets per page, the member's own channel
 * (`/ws/me`: notifications and conversation updates) and the presence room (`/ws/presence`,
 * told which members the page shows: `watchPresence`, through usePresenceWatch), plus the heartbeat (app/realtime/heartbeat.ts). Both are partysocket sockets (they reconnect by themselves, with backoff) and
 * both keep alive as docs/domain.md "Limits and constants" says: after 120 s without any frame the
 * client pings, and when no answer comes within 30 s it drops the socket and connects again.
 *
 * One client per member and browser tab, shared by every page: the signed-in layout acquires it on
 * mount and releases it on unmount, and it closes only when no page has held it for a moment
 * (so a client-side navigation keeps the sockets).
 *
 * Other features listen to the member channel without a socket of their own:
 *
 *   useEffect(() => subscribeMemberFrames((frame) => {
 *     if (frame.type === "conversation") updateConversationList(frame);
 *   }), []);
 *
 * `subscribeMemberFrames` returns the unsubscribe function; frames are already parsed with the
 * `memberServerFrame` union of app/realtime/member.ts. `subscribeMemberChannel` also tells when the
 * channel (re)opens, so a feature can reload what it may have missed while disconnected.
 */

/** docs/domain.md "Limits and constants": activity timeout and pong timeout. */
export const ACTIVITY_TIMEOUT_MS = 120_000;
export const PONG_TIMEOUT_MS = 30_000;
/** How long the client outlives the last page that held it. */
const LINGER_MS = 2_000;

interface TimerApi {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: TimerApi = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * The keepalive of one socket: `activity()` on every frame (and on open); after `activityMs` of
 * silence it sends a ping, and when nothing arrives within `pongMs` it calls `dead()`.
 */
export class Keepalive {
  private idle: unknown = null;
  private waiting: unknown = null;

  constructor(
    private readonly ping: () => void,
    private readonly dead: () => void,
    private readonly activityMs = ACTIVITY_TIMEOUT_MS,
    private readonly pongMs = PONG_TIMEOUT_MS,
    private readonly timers: TimerApi = realTimers,
  ) {}

  activity() {
    this.stop();
    this.idle = this.timers.setTimeout(() => {
      this.idle = null;
      this.ping();
      this.waiting = this.timers.setTimeout(() => {
        this.waiting = null;
        this.dead();
      }, this.pongMs);
    }, this.activityMs);
  }

  stop() {
    if (this.idle !== null) this.timers.clearTimeout(this.idle);
    if (this.waiting !== null) this.timers.clearTimeout(this.waiting);
    this.idle = null;
    this.waiting = null;
  }
}

export interface ChannelEvents<F> {
  frame(frame: F): void;
  open(): void;
  /** The socket closed or failed; it reconnects by itself. */
  down(reason: "close" | "error"): void;
}

/** One reconnecting socket with its keepalive, delivering parsed frames. */
class Channel<F> {
  private readonly socket: ReconnectingWebSocket;
  private readonly keepalive: Keepalive;

  constructor(url: UrlProvider, parse: (raw: string) => F | null, events: ChannelEvents<F>) {
    const retries = { attempts: 0, hintMs: 0 };
    this.socket = new ReconnectingWebSocket(url, [], jitteredOptions(MEMBER_BACKOFF, retries));
    this.keepalive = new Keepalive(
      () => this.socket.send(PING_FRAME),
      () => this.socket.reconnect(4000, "keepalive timeout"),
    );
    this.socket.addEventListener("open", () => {
      retries.attempts = 0;
      retries.hintMs = 0;
      this.keepalive.activity();
      events.open();
    });
    this.socket.addEventListener("message", (event: MessageEvent) => {
      this.keepalive.activity();
      if (typeof event.data !== "string") return;
      const frame = parse(event.data);
      if (frame) events.frame(frame);
    });
    this.socket.addEventListener("close", (event) => {
      // Its session ended, or its ticket is no good: the next try asks for a fresh ticket.
      if (event.code === SESSION_ENDED_CLOSE) socketTicketRefused();
      retries.hintMs = retryHint(event.code, event.reason);
      this.keepalive.stop();
      events.down("close");
    });
    this.socket.addEventListener("error", () => events.down("error"));
  }

  /** Whether the socket is open now. */
  get isOpen(): boolean {
    return this.socket.readyState === ReconnectingWebSocket.OPEN;
  }

  /** Sends a frame now if the socket is open (returns false otherwise). */
  send(text: string): boolean {
    if (this.socket.readyState !== ReconnectingWebSocket.OPEN) return false;
    this.socket.send(text);
    return true;
  }

  close() {
    this.keepalive.stop();
    this.socket.close(1000, "page closed");
  }
}

type Listener<T> = (value: T) => void;

export interface PresenceListener {
  /** A frame; for a `here`, the watch set it answers (null: the member's contacts). */
  frame(frame: PresenceServerFrame, answered: string[] | null): void;
  down(reason: "close" | "error"): void;
}

export interface MemberChannelListener {
  frame?(frame: MemberServerFrame): void;
  /** The channel (re)opened: reload what may have been missed. */
  open?(): void;
}

export class RealtimeClient {
  private readonly memberListeners = new Set<MemberChannelListener>();
  private readonly presenceListeners = new Set<PresenceListener>();
  private readonly member: Channel<MemberServerFrame>;
  private readonly presence: Channel<PresenceServerFrame>;
  private readonly stopHeartbeat: () => void;
  holders = 0;
  lingering: ReturnType<typeof setTimeout> | null = null;

  constructor(
    readonly memberId: string,
    origin: string,
  ) {
    const base = origin.replace(/^http/, "ws");
    this.member = new Channel(() => socketUrl(base, "/ws/me"), parseMemberServerFrame, {
      frame: (f) => {
        this.acknowledge(f);
        this.memberListeners.forEach((l) => l.frame?.(f));
      },
      open: () => this.memberListeners.forEach((l) => l.open?.()),
      down: () => {},
    });
    this.presence = new Channel(() => socketUrl(base, "/ws/presence"), parsePresenceServerFrame, {
      frame: (f) => {
        // The room answers watch frames in order, after the contacts' `here` of each connection.
        const answered = f.type === "here" ? (this.answering.shift() ?? null) : null;
        this.presenceListeners.forEach((l) => l.frame(f, answered));
      },
      // A (re)connected socket starts from the member's contacts: tell it what the page shows.
      open: () => {
        this.answering = [null];
        this.sendWatch(true);
      },
      down: (reason) => this.presenceListeners.forEach((l) => l.down(reason)),
    });
    // The presence shard keeps last_seen_at while its socket is open: no heartbeat then.
    this.stopHeartbeat = startHeartbeat(() => this.presence.isOpen);
  }

  private sentWatch: string | null = null;
  /** The sets the next `here` frames answer, in order (null: the contacts). */
  private answering: (string[] | null)[] = [];

  /**
   * A new message of the other member's, heard here while its conversation is not open in this
   * tab: this device received it (the sender sees "Delivered").
   */
  private acknowledge(frame: MemberServerFrame) {
    if (frame.type !== "conversation" || !frame.message) return;
    if (frame.message.sender_id === this.memberId) return;
    if (isConversationOpen(frame.conversation_id)) return;
    const ack: MemberClientFrame = {
      type: "received",
      conversation_id: frame.conversation_id,
      ids: [frame.message.id],
    };
    this.member.send(JSON.stringify(ack));
  }

  /**
   * Sends the page's watch set (the union of every `watchPresence` list) when it changed, or on
   * (re)connecting (`always`). Nothing is sent before any part of the page has said what it shows.
   */
  sendWatch(always = false) {
    if (watchLists.size === 0 && this.sentWatch === null) return;
    const frame: PresenceClientFrame = {
      type: "watch",
      user_ids: watchUnion(watchLists.values()),
    };
    const text = JSON.stringify(frame);
    if (!always && text === this.sentWatch) return;
    if (!this.presence.send(text)) return;
    this.sentWatch = text;
    this.answering.push(frame.user_ids);
  }

  onMemberChannel(listener: MemberChannelListener): () => void {
    this.memberListeners.add(listener);
    return () => this.memberListeners.delete(listener);
  }

  onPresence(listener: PresenceListener): () => void {
    this.presenceListeners.add(listener);
    return () => this.presenceListeners.delete(listener);
  }

  close() {
    this.stopHeartbeat();
    this.member.close();
    this.presence.close();
    this.memberListeners.clear();
    this.presenceListeners.clear();
  }
}

let current: RealtimeClient | null = null;
const pendingMemberListeners = new Set<MemberChannelListener>();
/** What each part of the page shows (watchPresence), in the order they registered. */
const watchLists = new Map<number, readonly string[]>();
let nextWatchKey = 0;
let watchSendQueued = false;

function queueWatchSend() {
  if (watchSendQueued) return;
  watchSendQueued = true;
  // One frame for a navigation: the old page's lists go and the new page's come in one commit.
  queueMicrotask(() => {
    watchSendQueued = false;
    current?.sendWatch();
  });
}

/**
 * Adds members a part of the page shows to the page's watch set (sent to the presence room);
 * works before the client exists and across reconnects. Returns the function that removes them.
 */
export function watchPresence(ids: readonly string[]): () => void {
  const key = nextWatchKey++;
  watchLists.set(key, ids);
  queueWatchSend();
  return () => {
    watchLists.delete(key);
    queueWatchSend();
  };
}

/** The tab's realtime client, or null when there is none (not signed in, or no WebSocket). */
export function getRealtimeClient(): RealtimeClient | null {
  return current;
}

/**
 * Takes the tab's client for a member (creating it on first use); null where websockets do not
 * exist. Pair every call with `releaseRealtimeClient`.
 */
export function acquireRealtimeClient(memberId: string): RealtimeClient | null {
  if (typeof window === "undefined" || typeof WebSocket === "undefined") return null;
  if (current && current.memberId !== memberId) {
    current.close();
    current = null;
  }
  if (!current) {
    current = new RealtimeClient(memberId, window.location.origin);
    for (const listener of pendingMemberListeners) current.onMemberChannel(listener);
  }
  if (current.lingering) clearTimeout(current.lingering);
  current.lingering = null;
  current.holders += 1;
  return current;
}

export function releaseRealtimeClient(client: RealtimeClient) {
  client.holders = Math.max(0, client.holders - 1);
  if (client.holders > 0) return;
  client.lingering = setTimeout(() => {
    if (client.holders > 0) return;
    client.close();
    if (current === client) current = null;
  }, LINGER_MS);
}

/**
 * Listens to the member channel (see the top of this file); works before the client exists and
 * across reconnects. Returns the unsubscribe function.
 */
export function subscribeMemberChannel(listener: MemberChannelListener): () => void {
  pendingMemberListeners.add(listener);
  const off = current?.onMemberChannel(listener);
  return () => {
    pendingMemberListeners.delete(listener);
    off?.();
  };
}

/** Listens to the member channel's frames only. */
export function subscribeMemberFrames(listener: Listener<MemberServerFrame>): () => void {
  return subscribeMemberChannel({ frame: listener });
}
