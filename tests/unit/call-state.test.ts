import { describe, expect, it } from "vitest";
import type { CallServerFrame } from "~/realtime/chat";
import {
  callAnswered,
  callConnected,
  callDismissed,
  callEnded,
  callFrameReceived,
  callPlaced,
  callRefused,
  idleCall,
} from "~/state/call";

const ME = "me";
const THEM = "them";
const frame = (
  action: CallServerFrame["action"],
  user_id = THEM,
  call_id = "c1",
  data?: unknown,
): CallServerFrame => ({ type: "call", call_id, action, user_id, data });

describe("a call, as this tab sees it", () => {
  it("placed: rings, connects once they accept and media flows, ends when they hang up", () => {
    let s = callPlaced(idleCall, { callId: "c1", video: true });
    expect(s).toMatchObject({ phase: "outgoing", caller: true, video: true, callId: "c1" });
    s = callFrameReceived(s, frame("accept"), ME);
    expect(s.phase).toBe("connecting");
    s = callConnected(s, 1000);
    expect(s).toMatchObject({ phase: "connected", connectedAt: 1000 });
    s = callFrameReceived(s, frame("end"), ME);
    expect(s).toMatchObject({ phase: "ended", ended: "they-hung-up" });
    expect(callDismissed(s)).toEqual(idleCall);
  });

  it("rung: their ring shows with its kind; answering connects; declining ends", () => {
    const ringing = callFrameReceived(idleCall, frame("ring", THEM, "c1", { video: true }), ME);
    expect(ringing).toMatchObject({ phase: "incoming", caller: false, video: true });
    expect(callFrameReceived(idleCall, frame("ring", THEM, "c1", { video: "yes" }), ME).video).toBe(
      false,
    );
    expect(callAnswered(ringing).phase).toBe("connecting");
    expect(callEnded(ringing, "declined")).toMatchObject({ phase: "ended", ended: "declined" });
    // They gave up before it was answered: missed.
    expect(callFrameReceived(ringing, frame("end"), ME).ended).toBe("missed");
  });

  it("one call at a time: a ring during a call, or my own ring echoed, changes nothing", () => {
    const outgoing = callPlaced(idleCall, { callId: "c1", video: false });
    expect(callFrameReceived(outgoing, frame("ring", THEM, "c2"), ME)).toBe(outgoing);
    expect(callPlaced(outgoing, { callId: "c3", video: true })).toBe(outgoing);
    expect(callFrameReceived(idleCall, frame("ring", ME), ME)).toBe(idleCall);
    // Frames of another call are ignored.
    expect(callFrameReceived(outgoing, frame("accept", THEM, "c9"), ME)).toBe(outgoing);
  });

  it("answered, declined or ended in another tab of mine: over here", () => {
    const ringing = callFrameReceived(idleCall, frame("ring"), ME);
    for (const action of ["accept", "decline", "end"] as const) {
      expect(callFrameReceived(ringing, frame(action, ME), ME)).toMatchObject({
        phase: "ended",
        ended: "answered-elsewhere",
      });
    }
  });

  it("their decline, a refusal with the server's reason, and a failure end it", () => {
    const outgoing = callPlaced(idleCall, { callId: "c1", video: false });
    expect(callFrameReceived(outgoing, frame("decline"), ME).ended).toBe("they-declined");
    const refused = callRefused(outgoing, "c1", "You can call once you have matched.");
    expect(refused).toMatchObject({
      phase: "ended",
      ended: "refused",
      error: "You can call once you have matched.",
    });
    expect(callRefused(outgoing, "other", "x")).toBe(outgoing);
    expect(callEnded(outgoing, "failed").ended).toBe("failed");
    // Nothing to end when idle.
    expect(callEnded(idleCall, "hung-up")).toBe(idleCall);
  });
});
