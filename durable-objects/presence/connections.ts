import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import { log } from "~/server/log.server";
import type { ShardAlarm } from "./alarm";
import type { ShardParts } from "./parts";
import {
  LEAVE_PREFIX,
  MEMBER_PREFIX,
  WATCH_PREFIX,
  type Attachment,
  type StoredMember,
} from "./storage";
import type { ShardVisibility } from "./visibility";
import type { WatchQueue } from "./watching";

/** A member's socket as the Worker checked it (the upgrade's headers). */
export interface Arrival {
  userId: string;
  hidden: boolean;
  blocks: string[];
  contacts: string[];
  requestId?: string;
}

/**
 * Members' sockets coming and going (docs/realtime.md "Presence room"): a member with several tabs
 * joins once and leaves once, when the last tab has been closed for a grace period (the alarm),
 * so that a reload does not show them leaving and coming back.
 */
export class ShardConnections {
  constructor(
    private readonly parts: ShardParts,
    private readonly visibility: ShardVisibility,
    private readonly watching: WatchQueue,
    private readonly alarm: ShardAlarm,
  ) {}

  /** Accepts a member's socket; answers the 101 response. */
  async open({ userId, hidden, blocks, contacts, requestId }: Arrival): Promise<Response> {
    const { sockets, leaveAt, ctx } = this.parts;
    await this.visibility.setBlocks(userId, blocks);
    const a: Attachment = {
      sid: crypto.randomUUID(),
      userId,
      hidden,
      hasBlocks: blocks.length > 0,
    };
    const first = sockets.of(userId).length === 0 && !leaveAt.has(userId);
    const { response } = sockets.accept(a);
    log({
      event: "socket_opened",
      level: "info",
      request_id: requestId,
      user_id: userId,
      channel: "presence",
    });
    if (first) await ctx.storage.put(MEMBER_PREFIX + userId, { hidden } satisfies StoredMember);
    // Back within the grace period (a reload): nobody saw them leave, nobody sees them join.
    if (leaveAt.delete(userId)) await ctx.storage.delete(LEAVE_PREFIX + userId);
    this.visibility.applyHidden(userId, hidden);
    // The contacts are the watch set until the page sends its own; `here` and the count follow.
    this.watching.watch(a.sid, contacts, true);
    await this.alarm.set();
    return response;
  }

  /** A socket closed (or was closed): when it was its member's last, their grace period starts. */
  async gone(ws: WebSocket) {
    const { sockets, watches, ctx, blocks, leaveAt, config } = this.parts;
    const a = sockets.attachment(ws);
    if (!a || !sockets.has(a.sid)) return;
    sockets.delete(a.sid);
    watches.drop(a.sid);
    if (a.watch === undefined) await ctx.storage.delete(WATCH_PREFIX + a.sid);
    if (sockets.of(a.userId).length > 0) return;
    // Blocks matter only while the member has a socket here; a new one brings them afresh.
    await blocks.forget(a.userId, a.hasBlocks);
    const at = Date.now() + config.graceMs;
    leaveAt.set(a.userId, at);
    await ctx.storage.put(LEAVE_PREFIX + a.userId, at);
    await this.alarm.set();
  }

  /**
   * The member's sessions ended: closes their sockets here. They leave after the grace period,
   * unless a page of theirs that is still signed in reconnects first.
   */
  async closeMember(userId: string): Promise<number> {
    const { sockets } = this.parts;
    const open = sockets.of(userId);
    for (const ws of open) {
      sockets.layer.close([ws], SESSION_ENDED_CLOSE, "Signed out.");
      await this.gone(ws);
    }
    return open.length;
  }
}
