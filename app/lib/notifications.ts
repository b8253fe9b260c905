import type { NotificationView } from "~/schemas/notifications";
import { displayName, type MemberCardView } from "./members";

/** How a notification reads and where it leads (the list, the header toast). */

/** The acting member's card, as the server adds it (`data.actor`), or null. */
export function notificationActor(n: NotificationView): MemberCardView | null {
  const actor = n.data.actor as Partial<MemberCardView> | null | undefined;
  if (!actor || typeof actor.id !== "string" || typeof actor.username !== "string") return null;
  return actor as MemberCardView;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value : null;
}

export function notificationText(n: NotificationView): string {
  const actor = notificationActor(n);
  const name = actor ? displayName(actor) : "Someone";
  switch (n.type) {
    case "like": {
      const comment = text(n.data.comment);
      return comment ? `${name} liked you: “${comment}”` : `${name} liked you`;
    }
    case "match": {
      const comment = text(n.data.comment);
      const base = `It's a match! You and ${name} like each other`;
      return comment ? `${base}. ${name} wrote: “${comment}”` : base;
    }
    case "gift": {
      const gift = (n.data.gift ?? null) as { name?: unknown } | null;
      const giftName = text(gift?.name);
      return giftName ? `${name} sent you a gift: ${giftName}` : `${name} sent you a gift`;
    }
    case "message": {
      const preview = text(n.data.preview);
      return preview ? `${name}: ${preview}` : `New message from ${name}`;
    }
    case "profile_view":
      return `${name} viewed your profile`;
    case "verification":
      return n.data.status === "verified"
        ? "Your photos are verified: your profile now shows the badge"
        : "Your verification selfie was not accepted: see why and try again";
    case "appeal":
      return appealText(n.data);
  }
}

/** An appeal's decision (account notice `appeal`: the measure appealed, and the decision). */
function appealText(data: NotificationView["data"]): string {
  const suspended = data.measure === "suspended";
  if (data.decision === "granted") {
    return suspended
      ? "Your appeal was granted: your account is active again"
      : "Your appeal was granted: your profile is back in search";
  }
  return suspended
    ? "Your appeal was turned down: your account stays suspended"
    : "Your appeal was turned down: your profile stays hidden from search";
}

/**
 * Where a notification leads: the member's own page for an account notice, the conversation for
 * messages and gifts, else the member.
 */
export function notificationHref(n: NotificationView): string {
  if (n.type === "verification") return "/my/verification";
  if (n.type === "appeal") return "/my/appeal";
  const conversation = text(n.data.conversation_id);
  if ((n.type === "message" || n.type === "gift") && conversation) {
    return `/chat?conversation=${encodeURIComponent(conversation)}`;
  }
  const actor = notificationActor(n);
  if (actor) return `/members/${encodeURIComponent(actor.username)}`;
  return "/notifications";
}

export const NOTIFICATION_ICONS: Record<NotificationView["type"], string> = {
  like: "♥",
  match: "✦",
  gift: "🎁",
  message: "✉",
  profile_view: "👁",
  verification: "✓",
  appeal: "⚖",
};
