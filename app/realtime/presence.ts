import { z } from "zod";

/**
 * Frames of the global presence room (`/ws/presence`, API.md "Realtime"), parsed by the room's
 * tests and the client alike.
 *
 * - `here`: on join, the online members the socket may see (hidden members and members on either
 *   side of a block never appear).
 * - `joining` / `leaving`: one member came or went (a member with several tabs joins once and
 *   leaves when the last tab closes, after a short grace).
 * - `presence`: several members came and went within one fan-out window (docs/decisions/004);
 *   apply it as the `joining` and `leaving` frames it stands for, in that order.
 * - `pong`: the answer to the keepalive `{"type":"ping"}`.
 */
export const presenceServerFrame = z.discriminatedUnion("type", [
  z.object({ type: z.literal("here"), users: z.array(z.string()) }),
  z.object({ type: z.literal("joining"), user_id: z.string() }),
  z.object({ type: z.literal("leaving"), user_id: z.string() }),
  z.object({
    type: z.literal("presence"),
    joining: z.array(z.string()),
    leaving: z.array(z.string()),
  }),
  z.object({ type: z.literal("pong") }),
]);
export type PresenceServerFrame = z.infer<typeof presenceServerFrame>;

/** The keepalive ping, answered by the room without waking it (an exact-text auto-response). */
export const PING_FRAME = '{"type":"ping"}';
export const PONG_FRAME = '{"type":"pong"}';

export function parsePresenceServerFrame(raw: string): PresenceServerFrame | null {
  try {
    const result = presenceServerFrame.safeParse(JSON.parse(raw));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}

/** The frame that announces a set of changes: one `joining`/`leaving`, or a `presence` batch. */
export function presenceChangeFrame(
  joining: string[],
  leaving: string[],
): PresenceServerFrame | null {
  if (joining.length + leaving.length === 0) return null;
  if (joining.length === 1 && leaving.length === 0)
    return { type: "joining", user_id: joining[0]! };
  if (leaving.length === 1 && joining.length === 0)
    return { type: "leaving", user_id: leaving[0]! };
  return { type: "presence", joining, leaving };
}
