import {
  CALL_ACTIONS,
  CALL_DATA_MAX_CHARS,
  RING_TIMEOUT_MS,
  type CallAction,
  type CallClientFrame,
  type CallLine,
  type ChatServerFrame,
} from "~/realtime/chat";
import type { CallRingFrame } from "~/realtime/member";
import {
  accessRefusal,
  CANNOT_MESSAGE,
  otherMember,
  type RoomRules,
} from "~/server/chat-rules.server";
import { newId } from "~/server/crypto.server";
import { nowIso } from "~/server/db.server";
import { likeStatus } from "~/server/likes.server";
import { logFailure } from "~/server/log.server";
import { publishToMember } from "~/server/member-channel.server";
import type { Refusal } from "~/server/room-api.server";
import type { RoomParts } from "./parts";
import type { Attachment } from "./sockets";
import { messageView, type CallRow } from "./storage";

/**
 * Voice and video calls (docs/api.md "Chat: reactions, delivery, photos, voice, calls"). The room
 * relays WebRTC's signalling between the two members of a match and nothing else: media goes peer
 * to peer. Both agree each time (`ring`, then `accept` by the other member); at most one call is
 * under way in a conversation; offers, answers and candidates pass only while it is. Each call
 * ends as a line in the conversation: who called, voice or video, how it went and how long.
 */

export const CALLS_NEED_MATCH = "You can call once you have matched.";
export const CALL_BUSY = "A call is already under way in this conversation.";
export const CALL_NOT_FOUND = "This call has ended.";
export const CALL_ACTION_UNKNOWN = "Unknown call action.";
export const CALL_DATA_TOO_LARGE = "This call frame is too large.";
export const CALL_NOT_YOURS = "Only the member called can answer this call.";

const refusal = (status: number, message: string): Refusal => ({ status, message });

/** Whether the two members like each other, remembered for the room's life once they do. */
async function matched(room: RoomParts, rules: RoomRules, cache: Set<string>): Promise<boolean> {
  const key = `${rules.low}:${rules.high}`;
  if (cache.has(key)) return true;
  const status = await likeStatus(room.env, rules.low, rules.high);
  if (status.is_match) cache.add(key);
  return status.is_match;
}

/** A call frame from `a`'s socket: relayed, or refused with `call_error` to that socket alone. */
export class RoomCalls {
  private readonly matches = new Set<string>();

  constructor(private readonly room: RoomParts) {}

  async onFrame(socket: WebSocket, a: Attachment, frame: CallClientFrame): Promise<void> {
    const refused = await this.handle(socket, a, frame).catch((error: unknown) => {
      logFailure("call_frame_failed", error, {
        conversation_id: a.conversationId,
        user_id: a.userId,
      });
      return refusal(500, "Server Error");
    });
    if (refused) {
      this.room.sockets.reply(socket, {
        type: "call_error",
        call_id: frame.call_id,
        status: refused.status,
        message: refused.message,
      });
    }
  }

  private async handle(
    socket: WebSocket,
    a: Attachment,
    frame: CallClientFrame,
  ): Promise<Refusal | null> {
    if (!(CALL_ACTIONS as readonly string[]).includes(frame.action)) {
      return refusal(422, CALL_ACTION_UNKNOWN);
    }
    const action = frame.action as CallAction;
    if (frame.data !== undefined && JSON.stringify(frame.data).length > CALL_DATA_MAX_CHARS) {
      return refusal(413, CALL_DATA_TOO_LARGE);
    }
    const rules = await this.room.rules.load(a.conversationId);
    if (!rules) return refusal(404, CALL_NOT_FOUND);
    const access = accessRefusal(rules, a.userId);
    if (access) return access;
    const me = a.userId;
    const other = otherMember(rules, me);
    const { storage } = this.room;
    const now = nowIso();

    if (action === "ring") {
      if (rules.inactive.includes(other)) return refusal(403, CANNOT_MESSAGE);
      if (!(await matched(this.room, rules, this.matches))) return refusal(403, CALLS_NEED_MATCH);
      const open = storage.openCall();
      if (open && open.call_id !== frame.call_id) {
        // A ring nobody answered in time, or a call whose members both left, no longer holds
        // the line; anything else does.
        if (!this.stale(open)) return refusal(409, CALL_BUSY);
        this.finish(a.conversationId, open, now);
      }
      if (open?.call_id === frame.call_id) return null;
      const video = isObject(frame.data) && frame.data.video === true;
      if (!storage.ring({ callId: frame.call_id, callerId: me, calleeId: other, video, at: now })) {
        return refusal(409, CALL_BUSY);
      }
      this.relay(socket, me, other, { call_id: frame.call_id, action, data: { video } });
      // Every page of the member called shows it (not only this conversation's).
      this.ringElsewhere(a.conversationId, storage.call(frame.call_id)!, true);
      return null;
    }

    const call = storage.call(frame.call_id);
    if (!call || call.state === "ended" || (call.caller_id !== me && call.callee_id !== me)) {
      return refusal(404, CALL_NOT_FOUND);
    }
    if (action === "accept" || action === "decline") {
      if (call.callee_id !== me) return refusal(403, CALL_NOT_YOURS);
      if (call.state !== "ringing") return refusal(409, CALL_BUSY);
      if (this.stale(call)) {
        this.finish(a.conversationId, call, now);
        return refusal(404, CALL_NOT_FOUND);
      }
      if (action === "accept") storage.acceptCall(call.call_id, now);
      else this.finish(a.conversationId, call, now, "declined");
      this.ringElsewhere(a.conversationId, call, false, {
        answered: action === "accept" ? "accepted" : "declined",
      });
      this.relay(socket, me, other, { call_id: call.call_id, action });
      return null;
    }
    if (action === "end") {
      this.finish(a.conversationId, call, now);
      this.relay(socket, me, other, { call_id: call.call_id, action });
      return null;
    }
    // offer, answer, candidate: WebRTC's own, only while the call is under way.
    if (call.state !== "active") return refusal(409, CALL_NOT_FOUND);
    this.relay(socket, me, other, { call_id: call.call_id, action, data: frame.data });
    return null;
  }

