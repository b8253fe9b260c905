import type { NotificationView } from "~/schemas/notifications";
import { displayName } from "./members";
import { notificationActor, notificationText } from "./notifications";

/**
 * The notifications page shows one row per conversation and per kind rather than one per event
 * (docs/decisions/028): a conversation is one row (the server notifies its first unread message;
 * each later round of unread messages adds one more, shown under the same row), likes and profile
 * views are one row each naming who; a match and a gift keep a row of their own, since each is an
 * event a member wants to see on its own.
 */
export interface NotificationGroup {
  /** Stable across updates: `conversation:<id>`, `like`, `profile_view`, or the notification id. */
  key: string;
  type: NotificationView["type"];
  /** Newest first; the first is the row's face, text and time. */
  items: NotificationView[];
  /** The ids a click on the row marks read. */
  unreadIds: string[];
}

/** Kinds gathered into one row for the whole list. */
const BY_KIND = new Set<NotificationView["type"]>(["like", "profile_view"]);

function groupKey(n: NotificationView): string {
  if (n.type === "message" && typeof n.data.conversation_id === "string") {
    return `conversation:${n.data.conversation_id}`;
  }
  return BY_KIND.has(n.type) ? n.type : n.id;
}

/**
 * Groups a list (in any order) into rows, newest row first: a row's place is that of its newest
 * notification. Pure: the page calls it on every change of the list.
 */
export function groupNotifications(list: NotificationView[]): NotificationGroup[] {
  const newestFirst = [...list].sort((a, b) =>
    a.created_at === b.created_at
      ? b.id.localeCompare(a.id)
      : b.created_at.localeCompare(a.created_at),
  );
  const groups = new Map<string, NotificationGroup>();
  for (const n of newestFirst) {
    const key = groupKey(n);
    let group = groups.get(key);
    if (!group) {
      group = { key, type: n.type, items: [], unreadIds: [] };
      groups.set(key, group);
    }
    group.items.push(n);
    if (n.read_at === null) group.unreadIds.push(n.id);
  }
  return [...groups.values()];
}

/** The distinct members who acted, newest first, by display name. */
function actorNames(items: NotificationView[]): string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const n of items) {
    const actor = notificationActor(n);
    const id = actor?.id ?? "";
    if (seen.has(id)) continue;
    seen.add(id);
    names.push(actor ? displayName(actor) : "Someone");
  }
  return names;
}

/** "Maya", "Maya and Tom", "Maya, Tom and 3 others". */
export function namesPhrase(names: string[]): string {
  if (names.length <= 1) return names[0] ?? "Someone";
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  const others = names.length - 2;
  return `${names[0]}, ${names[1]} and ${others} ${others === 1 ? "other" : "others"}`;
}

/** How a row reads: a conversation as its newest message, a kind as who did it. */
export function groupText(group: NotificationGroup): string {
  const [latest] = group.items;
  if (!latest) return "";
  if (group.items.length === 1) return notificationText(latest);
  switch (group.type) {
    case "like":
      return `${namesPhrase(actorNames(group.items))} liked you`;
    case "profile_view":
      return `${namesPhrase(actorNames(group.items))} viewed your profile`;
    default:
      return notificationText(latest);
  }
}
