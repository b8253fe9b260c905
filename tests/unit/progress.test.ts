import { describe, expect, it } from "vitest";
import { PROGRESS_DELAY_MS, PROGRESS_TRICKLE_MS, trickle } from "~/lib/progress";

describe("navigation progress bar (docs/domain.md: Pages, navigation and appearance)", () => {
  it("appears after 250 ms and trickles every 200 ms", () => {
    expect(PROGRESS_DELAY_MS).toBe(250);
    expect(PROGRESS_TRICKLE_MS).toBe(200);
  });

  it("always moves forward, slower as it goes, and never reaches 100 %", () => {
    let p = 0;
    let lastStep = Infinity;
    for (let i = 0; i < 1000; i++) {
      const next = trickle(p);
      expect(next).toBeGreaterThanOrEqual(p);
      expect(next).toBeLessThan(1);
      const step = next - p;
      expect(step).toBeLessThanOrEqual(lastStep + 1e-12);
      lastStep = step;
      p = next;
    }
    expect(p).toBeGreaterThan(0.99);
  });

  it("starts quickly", () => {
    expect(trickle(0)).toBeCloseTo(0.1);
    expect(trickle(0.9)).toBeCloseTo(0.905);
  });

  it("does not move once it is nearly full, nor go past where it is", () => {
    expect(trickle(0.994)).toBe(0.994);
    expect(trickle(0.999)).toBe(0.999);
    expect(trickle(0.992)).toBe(0.994);
  });
});
