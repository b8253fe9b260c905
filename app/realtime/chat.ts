import { reactionSchema } from "~/schemas/chat";
import { isSafetyKind, safetyNote } from "~/schemas/message-safety";
import { z } from "~/schemas/zod";
import {
  guardFrame,
  isInt,
  isObject,
  isString,
  isStringList,
  isStringOrNull,
  frameJson,
  RECEIVED_IDS_MAX,
  type FrameChecks,
} from "./frames";

/**
 * The socket protocol of a conversation's room (`/ws/chat/{conversationId}`, docs/realtime.md
 * "Conversation room"): one discriminated union each way, parsed by the room and the client alike.
 */

export const giftView = z.object({
  id: z.string(),
  name: z.string(),
  icon: z.string(),
  price_credits: z.number().int(),
});

/**
 * A photo or voice note (docs/api.md "Chat: reactions, delivery, photos, voice, calls"). `url`
 * opens it for the two members only while neither has blocked the other; it is null once a
 * view-once photo was opened (gone for both).
 */
export const attachmentView = z.object({
  kind: z.enum(["photo", "voice"]),
  url: z.string().nullable(),
  content_type: z.string(),
  size: z.number().int().nonnegative(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  duration_ms: z.number().int().positive().optional(),
  view_once: z.boolean(),
  /** When a view-once photo was opened by its recipient, or null. */
  opened_at: z.string().nullable(),
});
export type AttachmentView = z.infer<typeof attachmentView>;

/** The signalling actions of a call, as the room relays them. */
export const CALL_ACTIONS = [
  "ring",
  "accept",
  "decline",
  "end",
  "offer",
  "answer",
  "candidate",
] as const;
export type CallAction = (typeof CALL_ACTIONS)[number];
/**
 * A ring nobody answers is missed after this long: the room ends it then, the caller's page gives
 * up, and a ring's push notification is taken off the screen after it (docs/decisions/039).
 */
export const RING_TIMEOUT_MS = 45_000;
/** The largest `data` of a call frame (an SDP offer with both media is a few KB). */
export const CALL_DATA_MAX_CHARS = 16_000;

/** A call's line in the conversation: who called, voice or video, how it went and how long. */
export const callLine = z.object({
  caller_id: z.string(),
  kind: z.enum(["voice", "video"]),
  outcome: z.enum(["completed", "missed", "declined"]),
  duration_ms: z.number().int().nonnegative(),
});
export type CallLine = z.infer<typeof callLine>;

/**
 * The Message of docs/api.md "Chat", plus `seq` (the conversation's order: the client sorts by it
 * and catches up with `after=`) and `client_id` (the sender's idempotency key, so an optimistic
 * message can be matched with the stored one).
 */
export const chatMessage = z.object({
  id: z.string(),
  conversation_id: z.string(),
  seq: z.number().int().positive(),
  sender_id: z.string(),
  client_id: z.string().nullable(),
  message: z.string(),
  sent_at: z.string(),
  read_at: z.string().nullable(),
  gift: giftView.nullable(),
  /** One emoji per member at most (docs/api.md "Chat: reactions, delivery…"), oldest first. */
  reactions: z.array(z.object({ user_id: z.string(), emoji: z.string() })),
  /** When a device of the recipient first received it (its client acknowledged it), or null. */
  delivered_at: z.string().nullable(),
  /** A photo or voice note; null for text and gifts. */
  attachment: attachmentView.nullable(),
  /**
   * For the recipient only: what the room's safety rules saw in it (docs/api.md "Message safety").
   */
  safety: safetyNote.optional(),
  /** A call's line (who called, how long); absent on every other message. */
  call: callLine.optional(),
});
export type ChatMessageView = z.infer<typeof chatMessage>;

export const chatServerFrame = z.discriminatedUnion("type", [
  z.object({ type: z.literal("message"), message: chatMessage }),
  z.object({ type: z.literal("message_deleted"), id: z.string(), conversation_id: z.string() }),
  /** `user_id` has read every message of the conversation up to `seq`. */
  z.object({
    type: z.literal("read"),
    conversation_id: z.string(),
    user_id: z.string(),
    read_at: z.string(),
    seq: z.number().int().nonnegative(),
  }),
  z.object({ type: z.literal("typing"), user_id: z.string() }),
  /** `user_id` reacted to a message with `emoji`, or took their reaction back (`emoji` null). */
  z.object({
    type: z.literal("reaction"),
    conversation_id: z.string(),
    message_id: z.string(),
    user_id: z.string(),
    emoji: z.string().nullable(),
  }),
  /** The recipient opened a view-once photo: it is gone for both. */
  z.object({
    type: z.literal("attachment_opened"),
    conversation_id: z.string(),
    message_id: z.string(),
    opened_at: z.string(),
  }),
  /** A device of the recipient received these messages of the sender's (to the sender only). */
  z.object({
    type: z.literal("delivered"),
    conversation_id: z.string(),
    ids: z.array(z.string()),
    delivered_at: z.string(),
  }),
  /** A message sent over this socket was refused: the status and message of the HTTP API. */
  z.object({
    type: z.literal("send_error"),
    client_id: z.string(),
    status: z.number().int(),
    message: z.string(),
    retry_after: z.number().int().nullable().optional(),
    /** A 409 "Are you sure?": send again with `confirm: true` to store it. */
    safety: safetyNote.optional(),
  }),
  /**
   * A call's signalling, relayed from `user_id` (docs/api.md "Calls"): `ring` carries `data:
   * {video}`; `offer`, `answer` and `candidate` carry WebRTC's own `data`.
   */
  z.object({
    type: z.literal("call"),
    call_id: z.string(),
    action: z.enum(CALL_ACTIONS),
    user_id: z.string(),
    data: z.unknown().optional(),
  }),
  /** A `call` frame from this socket was refused. */
  z.object({
    type: z.literal("call_error"),
    call_id: z.string(),
    status: z.number().int(),
    message: z.string(),
  }),
  /** A `react` over this socket was refused: the status and message of the HTTP API. */
  z.object({
    type: z.literal("react_error"),
    message_id: z.string(),
    status: z.number().int(),
    message: z.string(),
  }),
  z.object({ type: z.literal("pong") }),
]);
export type ChatServerFrame = z.infer<typeof chatServerFrame>;

export const chatClientFrame = z.discriminatedUnion("type", [
  z.object({ type: z.literal("typing") }),
  z.object({ type: z.literal("ping") }),
  /** The member has read the conversation (as `POST …/read`). */
  z.object({ type: z.literal("read") }),
  /**
   * This device received the other member's messages `ids` (live frames): the room stamps their
   * `delivered_at` once and tells the sender. At most RECEIVED_IDS_MAX ids a frame.
   */
  z.object({
    type: z.literal("received"),
    ids: z.array(z.string().max(64)).min(1).max(RECEIVED_IDS_MAX),
  }),
  /**
   * Sets (`emoji`) or takes back (null) the member's reaction to a message, as `PUT`/`DELETE
   * /chat/messages/{id}/reaction`: the room answers with the `reaction` frame (to this socket
   * alone when nothing changed) or `react_error`.
   */
  z.object({
    type: z.literal("react"),
    message_id: z.string().min(1).max(128),
    emoji: reactionSchema.shape.emoji.nullable(),
  }),
  /**
   * A call's signalling (docs/api.md "Calls"): relayed to the other member's sockets and nothing
   * else; a refusal comes back as `call_error`.
   */
  z.object({
    type: z.literal("call"),
    call_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    action: z.string().max(32),
    data: z.unknown().optional(),
  }),
  /**
   * Sends a message over the open socket instead of `POST …/messages`: the same rules, the same
   * idempotency by client id (required here). The stored message comes back as the `message`
   * frame every socket of the conversation receives (to this socket alone when the client id was
   * already used); a refusal comes back as `send_error`.
   */
  z.object({
    type: z.literal("send"),
    client_id: z.string(),
    message: z.string().optional(),
    gift_id: z.string().optional(),
    confirm: z.boolean().optional(),
  }),
]);
export type ChatClientFrame = z.infer<typeof chatClientFrame>;

/**
 * The room closes every socket with this code when the conversation may no longer be used (one
 * member blocked the other, an unmatch, a suspension), and the Worker closes a browser's socket it
 * refused with it (docs/realtime.md "Authentication"); a client must not reconnect after it.
 */
export const CHAT_CLOSE_FORBIDDEN = 4403;
/** The reason a conversation's socket is closed with (CHAT_CLOSE_FORBIDDEN): what the page says. */
export const CHAT_CLOSED_REASON = "This conversation is no longer available.";

/** A member's typing frames reach the other member at most this often. */
export const TYPING_THROTTLE_MS = 2000;
/** How long a client shows "typing…" after the last typing frame. */
export const TYPING_DISPLAY_MS = 4000;

const isGift = (gift: unknown) =>
  isObject(gift) &&
  isString(gift.id) &&
  isString(gift.name) &&
  isString(gift.icon) &&
  isInt(gift.price_credits);

const isSafety = (s: unknown) => isObject(s) && isSafetyKind(s.kind) && isString(s.note);

const isOptionalInt = (value: unknown) => value === undefined || isInt(value, 1);

const isAttachment = (a: unknown) =>
  isObject(a) &&
  (a.kind === "photo" || a.kind === "voice") &&
  isStringOrNull(a.url) &&
  isString(a.content_type) &&
  isInt(a.size, 0) &&
  isOptionalInt(a.width) &&
  isOptionalInt(a.height) &&
  isOptionalInt(a.duration_ms) &&
  typeof a.view_once === "boolean" &&
  isStringOrNull(a.opened_at);

const isCallLine = (c: unknown) =>
  isObject(c) &&
  isString(c.caller_id) &&
  (c.kind === "voice" || c.kind === "video") &&
  (c.outcome === "completed" || c.outcome === "missed" || c.outcome === "declined") &&
  isInt(c.duration_ms, 0);

const isChatMessage = (m: unknown) =>
  isObject(m) &&
  isString(m.id) &&
  isString(m.conversation_id) &&
  isInt(m.seq, 1) &&
  isString(m.sender_id) &&
  isStringOrNull(m.client_id) &&
  isString(m.message) &&
  isString(m.sent_at) &&
  isStringOrNull(m.read_at) &&
  (m.gift === null || isGift(m.gift)) &&
  Array.isArray(m.reactions) &&
  m.reactions.every((r) => isObject(r) && isString(r.user_id) && isString(r.emoji)) &&
  isStringOrNull(m.delivered_at) &&
  (m.attachment === null || isAttachment(m.attachment)) &&
  (m.safety === undefined || isSafety(m.safety)) &&
  (m.call === undefined || isCallLine(m.call));

/** `chatServerFrame`, checked without zod (the pages' side: app/realtime/frames.ts). */
const chatServerChecks: FrameChecks<ChatServerFrame> = {
  message: (f) => isChatMessage(f.message),
  message_deleted: (f) => isString(f.id) && isString(f.conversation_id),
  read: (f) =>
    isString(f.conversation_id) && isString(f.user_id) && isString(f.read_at) && isInt(f.seq, 0),
  typing: (f) => isString(f.user_id),
  reaction: (f) =>
    isString(f.conversation_id) &&
    isString(f.message_id) &&
    isString(f.user_id) &&
    isStringOrNull(f.emoji),
  delivered: (f) => isString(f.conversation_id) && isStringList(f.ids) && isString(f.delivered_at),
  attachment_opened: (f) =>
    isString(f.conversation_id) && isString(f.message_id) && isString(f.opened_at),
  send_error: (f) =>
    isString(f.client_id) &&
    isInt(f.status) &&
    isString(f.message) &&
    (f.retry_after === undefined || f.retry_after === null || isInt(f.retry_after)) &&
    (f.safety === undefined || isSafety(f.safety)),
  react_error: (f) => isString(f.message_id) && isInt(f.status) && isString(f.message),
  call: (f) =>
    isString(f.call_id) &&
    (CALL_ACTIONS as readonly unknown[]).includes(f.action) &&
    isString(f.user_id),
  call_error: (f) => isString(f.call_id) && isInt(f.status) && isString(f.message),
  pong: () => true,
};

export const parseChatServerFrame = (raw: unknown) =>
  guardFrame<ChatServerFrame>(chatServerChecks, raw);
export type SendFrame = Extract<ChatClientFrame, { type: "send" }>;
export type ReactFrame = Extract<ChatClientFrame, { type: "react" }>;
export type CallClientFrame = Extract<ChatClientFrame, { type: "call" }>;
export type CallServerFrame = Extract<ChatServerFrame, { type: "call" }>;
type ReceivedFrame = Extract<ChatClientFrame, { type: "received" }>;

/** `chatClientFrame`'s `received`, checked by hand: the room hears one for every message. */
const isReceived = (f: Record<string, unknown>): boolean =>
  Array.isArray(f.ids) &&
  f.ids.length >= 1 &&
  f.ids.length <= RECEIVED_IDS_MAX &&
  f.ids.every((id) => isString(id) && id.length <= 64);

/** A client frame the room heard, or null (`received`, the most frequent, without zod). */
export function parseChatClientFrame(raw: unknown): ChatClientFrame | null {
  const json = frameJson(raw);
  if (isObject(json) && json.type === "received") {
    return isReceived(json) ? ({ type: "received", ids: json.ids } as ReceivedFrame) : null;
  }
  const result = chatClientFrame.safeParse(json);
  return result.success ? result.data : null;
}
