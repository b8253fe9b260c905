/**
 * docs/domain.md "Limits and constants": the bar appears after 250 ms of navigation and trickles
 * every 200 ms.
 */
export const PROGRESS_DELAY_MS = 250;
export const PROGRESS_TRICKLE_MS = 200;

/** One trickle step: quick at first, slowing as it nears the end, never reaching 100 %. */
export function trickle(progress: number): number {
  if (progress >= 0.994) return progress;
  const step = progress < 0.2 ? 0.1 : progress < 0.5 ? 0.04 : progress < 0.8 ? 0.02 : 0.005;
  return Math.min(0.994, progress + step);
}
