import { describe, expect, it } from "vitest";
import { groupNotifications, groupText, namesPhrase } from "~/lib/notification-groups";
import type { NotificationView } from "~/schemas/notifications";

let clock = Date.parse("2026-11-27T10:00:00Z");
const actor = (name: string) => ({
  id: `id-${name}`,
  username: name.toLowerCase(),
  firstName: name,
});

/** A notification, each newer than the one before. */
function n(
  type: NotificationView["type"],
  from: string,
  data: Record<string, unknown> = {},
  read = false,
): NotificationView {
  clock += 60_000;
  return {
    id: `n${clock}`,
    type,
    data: { actor: actor(from), ...data },
    read_at: read ? new Date(clock).toISOString() : null,
    created_at: new Date(clock).toISOString(),
  };
}

describe("grouping notifications", () => {
  it("makes one row per conversation, reading as its newest message, its unread ones counted", () => {
    const list = [
      n("message", "Maya", { conversation_id: "c1", preview: "hi" }),
      n("message", "Tom", { conversation_id: "c2", preview: "hello" }),
      n("message", "Maya", { conversation_id: "c1", preview: "are you there?" }),
      n("message", "Maya", { conversation_id: "c1", preview: "coffee?" }),
    ];
    const groups = groupNotifications(list);
    expect(groups.map((g) => g.key)).toEqual(["conversation:c1", "conversation:c2"]);
    expect(groups[0]!.unreadIds).toHaveLength(3);
    expect(groupText(groups[0]!)).toBe("Maya: coffee?");
    expect(groupText(groups[1]!)).toBe("Tom: hello");
  });

  it("gathers likes and profile views into a row each, naming who", () => {
    const list = [
      n("like", "Maya"),
      n("profile_view", "Tom"),
      n("like", "Ana"),
      n("like", "Ben"),
      n("like", "Maya"),
      n("like", "Zoe"),
    ];
    const groups = groupNotifications(list);
    expect(groups.map((g) => g.key)).toEqual(["like", "profile_view"]);
    // Newest first, each member once.
    expect(groupText(groups[0]!)).toBe("Zoe, Maya and 2 others liked you");
    expect(groups[0]!.unreadIds).toHaveLength(5);
    expect(groupText(groups[1]!)).toBe("Tom viewed your profile");
  });

  it("keeps a match and a gift on rows of their own, in time order with the rest", () => {
    const list = [
      n("match", "Maya"),
      n("gift", "Tom", { gift: { name: "Rose" }, conversation_id: "c9" }),
      n("match", "Ana"),
      n("like", "Ben"),
    ];
    const groups = groupNotifications(list);
    expect(groups.map((g) => g.type)).toEqual(["like", "match", "gift", "match"]);
    expect(groupText(groups[2]!)).toBe("Tom sent you a gift: Rose");
  });

  it("counts only unread messages; a read conversation reads as its last message", () => {
    const list = [
      n("message", "Maya", { conversation_id: "c1", preview: "one" }, true),
      n("message", "Maya", { conversation_id: "c1", preview: "two" }, true),
    ];
    const [group] = groupNotifications(list);
    expect(group!.unreadIds).toEqual([]);
    expect(groupText(group!)).toBe("Maya: two");
  });

  it("orders rows by their newest notification, whatever order the list came in", () => {
    const older = n("like", "Maya");
    const newer = n("message", "Tom", { conversation_id: "c1", preview: "hey" });
    expect(groupNotifications([older, newer]).map((g) => g.type)).toEqual(["message", "like"]);
    expect(groupNotifications([newer, older]).map((g) => g.type)).toEqual(["message", "like"]);
  });

  it("says two names, or two and how many others", () => {
    expect(namesPhrase(["Maya"])).toBe("Maya");
    expect(namesPhrase(["Maya", "Tom"])).toBe("Maya and Tom");
    expect(namesPhrase(["Maya", "Tom", "Ana"])).toBe("Maya, Tom and 1 other");
    expect(namesPhrase([])).toBe("Someone");
  });
});
