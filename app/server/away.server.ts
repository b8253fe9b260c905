import { displayName } from "~/lib/members";
import { notificationActor, notificationHref } from "~/lib/notifications";
import { isSwitchedKind } from "~/schemas/notification-types";
import type {
  NotificationSettings,
  NotificationType,
  NotificationView,
  QuietHours,
} from "~/schemas/notifications";
import { RING_TIMEOUT_MS } from "~/realtime/chat";
import type { CallRingFrame } from "~/realtime/member";
import type { PushPayload, PushType } from "~/schemas/push";
import { secondsSettingMs, type Env } from "./env.server";
import { memberCards } from "./members.server";
import { getNotificationPreferences } from "./notifications.server";
import {
  listPushSubscriptions,
  type PushOptions,
  type StoredPushSubscription,
} from "./push.server";
import type { ListUpdate } from "./room-api.server";

/**
 * Pushes to a member who is away (docs/api.md "Away from the app", docs/decisions/033): what the
 * member's hub decides with. The hub knows whether any page of the member is open; when something
 * happens for a member away for AWAY_PUSH_DELAY_SECONDS it sends one push per tag, and folds what
 * follows within that delay into one replacing push. This module holds the rules, the hub
 * (durable-objects/away-pushes.ts) the state.
 */

export const DEFAULT_AWAY_PUSH_DELAY_SECONDS = 30;

/** AWAY_PUSH_DELAY_SECONDS, in milliseconds (a bad value falls back to the default). */
export function awayPushDelayMs(env: Pick<Env, "AWAY_PUSH_DELAY_SECONDS">): number {
  return secondsSettingMs(env.AWAY_PUSH_DELAY_SECONDS, DEFAULT_AWAY_PUSH_DELAY_SECONDS);
}

/** The kinds a member away hears of by push (a test push is sent at once, never decided here). */
export type AwayKind = Exclude<PushType, "test">;

/** Someone who did something for the member, as a push names them. */
export interface AwayActor {
  id: string;
  name: string;
}

/** One thing that happened for the member, as the hub folds it under its tag. */
export interface AwayEvent {
  kind: AwayKind;
  tag: string;
  actor: AwayActor;
  /** The page a push about this one thing opens. */
  url: string;
  /** A conversation's unread messages (messages and gifts); 1 otherwise. */
  count: number;
  /** What a lock screen may show when the member turned previews on: a message's text, a gift. */
  text: string | null;
}

/** What the hub holds for one tag while the member is away: everything since they left. */
export interface AwayFold {
  tag: string;
  kind: AwayKind;
  /** Newest first, each member once. */
  actors: AwayActor[];
  count: number;
  text: string | null;
  url: string;
  /** A call's fold (`call` ringing, `missed_call`, `call_answered`): which call it tells of. */
  call_id?: string;
  /** A ring's: when the hub heard it (its push says when it stops ringing). */
  rang_at?: number;
  /** `call_answered`'s: what the member did with the call on another device. */
  answered?: "accepted" | "declined";
}

/** At most this many names are kept per tag (a push names one, and counts the others). */
export const FOLD_ACTORS_KEPT = 20;

/** The tag of a conversation's messages: later pushes of it replace earlier ones. */
export const conversationTag = (conversationId: string) => `conversation:${conversationId}`;

/**
 * The tag of a conversation's calls: a missed call's push replaces the ring's (not the messages':
 * a member may have both).
 */
export const callTag = (conversationId: string) => `call:${conversationId}`;

const conversationUrl = (conversationId: string) => `/chat/${encodeURIComponent(conversationId)}`;

/** The kinds a call is told as: ringing, rung out unanswered, or answered on another device. */
export type CallKind = Extract<AwayKind, "call" | "missed_call" | "call_answered">;

export const isCallKind = (kind: AwayKind): kind is CallKind =>
  kind === "call" || kind === "missed_call" || kind === "call_answered";

/**
 * A call for the member (their channel's `call` frame, which reached no page of theirs): ringing,
 * or rung out unanswered; null when it is neither (answered, declined, or ended by a block, an
 * unmatch or a suspension: nothing more to tell). Its push opens the conversation, where the call
 * is answered; `text` is voice or video (shown with previews on).
 */
