import type { ActivityType } from "~/schemas/activities";
import { displayName, type MemberCardView } from "./members";

/** How an entry of the activities page reads. */
export interface ActivityEntry {
  type: ActivityType;
  /** The other member's card; null when there is none or they are hidden by a block. */
  user: MemberCardView | null;
  data: Record<string, unknown>;
}

export const ACTIVITY_ICONS: Record<ActivityType, string> = {
  like_sent: "♡",
  like_received: "♥",
  match: "✦",
  gift_sent: "🎁",
  gift_received: "🎁",
  credits_purchased: "◎",
  subscription_started: "★",
  subscription_changed: "★",
  subscription_cancelled: "☆",
};

function str(value: unknown): string | null {
  return typeof value === "string" && value.trim()
    ? value
    : typeof value === "number"
      ? String(value)
      : null;
}

/** One line of history, as the member reads it. */
export function activityText(a: ActivityEntry): string {
  const name = a.user ? displayName(a.user) : "a member";
  const gift = str((a.data.gift as { name?: unknown } | undefined)?.name);
  const plan = str(a.data.plan);
  switch (a.type) {
    case "like_sent":
      return `You liked ${name}`;
    case "like_received":
      return `${a.user ? name : "A member"} liked you`;
    case "match":
      return `You matched with ${name}`;
    case "gift_sent":
      return gift ? `You sent ${name} a gift: ${gift}` : `You sent ${name} a gift`;
    case "gift_received":
      return `${a.user ? name : "A member"} sent you a gift${gift ? `: ${gift}` : ""}`;
    case "credits_purchased": {
      const credits = str(a.data.credits);
      return credits ? `You bought ${credits} credits` : "You bought credits";
    }
    case "subscription_started":
      return plan ? `You subscribed to ${plan}` : "You started a subscription";
    case "subscription_changed":
      if (a.data.status === "past_due") return "A payment for your subscription failed";
      if (a.data.status === "expired") return "Your subscription ended";
      if (a.data.reason === "dispute_won") {
        return plan
          ? `Your ${plan} subscription is back until the end of its period`
          : "Your subscription is back until the end of its period";
      }
      return plan ? `Your subscription changed to ${plan}` : "Your subscription changed";
    case "subscription_cancelled":
      return "You cancelled your subscription";
  }
}
