import { describe, expect, it } from "vitest";
import { retryHint } from "~/realtime/backoff";
import {
  JoinGate,
  MAX_RETRY_SECONDS,
  PRESENCE_TRY_AGAIN_CLOSE,
  tryAgainReason,
} from "../../durable-objects/presence/join-gate";

describe("a presence shard's join gate", () => {
  it("takes a second's worth of joins at once, then its rate, and turns the rest away", () => {
    const gate = new JoinGate(100, 0);
    let admitted = 0;
    for (let i = 0; i < 300; i++) if (gate.admit(0) === 0) admitted++;
    expect(admitted).toBe(100);
    // Half a second later, half a second's worth more.
    admitted = 0;
    for (let i = 0; i < 300; i++) if (gate.admit(500) === 0) admitted++;
    expect(admitted).toBe(50);
  });

  it("names a window that grows with the sockets turned away, so that they come back at its rate", () => {
    const gate = new JoinGate(100, 0);
    for (let i = 0; i < 100; i++) gate.admit(0);
    const windows: number[] = [];
    for (let i = 0; i < 2_000; i++) windows.push(gate.admit(0));
    // 2,000 turned away at 100 a second: the last is told 20 s.
    expect(windows[0]).toBe(1);
    expect(windows.at(-1)).toBe(20);
    expect(windows).toEqual([...windows].sort((a, b) => a - b));
    // A huge wave is capped.
    for (let i = 0; i < 50_000; i++) gate.admit(0);
    expect(gate.admit(0)).toBe(MAX_RETRY_SECONDS);
  });

  it("forgets the wave once it has passed", () => {
    const gate = new JoinGate(100, 0);
    for (let i = 0; i < 1_100; i++) gate.admit(0);
    // A minute later every token is back and the count turned away has decayed.
    expect(gate.admit(60_000)).toBe(0);
    for (let i = 0; i < 99; i++) gate.admit(60_000);
    expect(gate.admit(60_000)).toBe(1);
  });

  it("says so in a close the clients read as a retry window", () => {
    expect(retryHint(PRESENCE_TRY_AGAIN_CLOSE, tryAgainReason(20))).toBe(20_000);
  });
});
