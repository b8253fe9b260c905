import { describe, expect, it } from "vitest";
import {
  jitteredOptions,
  MAX_HINT_MS,
  MEMBER_BACKOFF,
  reconnectDelay,
  retryHint,
} from "~/realtime/backoff";

describe("reconnecting with full jitter", () => {
  it("draws each retry's wait from [0, window), the window doubling up to its cap", () => {
    const top = () => 0.999999;
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => reconnectDelay(MEMBER_BACKOFF, n, top))).toEqual([
      999, 1999, 3999, 7999, 15999, 29999, 29999,
    ]);
    expect(reconnectDelay(MEMBER_BACKOFF, 3, () => 0)).toBe(0);
    expect(reconnectDelay(MEMBER_BACKOFF, 3, () => 0.5)).toBe(4000);
  });

  it("spreads a wave of clients over the whole window, not into one moment", () => {
    // 3,000 tabs dropped together by a deploy: their first retries, second by second.
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const delays = Array.from({ length: 3000 }, () => reconnectDelay(MEMBER_BACKOFF, 4, random));
    const perSecond = new Array(16).fill(0) as number[];
    for (const d of delays) perSecond[Math.floor(d / 1000)]! += 1;
    expect(Math.max(...delays)).toBeLessThan(16_000);
    // About 3,000 / 16 = 187 a second; none more than half again.
    expect(Math.max(...perSecond)).toBeLessThan(280);
    expect(Math.min(...perSecond)).toBeGreaterThan(100);
  });

  it("takes a server's longer window from a 1012 or 1013 close, bounded", () => {
    expect(retryHint(1013, "overloaded; retry=60")).toBe(60_000);
    expect(retryHint(1012, "retry=20")).toBe(20_000);
    expect(retryHint(1006, "retry=60")).toBe(0);
    expect(retryHint(1013, "busy")).toBe(0);
    expect(retryHint(1013, "retry=9999")).toBe(MAX_HINT_MS);
    // A hint widens the window; a shorter one changes nothing.
    expect(reconnectDelay(MEMBER_BACKOFF, 0, () => 0.5, 60_000)).toBe(30_000);
    expect(reconnectDelay(MEMBER_BACKOFF, 3, () => 0.5, 100)).toBe(4000);
  });

  it("gives partysocket a new draw at each retry, and keeps other options", () => {
    const state = { attempts: 0, hintMs: 0 };
    const options = jitteredOptions(MEMBER_BACKOFF, state, { maxEnqueuedMessages: 0 });
    expect(options.maxEnqueuedMessages).toBe(0);
    expect(options.reconnectionDelayGrowFactor).toBe(1);
    const draws = Array.from({ length: 5 }, () => options.minReconnectionDelay!);
    expect(state.attempts).toBe(5);
    draws.forEach((d, n) => expect(d).toBeLessThan(Math.min(30_000, 1000 * 2 ** n)));
  });
});