  /**
   * A frame from `me` reaches the other member's sockets; `accept`, `decline` and `end` also reach
   * `me`'s other sockets (their other tabs stop ringing). Never anyone else.
   */
  private relay(
    from: WebSocket,
    me: string,
    other: string,
    frame: { call_id: string; action: CallAction; data?: unknown },
  ) {
    const out: ChatServerFrame = { type: "call", user_id: me, ...frame };
    const toOwnTabs =
      frame.action === "accept" || frame.action === "decline" || frame.action === "end";
    this.room.sockets.sendTo(
      out,
      (a) => a.userId === other || (toOwnTabs && a.userId === me),
      from,
    );
  }

  /**
   * Sends the member called (when the call is ringing) the ring, on the conversation's sockets
   * they open now: a page opened to answer it.
   */
  greet(userId: string) {
    const call = this.room.storage.openCall();
    if (!call || call.state !== "ringing" || call.callee_id !== userId || this.stale(call)) return;
    const frame: ChatServerFrame = {
      type: "call",
      call_id: call.call_id,
      action: "ring",
      user_id: call.caller_id,
      data: { video: call.video === 1 },
    };
    const sockets = this.room.sockets.layer.sockets(userId);
    this.room.sockets.sendTo(frame, () => true, undefined, sockets);
  }

  /**
   * The member called hears on their own channel that a call rings, or rings no more (`missed`:
   * it rang out unanswered). Their hub pushes it when no page of theirs is open (away-pushes.ts).
   */
  private ringElsewhere(
    conversationId: string,
    call: CallRow,
    ringing: boolean,
    { missed = false, answered }: Pick<CallRingFrame, "missed" | "answered"> = {},
  ) {
    this.room.ctx.waitUntil(
      publishToMember(this.room.env, call.callee_id, {
        type: "call",
        conversation_id: conversationId,
        call_id: call.call_id,
        user_id: call.caller_id,
        video: call.video === 1,
        ringing,
        ...(missed ? { missed } : {}),
        ...(answered ? { answered } : {}),
      }),
    );
  }

  /** A ring past its time, or a call neither of whose members has a socket open here any more. */
  private stale(call: CallRow): boolean {
    if (call.state === "ringing") return Date.now() - Date.parse(call.rang_at) > RING_TIMEOUT_MS;
    const present = this.room.sockets.present();
    return !present.has(call.caller_id) && !present.has(call.callee_id);
  }

  /**
   * A member's last socket here closed: a call of theirs ends with it (the other side hears
   * `end`), as it would if they had hung up.
   */
  memberLeft(conversationId: string, userId: string) {
    const call = this.room.storage.openCall();
    if (!call || (call.caller_id !== userId && call.callee_id !== userId)) return;
    if (this.room.sockets.present(true).has(userId)) return;
    this.finish(conversationId, call, nowIso());
    this.room.sockets.fanOut(
      { type: "call", call_id: call.call_id, action: "end", user_id: userId },
      userId,
    );
  }

  /** The conversation may no longer be used (a block, an unmatch, a suspension): calls end. */
  endAll(conversationId: string) {
    const call = this.room.storage.openCall();
    // Not told as missed: nothing of the other member reaches this one any more.
    if (call) this.finish(conversationId, call, nowIso(), undefined, { closed: true });
  }

  /**
   * Ends a call and writes its line: completed (with how long it lasted) once accepted, declined
   * when the member called said no, missed otherwise. A ring that ends unanswered is told to the
   * member called as missed, unless the conversation closed (`closed`).
   */
  private finish(
    conversationId: string,
    call: CallRow,
    at: string,
    outcome?: CallLine["outcome"],
    { closed = false } = {},
  ) {
    const { storage } = this.room;
    storage.endCall(call.call_id, at);
    if (call.state === "ringing" && outcome !== "declined") {
      this.ringElsewhere(conversationId, call, false, { missed: !closed });
    }
    const line: CallLine = {
      caller_id: call.caller_id,
      kind: call.video ? "video" : "voice",
      outcome: outcome ?? (call.accepted_at ? "completed" : "missed"),
      duration_ms: call.accepted_at
        ? Math.max(0, Date.parse(at) - Date.parse(call.accepted_at))
        : 0,
    };
    const seq = storage.lastSeq() + 1;
    const stored = storage.insert({
      seq,
      id: `${conversationId}.${newId()}`,
      senderId: call.caller_id,
      clientId: null,
      text: callText(line),
      gift: null,
      sentAt: at,
      call: line,
    });
    if (!stored) return;
    this.room.outbox.queueBoth(seq);
    void this.room.sockets.publish({
      type: "message",
      message: messageView(conversationId, stored),
    });
    this.room.outbox.flushWithin();
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** m:ss, or h:mm:ss for a long call. */
function duration(ms: number): string {
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** A call's line as text (the conversation list's preview, notifications, exports). */
export function callText(line: CallLine): string {
  const kind = line.kind === "video" ? "video call" : "voice call";
  if (line.outcome === "missed") return `📞 Missed ${kind}`;
  if (line.outcome === "declined") return `📞 Declined ${kind}`;
  return `📞 ${kind[0]!.toUpperCase()}${kind.slice(1)} · ${duration(line.duration_ms)}`;
}
