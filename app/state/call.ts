import { RING_TIMEOUT_MS, type CallServerFrame } from "~/realtime/chat";

/**
 * A call in the open conversation, as this tab sees it (docs/api.md "Calls"): pure transitions,
 * tested in tests/unit/call-state.test.ts; the thread's call (app/components/chat/call.tsx) runs
 * WebRTC and the room's frames through them.
 *
 *   idle ─ place ─▶ outgoing ─ accept (theirs) ─▶ connecting ─ media flows ─▶ connected
 *   idle ─ ring (theirs) ─▶ incoming ─ answer (mine) ─▶ connecting
 *   any but idle ─ decline / end / refusal / failure ─▶ ended ─ dismiss ─▶ idle
 */

export type CallPhase = "idle" | "outgoing" | "incoming" | "connecting" | "connected" | "ended";

export type CallEndReason =
  | "hung-up"
  | "they-hung-up"
  | "declined"
  | "they-declined"
  | "no-answer"
  | "missed"
  | "answered-elsewhere"
  | "failed"
  | "refused";

export interface CallState {
  phase: CallPhase;
  callId: string | null;
  video: boolean;
  /** This member placed the call. */
  caller: boolean;
  /** When media started to flow (ms since the epoch), for the call's clock. */
  connectedAt: number | null;
  ended: CallEndReason | null;
  /** The server's message when it refused a call frame. */
  error: string | null;
}

export const idleCall: CallState = {
  phase: "idle",
  callId: null,
  video: false,
  caller: false,
  connectedAt: null,
  ended: null,
  error: null,
};

/** A caller's ring that nobody answers ends after this long (as the room ends it). */
export const CALL_RING_MS = RING_TIMEOUT_MS;

/** What the call's panel says once it ended. */
export const CALL_END_TEXT: Record<CallEndReason, string> = {
  "hung-up": "Call ended",
  "they-hung-up": "Call ended",
  declined: "Call declined",
  "they-declined": "Your call was declined",
  "no-answer": "No answer",
  missed: "Missed call",
  "answered-elsewhere": "Answered on another device",
  failed: "The call could not connect",
  refused: "The call could not be placed",
};

const busy = (s: CallState) => s.phase !== "idle" && s.phase !== "ended";

/** This member calls the other one (the ring is on its way). */
export function callPlaced(s: CallState, call: { callId: string; video: boolean }): CallState {
  if (busy(s)) return s;
  return { ...idleCall, phase: "outgoing", callId: call.callId, video: call.video, caller: true };
}

/** This member answers the ringing call. */
export function callAnswered(s: CallState): CallState {
  return s.phase === "incoming" ? { ...s, phase: "connecting" } : s;
}

/** Media flows both ways. */
export function callConnected(s: CallState, at: number): CallState {
  return s.phase === "connecting" ? { ...s, phase: "connected", connectedAt: at } : s;
}

/** The call ends here (hung up, declined, no answer, failed). */
export function callEnded(s: CallState, reason: CallEndReason): CallState {
  return busy(s) ? { ...s, phase: "ended", ended: reason } : s;
}

/** The room refused a frame of this call: it is over, with the server's reason. */
export function callRefused(s: CallState, callId: string, message: string): CallState {
  if (!busy(s) || s.callId !== callId) return s;
  return { ...s, phase: "ended", ended: "refused", error: message };
}

/** Back to idle once the ended call's notice was seen. */
export const callDismissed = (s: CallState): CallState => (s.phase === "ended" ? idleCall : s);

/**
 * A call frame of the room. The other member's ring starts ringing here (unless a call is under
 * way); their accept connects, their decline or end ends; this member's own accept, decline or end
 * from another tab means the call is there, not here.
 */
export function callFrameReceived(s: CallState, frame: CallServerFrame, me: string): CallState {
  const mine = frame.user_id === me;
  if (frame.action === "ring") {
    if (mine || busy(s)) return s;
    const video =
      typeof frame.data === "object" &&
      frame.data !== null &&
      (frame.data as { video?: unknown }).video === true;
    return { ...idleCall, phase: "incoming", callId: frame.call_id, video };
  }
  if (frame.call_id !== s.callId || !busy(s)) return s;
  if (mine) {
    // Another tab of this member's answered, declined or ended it.
    return frame.action === "accept" || frame.action === "decline" || frame.action === "end"
      ? { ...s, phase: "ended", ended: "answered-elsewhere" }
      : s;
  }
  switch (frame.action) {
    case "accept":
      return s.phase === "outgoing" ? { ...s, phase: "connecting" } : s;
    case "decline":
      return { ...s, phase: "ended", ended: "they-declined" };
    case "end":
      return { ...s, phase: "ended", ended: s.phase === "incoming" ? "missed" : "they-hung-up" };
    default:
      return s;
  }
}