export function callEvent(frame: CallRingFrame, name: string): AwayEvent | null {
  if (!frame.ringing && !frame.missed) return null;
  return {
    kind: frame.ringing ? "call" : "missed_call",
    tag: callTag(frame.conversation_id),
    actor: { id: frame.user_id, name },
    url: conversationUrl(frame.conversation_id),
    count: 1,
    text: frame.video ? "video" : "voice",
  };
}

/**
 * A new message or gift from the other member of a conversation (a room's list update), or null
 * when it is nothing to push: no new message, one of the member's own, or a hidden conversation
 * (a block either way, an unmatch, a suspended member).
 */
export function messageEvent(update: ListUpdate, name: string): AwayEvent | null {
  const message = update.message;
  if (!message || update.hidden || message.sender_id !== update.other_id) return null;
  // A call's line: the call was told by its own push (or the member was here for it).
  if (message.call) return null;
  if (update.unread_count === 0) return null;
  const gift = message.gift ?? null;
  return {
    kind: gift ? "gift" : "message",
    tag: conversationTag(update.conversation_id),
    actor: { id: update.other_id, name },
    url: conversationUrl(update.conversation_id),
    count: update.unread_count,
    text: gift ? gift : message.message.slice(0, 140),
  };
}

/**
 * A like, match or profile view (a notification the member's channel carries), or null: messages
 * and gifts come from the conversation's room instead (messageEvent), with every message counted;
 * an account notice (a moderator's decision) is told by its own email, never pushed (ADR 049).
 */
export function notificationEvent(n: NotificationView): AwayEvent | null {
  const actor = notificationActor(n);
  if (!actor || !isSwitchedKind(n.type)) return null;
  const tags: Partial<Record<AwayKind, string>> = {
    like: "likes",
    profile_view: "profile_views",
    match: `match:${actor.id}`,
  };
  const tag = tags[n.type];
  if (!tag) return null;
  const who = { id: actor.id, name: displayName(actor) };
  return { kind: n.type, tag, actor: who, url: notificationHref(n), count: 1, text: null };
}

/** Adds an event to what its tag holds (a fresh fold when there is none). */
export function fold(held: AwayFold | null, event: AwayEvent): AwayFold {
  if (!held) {
    return {
      tag: event.tag,
      kind: event.kind,
      actors: [event.actor],
      count: event.count,
      text: event.text,
      url: event.url,
    };
  }
  const actors = [event.actor, ...held.actors.filter((a) => a.id !== event.actor.id)].slice(
    0,
    FOLD_ACTORS_KEPT,
  );
  const conversation = event.tag.startsWith("conversation:");
  return {
    tag: held.tag,
    kind: event.kind,
    actors,
    // A conversation counts its unread messages (the room's number); likes and views count people.
    count: conversation ? event.count : Math.max(held.count, actors.length),
    text: event.text,
    // One member: their page; several: the list of them all.
    url: actors.length > 1 ? foldedUrl(event) : event.url,
  };
}

