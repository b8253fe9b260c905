/**
 * Waiting, for the tests (in workerd and in Node), the benchmarks and the scripts: one pause and
 * one poll. A pause proves nothing about what did not happen; wait for something that did.
 */

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface EventuallyOptions {
  /** How long to keep asking (ms). */
  timeoutMs?: number;
  /** The pause between two asks (ms). */
  intervalMs?: number;
  /** What is awaited, for the error: "timed out … waiting for <what>". */
  what?: string;
  /** More to say in the error (e.g. the frames received so far). */
  detail?: () => string;
}

/**
 * Asks `probe` until it answers something other than `undefined` or `false`, and resolves with
 * that answer; rejects after `timeoutMs`. A probe that throws is asked again; its last error is
 * part of the rejection.
 */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  { timeoutMs = 5000, intervalMs = 25, what = "condition", detail }: EventuallyOptions = {},
): Promise<Exclude<T, undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : "";
      const more = detail ? `; ${detail()}` : "";
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}${more}`);
    }
    await sleep(intervalMs);
  }
}
