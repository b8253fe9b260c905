import { z } from "~/schemas/zod";
import { frameJson, guardFrame, isInt, isString, isStringList, type FrameChecks } from "./frames";

/**
 * Frames of the presence room (`/ws/presence`, docs/realtime.md "Presence room"), parsed by the
 * room and the client alike. Presence is scoped to whom a page shows (docs/decisions/011):
 *
 * Client → room:
 * - `watch`: the members this page shows (at most PRESENCE_WATCH_LIMIT); each one replaces the
 *   set. Before any, the set is the member's contacts (matches and conversation partners).
 * - `ping`: the keepalive, answered with `pong` (without waking the room when sent exactly as
 *   PING_FRAME).
 *
 * Room → client:
 * - `here`: the watched members online now, after every `watch` (and on connecting, for the
 *   contacts). Hidden members and members on either side of a block never appear.
 * - `joining` / `leaving`: a watched member came or went (a member with several tabs joins once
 *   and leaves when the last tab closes, after a short grace).
 * - `online_count`: how many members are online, on connecting and then at most every 30 s.
 * - `error`: a frame broke the rules; nothing changed.
 * - `pong`: the answer to a ping.
 */
export const PRESENCE_WATCH_LIMIT = 500;
/** A member id as the room accepts it (ids are short random strings). */
const memberId = z.string().min(1).max(64);

export const presenceClientFrame = z.discriminatedUnion("type", [
  z.object({ type: z.literal("watch"), user_ids: z.array(memberId) }),
  z.object({ type: z.literal("ping") }),
]);
export type PresenceClientFrame = z.infer<typeof presenceClientFrame>;

export const presenceServerFrame = z.discriminatedUnion("type", [
  z.object({ type: z.literal("here"), users: z.array(z.string()) }),
  z.object({ type: z.literal("joining"), user_id: z.string() }),
  z.object({ type: z.literal("leaving"), user_id: z.string() }),
  z.object({ type: z.literal("online_count"), count: z.number().int().nonnegative() }),
  z.object({ type: z.literal("error"), message: z.string() }),
  z.object({ type: z.literal("pong") }),
]);
export type PresenceServerFrame = z.infer<typeof presenceServerFrame>;

/** The keepalive ping, answered by the room without waking it (an exact-text auto-response). */
export const PING_FRAME = '{"type":"ping"}';
export const PONG_FRAME = '{"type":"pong"}';

/**
 * What the room answers a frame that breaks the rules (docs/realtime.md "Presence room": it changes
 * nothing).
 */
export const PRESENCE_ERRORS = {
  malformed: "Frames must be JSON objects with a known type.",
  watch: "A watch frame needs user_ids: a list of member ids.",
  tooMany: `At most ${PRESENCE_WATCH_LIMIT} members can be watched.`,
} as const;

/** `presenceServerFrame`, checked without zod (the pages' side: app/realtime/frames.ts). */
const presenceServerChecks: FrameChecks<PresenceServerFrame> = {
  here: (f) => isStringList(f.users),
  joining: (f) => isString(f.user_id),
  leaving: (f) => isString(f.user_id),
  online_count: (f) => isInt(f.count, 0),
  error: (f) => isString(f.message),
  pong: () => true,
};

export const parsePresenceServerFrame = (raw: string) =>
  guardFrame<PresenceServerFrame>(presenceServerChecks, raw);

/**
 * A client frame, or the error message to answer it with. Ids of a watch are de-duplicated; more
 * than PRESENCE_WATCH_LIMIT distinct ids is an error.
 */
export function parsePresenceClientFrame(
  raw: string,
): { frame: PresenceClientFrame } | { error: string } {
  const json = frameJson(raw);
  const result = presenceClientFrame.safeParse(json);
  if (!result.success) {
    const type = (json as { type?: unknown } | null)?.type;
    return { error: type === "watch" ? PRESENCE_ERRORS.watch : PRESENCE_ERRORS.malformed };
  }
  const frame = result.data;
  if (frame.type === "watch") {
    const ids = [...new Set(frame.user_ids)];
    if (ids.length > PRESENCE_WATCH_LIMIT) return { error: PRESENCE_ERRORS.tooMany };
    return { frame: { type: "watch", user_ids: ids } };
  }
  return { frame };
}
