import { z } from "~/schemas/zod";
import { NOTIFICATION_KINDS } from "~/schemas/notification-types";
import {
  guardFrame,
  isInt,
  isObject,
  isString,
  isStringList,
  isStringOrNull,
  RECEIVED_IDS_MAX,
  type FrameChecks,
} from "./frames";

/**
 * The server closes a member's sockets with this code when their sessions end (signing out, a
 * password change or reset, a suspension): a page reconnects, and only one still signed in gets
 * back in.
 */
export const SESSION_ENDED_CLOSE = 4401;

/**
 * Frames of a member's own channel (`/ws/me`): what a member learns in real time on any page
 * without holding one socket per conversation. Parsed by the hub and the client alike.
 */
export const notificationFrame = z.object({
  type: z.literal("notification"),
  notification: z.object({
    id: z.string(),
    type: z.enum(NOTIFICATION_KINDS),
    data: z.record(z.string(), z.unknown()),
    read_at: z.string().nullable(),
    created_at: z.string(),
  }),
  unread_count: z.number().int().nonnegative(),
  /** The rows the unread notifications make on the notifications page (the bell's number). */
  unread_groups: z.number().int().nonnegative().optional(),
});

/** A conversation of this member changed (a new message, a deletion, a read receipt). */
export const conversationFrame = z.object({
  type: z.literal("conversation"),
  conversation_id: z.string(),
  last_message: z.string().nullable(),
  last_message_time: z.string().nullable(),
  unread_count: z.number().int().nonnegative(),
  /** The member's unread messages over all their active conversations (the header badge). */
  unread_total: z.number().int().nonnegative().optional(),
  /** The message that caused the update, when there is one (so a list can show it at once). */
  message: z
    .object({ id: z.string(), sender_id: z.string(), message: z.string(), sent_at: z.string() })
    .nullable()
    .optional(),
});

/** Notifications were read on another page (`ids` null: all of them); badges follow. */
export const notificationsReadFrame = z.object({
  type: z.literal("notifications_read"),
  ids: z.array(z.string()).nullable(),
  unread_count: z.number().int().nonnegative(),
  unread_groups: z.number().int().nonnegative().optional(),
});

export type ConversationFrame = z.infer<typeof conversationFrame>;

/**
 * A call for this member is ringing (`ringing`), or no longer is (answered, declined, ended, on
 * any of their pages): every page shows it, and opening the conversation answers it there.
 */
export const callRingFrame = z.object({
  type: z.literal("call"),
  conversation_id: z.string(),
  call_id: z.string(),
  /** Who calls. */
  user_id: z.string(),
  video: z.boolean(),
  ringing: z.boolean(),
  /**
   * With `ringing: false`: the call rang out unanswered (the caller hung up or gave up, or a
   * member's last page there closed). Absent when it was answered or declined, or when the
   * conversation closed (a block, an unmatch, a suspension).
   */
  missed: z.boolean().optional(),
  /**
   * With `ringing: false`: the member answered (`accepted`) or declined it on one of their pages.
   * A browser that was rung by push while away replaces that ring with a quiet notice.
   */
  answered: z.enum(["accepted", "declined"]).optional(),
});
export type CallRingFrame = z.infer<typeof callRingFrame>;

/**
 * The first frame of every member channel socket: how many times the member's bell has changed
 * (a notification, notifications read) since their hub began counting. A page that heard every
 * change since its last load of the notifications need not load them again (app/realtime/bell.ts).
 */
export const helloFrame = z.object({
  type: z.literal("hello"),
  bell: z.number().int().nonnegative(),
});

export const memberServerFrame = z.discriminatedUnion("type", [
  helloFrame,
  notificationFrame,
  notificationsReadFrame,
  conversationFrame,
  callRingFrame,
  z.object({ type: z.literal("pong") }),
]);
export type MemberServerFrame = z.infer<typeof memberServerFrame>;

/**
 * The client pings on this channel, and acknowledges the other member's new messages it learnt of
 * here while their conversation is not open (`received`: as on the conversation socket).
 */
export const memberClientFrame = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ping") }),
  z.object({
    type: z.literal("received"),
    conversation_id: z.string().min(1).max(64),
    ids: z.array(z.string().max(64)).min(1).max(RECEIVED_IDS_MAX),
  }),
]);
export type MemberClientFrame = z.infer<typeof memberClientFrame>;

const isNotification = (n: unknown) =>
  isObject(n) &&
  isString(n.id) &&
  (NOTIFICATION_KINDS as readonly unknown[]).includes(n.type) &&
  isObject(n.data) &&
  isStringOrNull(n.read_at) &&
  isString(n.created_at);

const isMessageSummary = (m: unknown) =>
  isObject(m) &&
  isString(m.id) &&
  isString(m.sender_id) &&
  isString(m.message) &&
  isString(m.sent_at);

/** `memberServerFrame`, checked without zod (the pages' side: app/realtime/frames.ts). */
const memberServerChecks: FrameChecks<MemberServerFrame> = {
  hello: (f) => isInt(f.bell, 0),
  notification: (f) =>
    isNotification(f.notification) &&
    isInt(f.unread_count, 0) &&
    (f.unread_groups === undefined || isInt(f.unread_groups, 0)),
  notifications_read: (f) =>
    (f.ids === null || isStringList(f.ids)) &&
    isInt(f.unread_count, 0) &&
    (f.unread_groups === undefined || isInt(f.unread_groups, 0)),
  conversation: (f) =>
    isString(f.conversation_id) &&
    isStringOrNull(f.last_message) &&
    isStringOrNull(f.last_message_time) &&
    isInt(f.unread_count, 0) &&
    (f.unread_total === undefined || isInt(f.unread_total, 0)) &&
    (f.message === undefined || f.message === null || isMessageSummary(f.message)),
  call: (f) =>
    isString(f.conversation_id) &&
    isString(f.call_id) &&
    isString(f.user_id) &&
    typeof f.video === "boolean" &&
    typeof f.ringing === "boolean" &&
    (f.missed === undefined || typeof f.missed === "boolean"),
  pong: () => true,
};

export const parseMemberServerFrame = (raw: string) =>
  guardFrame<MemberServerFrame>(memberServerChecks, raw);
