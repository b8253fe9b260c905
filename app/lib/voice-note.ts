/**
 * The voice note's pure parts: its clock, its speeds and its waveform (tests/unit/voice-note-ui.test.ts).
 */

/** The playback speeds a voice note cycles through, as in the messaging apps members know. */
export const PLAYBACK_SPEEDS = [1, 1.5, 2] as const;
export type PlaybackSpeed = (typeof PLAYBACK_SPEEDS)[number];

export function nextSpeed(speed: PlaybackSpeed): PlaybackSpeed {
  const i = PLAYBACK_SPEEDS.indexOf(speed);
  return PLAYBACK_SPEEDS[(i + 1) % PLAYBACK_SPEEDS.length]!;
}

/** Seconds as m:ss (a voice note is at most a minute; a recording's clock the same). */
export function formatClock(seconds: number): string {
  const whole = Number.isFinite(seconds) && seconds > 0 ? Math.floor(seconds) : 0;
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/**
 * The waveform of decoded samples: `count` bars, each the loudest sample of its slice, scaled so
 * that the loudest bar is 1 (silence stays flat, not blown up to full height).
 */
export function waveformBars(samples: Float32Array, count = 32): number[] {
  const bars: number[] = [];
  const size = Math.max(1, Math.floor(samples.length / count));
  for (let b = 0; b < count; b++) {
    let peak = 0;
    const end = Math.min(samples.length, (b + 1) * size);
    for (let i = b * size; i < end; i++) {
      const v = Math.abs(samples[i]!);
      if (v > peak) peak = v;
    }
    bars.push(peak);
  }
  const loudest = Math.max(...bars);
  if (loudest < 0.01) return bars.map(() => 0);
  return bars.map((v) => Math.round((v / loudest) * 100) / 100);
}
