import { describe, expect, it } from "vitest";
import { formatClock, nextSpeed, waveformBars } from "~/lib/voice-note";

describe("a voice note's player", () => {
  it("shows its clock as m:ss", () => {
    expect(formatClock(0)).toBe("0:00");
    expect(formatClock(7.9)).toBe("0:07");
    expect(formatClock(60)).toBe("1:00");
    expect(formatClock(Number.POSITIVE_INFINITY)).toBe("0:00");
    expect(formatClock(Number.NaN)).toBe("0:00");
  });

  it("cycles 1×, 1.5×, 2×", () => {
    expect(nextSpeed(1)).toBe(1.5);
    expect(nextSpeed(1.5)).toBe(2);
    expect(nextSpeed(2)).toBe(1);
  });

  it("draws the loudest sample of each slice, the loudest bar full", () => {
    const samples = new Float32Array(64);
    samples[5] = 0.5;
    samples[40] = -0.25;
    const bars = waveformBars(samples, 4);
    expect(bars).toEqual([1, 0, 0.5, 0]);
    // Silence stays flat.
    expect(waveformBars(new Float32Array(64).fill(0.001), 4)).toEqual([0, 0, 0, 0]);
    // Fewer samples than bars still gives every bar.
    expect(waveformBars(new Float32Array([0.2, 0.4]), 4)).toHaveLength(4);
  });
});
