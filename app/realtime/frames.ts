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

/**
 * Every socket (chat, member channel, presence) may send at most this many frames in any window of
 * this many seconds (keepalive pings the runtime answers by itself are not counted); past it the
 * room closes the socket with FRAME_FLOOD_CLOSE and hears nothing more from it
 * (docs/decisions/021). The app's own pages send a few frames a second at most (typing is
 * throttled to one per 2 s, an outbox flush after a reconnect sends up to its queue).
 */
export const SOCKET_FRAME_LIMIT = { max: 120, windowSeconds: 10 } as const;

/** The close code of a socket that sent more than SOCKET_FRAME_LIMIT frames. */
export const FRAME_FLOOD_CLOSE = 4429;

/** The most message ids one `received` frame (chat socket or member channel) may acknowledge. */
export const RECEIVED_IDS_MAX = 100;
