import type { z } from "~/schemas/zod";

/**
 * Reading a socket frame, one way for every channel (chat, member, presence) on both ends: the
 * rooms parse what clients send with the channel's zod union; the pages read what the rooms send
 * with a guard written beside that union (`guardFrame`), so that a page that never validates a
 * form loads no zod. Each guard's checks are typed by its union's frame types, and
 * tests/unit/frame-guards.test.ts holds every guard to its union on the same frames.
 */

/** The JSON a frame carries: undefined when it is not text or not JSON. */
export function frameJson(raw: unknown): unknown {
  if (typeof raw !== "string") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** The frame of `schema` that `raw` carries, or null when it carries none. */
export function parseFrame<T>(schema: z.ZodType<T>, raw: unknown): T | null {
  const result = schema.safeParse(frameJson(raw));
  return result.success ? result.data : null;
}

/** The checks of a guard: one per frame type of the union `F`, given the frame's object. */
export type FrameChecks<F extends { type: string }> = {
  [K in F["type"]]: (frame: Record<string, unknown>) => boolean;
};

/** The frame of the union that `raw` carries (as `checks` accept it), or null. */
export function guardFrame<F extends { type: string }>(
  checks: FrameChecks<F>,
  raw: unknown,
): F | null {
  const json = frameJson(raw);
  if (!isObject(json) || typeof json.type !== "string" || !Object.hasOwn(checks, json.type)) {
    return null;
  }
  return checks[json.type as F["type"]](json) ? (json as F) : null;
}

/** A JSON object (zod's z.object and z.record): not null, not an array. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const isString = (value: unknown): value is string => typeof value === "string";

/** zod's z.number().int() (a safe integer), at least `min`. */
export const isInt = (value: unknown, min = Number.MIN_SAFE_INTEGER): value is number =>
  Number.isSafeInteger(value) && (value as number) >= min;

export const isStringOrNull = (value: unknown): value is string | null =>
  value === null || isString(value);

export const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every(isString);
