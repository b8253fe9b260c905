import { describe, expect, it } from "vitest";
import type { z } from "~/schemas/zod";
import {
  chatClientFrame,
  chatServerFrame,
  parseChatClientFrame,
  parseChatServerFrame,
} from "~/realtime/chat";
import { memberServerFrame, parseMemberServerFrame } from "~/realtime/member";
import { parsePresenceServerFrame, presenceServerFrame } from "~/realtime/presence";

/**
 * The pages read server frames with hand-written guards (app/realtime/frames.ts), the server's
 * zod unions define them: every sample frame, and every frame made from one by dropping a field
 * or giving it a value of another kind, must be accepted by both or refused by both, and an
 * accepted frame must read the same.
 */

type Json = Record<string, unknown>;

const message = {
  id: "m1",
  conversation_id: "c1",
  seq: 3,
  sender_id: "u1",
  client_id: "k1",
  message: "Hello",
  sent_at: "2026-11-24T08:00:00.000Z",
  read_at: null,
  gift: null,
  reactions: [],
  delivered_at: null,
  attachment: null,
};

const CHAT: Json[] = [
  { type: "message", message },
  { type: "message", message: { ...message, client_id: null, read_at: "2026-11-24T08:01:00Z" } },
  {
    type: "message",
    message: { ...message, gift: { id: "g1", name: "Rose", icon: "🌹", price_credits: 5 } },
  },
  { type: "message_deleted", id: "m1", conversation_id: "c1" },
  { type: "read", conversation_id: "c1", user_id: "u2", read_at: "2026-11-24T08:02:00Z", seq: 0 },
  { type: "typing", user_id: "u2" },
  {
    type: "message",
    message: {
      ...message,
      reactions: [{ user_id: "u2", emoji: "❤️" }],
      delivered_at: "2026-11-24T08:01:00Z",
    },
  },
  { type: "reaction", conversation_id: "c1", message_id: "m1", user_id: "u2", emoji: "🔥" },
  { type: "reaction", conversation_id: "c1", message_id: "m1", user_id: "u2", emoji: null },
  { type: "delivered", conversation_id: "c1", ids: ["m1"], delivered_at: "2026-11-24T08:01:00Z" },
  { type: "react_error", message_id: "m1", status: 404, message: "Message not found." },
  { type: "send_error", client_id: "k1", status: 429, message: "Slow down", retry_after: 30 },
  { type: "send_error", client_id: "k1", status: 403, message: "Blocked", retry_after: null },
  { type: "send_error", client_id: "k1", status: 422, message: "Too long" },
  { type: "pong" },
];

const notification = {
  id: "n1",
  type: "like",
  data: { actor: { id: "u2", username: "maya" } },
  read_at: null,
  created_at: "2026-11-24T08:00:00Z",
};

const MEMBER: Json[] = [
  { type: "notification", notification, unread_count: 2 },
  {
    type: "notification",
    notification: { ...notification, type: "gift", data: {} },
    unread_count: 0,
  },
  { type: "notifications_read", ids: ["n1", "n2"], unread_count: 0 },
  { type: "notifications_read", ids: null, unread_count: 4 },
  {
    type: "conversation",
    conversation_id: "c1",
    last_message: "Hi",
    last_message_time: "2026-11-24T08:00:00Z",
    unread_count: 1,
    unread_total: 3,
    message: { id: "m1", sender_id: "u2", message: "Hi", sent_at: "2026-11-24T08:00:00Z" },
  },
  {
    type: "conversation",
    conversation_id: "c1",
    last_message: null,
    last_message_time: null,
    unread_count: 0,
    message: null,
  },
  {
    type: "conversation",
    conversation_id: "c1",
    last_message: null,
    last_message_time: null,
    unread_count: 0,
  },
  { type: "pong" },
];

const PRESENCE: Json[] = [
  { type: "here", users: ["u1", "u2"] },
  { type: "here", users: [] },
  { type: "joining", user_id: "u1" },
  { type: "leaving", user_id: "u1" },
  { type: "online_count", count: 12 },
  { type: "error", message: "Frames must be JSON objects with a known type." },
  { type: "pong" },
];

/** Values of every JSON kind, and numbers zod's int checks care about. */
const REPLACEMENTS: unknown[] = [
  null,
  "",
  "x",
  0,
  -1,
  1.5,
  2 ** 53,
  true,
  [],
  ["a"],
  [1],
  {},
  { id: "x" },
];

/** The sample, then every frame one change away from it, at any depth (but `type`'s value). */
function variants(value: unknown): unknown[] {
  const out: unknown[] = [value];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return out;
  const object = value as Json;
  for (const key of Object.keys(object)) {
    const { [key]: dropped, ...rest } = object;
    out.push(rest);
    for (const other of REPLACEMENTS) out.push({ ...object, [key]: other });
    for (const inner of variants(dropped).slice(1)) out.push({ ...object, [key]: inner });
  }
  out.push({ ...object, extra: "ignored" });
  return out;
}

const ODD_FRAMES: unknown[] = [
  null,
  [],
  "pong",
  42,
  {},
  { type: "unknown" },
  { type: 1 },
  { type: "toString" },
  { type: "constructor" },
];

function agree(
  name: string,
  schema: z.ZodType,
  guard: (raw: string) => unknown,
  samples: Json[],
): void {
  describe(name, () => {
    it("accepts every sample frame", () => {
      for (const sample of samples) expect(guard(JSON.stringify(sample))).not.toBeNull();
    });

    it("accepts and refuses exactly what the server's union does", () => {
      let refused = 0;
      const frames = [...samples.flatMap(variants), ...ODD_FRAMES];
      for (const frame of frames) {
        const text = JSON.stringify(frame);
        const zod = schema.safeParse(JSON.parse(text));
        const read = guard(text);
        expect({ frame, accepted: read !== null }).toEqual({ frame, accepted: zod.success });
        if (zod.success) expect(read).toMatchObject(zod.data as object);
        else refused++;
      }
      // The variants do try the guard: most of them break a rule.
      expect(refused).toBeGreaterThan(frames.length / 2);
    });

    it("refuses what is not JSON", () => {
      expect(guard("{not json")).toBeNull();
      expect(guard("")).toBeNull();
    });
  });
}

agree("chat room → page frames", chatServerFrame, parseChatServerFrame, CHAT);
agree("member channel → page frames", memberServerFrame, parseMemberServerFrame, MEMBER);
agree("presence room → page frames", presenceServerFrame, parsePresenceServerFrame, PRESENCE);

// The room reads `received` (one for every message) by hand, the other client frames with zod.
agree("page → chat room frames", chatClientFrame, (raw: string) => parseChatClientFrame(raw), [
  { type: "received", ids: ["m1"] },
  { type: "received", ids: ["m1", "m2", "x".repeat(64)] },
  { type: "received", ids: Array.from({ length: 100 }, (_, i) => `m${i}`) },
  { type: "send", client_id: "k1", message: "hi" },
  { type: "typing" },
  { type: "read" },
]);

describe("a received frame", () => {
  it("is refused beyond its limits, as the union refuses it", () => {
    for (const ids of [[], ["x".repeat(65)], Array.from({ length: 101 }, (_, i) => `m${i}`), [5]]) {
      const text = JSON.stringify({ type: "received", ids });
      expect(parseChatClientFrame(text)).toBeNull();
      expect(chatClientFrame.safeParse(JSON.parse(text)).success).toBe(false);
    }
    expect(parseChatClientFrame(JSON.stringify({ type: "received", ids: ["a"], x: 1 }))).toEqual({
      type: "received",
      ids: ["a"],
    });
  });
});
