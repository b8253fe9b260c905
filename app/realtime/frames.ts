import type { z } from "~/schemas/zod";

/**
 * Reading a socket frame, one way for every channel (chat, member, presence) on both ends: the
 * rooms parse what clients send, the clients what the rooms send, each with its channel's union.
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