function foldedUrl(event: AwayEvent): string {
  if (event.kind === "like") return "/my/likes";
  if (event.kind === "profile_view") return "/my/profile";
  return event.url;
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/**
 * The push for what a tag holds. Without previews a lock screen names the sender only; with them
 * it shows the newest message's text (or the gift).
 */
export function awayPayload(f: AwayFold, preview: boolean): PushPayload {
  const name = f.actors[0]?.name ?? "Someone";
  const others = f.count - 1;
  const base = { type: f.kind, url: f.url, tag: f.tag };
  switch (f.kind) {
    case "message": {
      const sent = f.count > 1 ? `${name} sent ${f.count} messages` : `${name} sent you a message`;
      const body = preview && f.text ? (f.count > 1 ? `${sent}: ${f.text}` : f.text) : sent;
      return { ...base, title: f.count > 1 ? "New messages" : `${name}`, body };
    }
    case "gift": {
      const gift =
        preview && f.text ? `${name} sent you a gift: ${f.text}` : `${name} sent you a gift`;
      return { ...base, title: "A gift for you", body: gift };
    }
    case "match":
      return { ...base, title: "It's a match!", body: `You and ${name} like each other` };
    case "like":
      return {
        ...base,
        title: plural(f.count, "New like", "New likes"),
        body:
          others > 0
            ? `${name} and ${others} ${plural(others, "other", "others")} liked you`
            : `${name} liked you`,
      };
    case "call":
    case "missed_call":
    case "call_answered": {
      // Voice or video is what the call carries beyond who calls: shown with previews on only.
      const kind = preview && f.text ? `${f.text} call` : "call";
      if (f.kind === "call") {
        const ends_at = (f.rang_at ?? Date.now()) + RING_TIMEOUT_MS;
        return { ...base, title: `Incoming ${kind}`, body: `${name} is calling you`, ends_at };
      }
      if (f.kind === "missed_call") {
        return { ...base, title: `Missed ${kind}`, body: `Missed ${kind} from ${name}` };
      }
      return f.answered === "declined"
        ? {
            ...base,
            title: `Declined ${kind}`,
            body: `You declined ${name}'s call on another device`,
          }
        : {
            ...base,
            title: `Answered ${kind}`,
            body: `You answered ${name}'s call on another device`,
          };
    }
    case "profile_view":
      return {
        ...base,
        title: "Profile views",
        body:
          others > 0
            ? `${name} and ${others} ${plural(others, "other", "others")} viewed your profile`
            : `${name} viewed your profile`,
      };
  }
}

/** How long a push service keeps it for a browser that is off, and how soon it wakes one. */
export function awayPushOptions(kind: AwayKind): PushOptions {
  switch (kind) {
    case "message":
    case "gift":
      return { ttl: 24 * 60 * 60, urgency: "high" };
    case "match":
    case "like":
      return { ttl: 24 * 60 * 60, urgency: "normal" };
    case "profile_view":
      return { ttl: 6 * 60 * 60, urgency: "low" };
    // A ring is worth nothing once the call stopped ringing (docs/decisions/039: 45 s).
    case "call":
      return { ttl: 60, urgency: "high" };
    case "missed_call":
      return { ttl: 24 * 60 * 60, urgency: "high" };
    // It only takes a ring off a screen: worth nothing once the ring itself would have expired.
    case "call_answered":
      return { ttl: 120, urgency: "high" };
  }
}

/**
 * The member's setting a kind of push follows: calls follow messages (a call is the conversation
 * speaking, and its missed line is one of its unread messages); the others are their own kind.
 */
export function preferenceOf(kind: AwayKind): NotificationType {
  return isCallKind(kind) ? "message" : kind;
}

const minutesOf = (hhmm: string) => {
  const [h, m] = hhmm.split(":").map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/** The wall-clock minute of the day in a time zone (null when the zone is unknown here). */
export function minuteOfDay(at: Date, timeZone: string): number | null {
  try {
    const parts = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).formatToParts(at);
    const hour = Number(parts.find((p) => p.type === "hour")?.value);
    const minute = Number(parts.find((p) => p.type === "minute")?.value);
    return Number.isFinite(hour) && Number.isFinite(minute) ? hour * 60 + minute : null;
  } catch {
    return null;
  }
}

/**
 * Whether `at` falls in the member's quiet hours, in their time zone: from `start` (included) to
 * `end` (excluded), across midnight when `end` is earlier. Equal times mean no quiet hours.
 */
export function inQuietHours(quiet: QuietHours | null, at: Date): boolean {
  if (!quiet) return false;
  const now = minuteOfDay(at, quiet.time_zone);
  if (now === null) return false;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  if (start === end) return false;
  return start < end ? now >= start && now < end : now >= start || now < end;
}

/**
 * Why a push is not sent now, or null when it may be: the kind is off for push, or it is the
 * member's quiet time.
 */
export function withheld(
  settings: NotificationSettings,
  kind: AwayKind,
  at: Date,
): "switched_off" | "quiet_hours" | null {
  if (!settings.preferences[preferenceOf(kind)].push) return "switched_off";
  if (inQuietHours(settings.quiet_hours, at)) return "quiet_hours";
  return null;
}

/** What the hub keeps of the member to push without reading D1: their browsers and settings. */
export interface PushContext {
  subscriptions: StoredPushSubscription[];
  settings: NotificationSettings;
}

/** The member's push context as D1 holds it (read when the hub holds none). */
export async function loadPushContext(env: Env, userId: string): Promise<PushContext> {
  const [subscriptions, settings] = await Promise.all([
    listPushSubscriptions(env, userId),
    getNotificationPreferences(env, userId),
  ]);
  return { subscriptions, settings };
}

/** A member's name as a push shows it, when no notification brought it (null: no such member). */
export async function loadActorName(env: Env, userId: string): Promise<string | null> {
  const [card] = await memberCards(env, [userId]);
  return card ? displayName(card) : null;
}
