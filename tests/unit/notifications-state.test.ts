import { describe, expect, it } from "vitest";
import { activityText } from "~/lib/activities";
import { notificationHref, notificationText } from "~/lib/notifications";
import type { NotificationView } from "~/schemas/notifications";
import {
  initialNotificationsState,
  bellCount,
  LATEST_KEPT,
  matchCelebrated,
  notificationDismissed,
  notificationReceived,
  notificationsLoaded,
  notificationsRead,
} from "~/state/notifications";
import { memberCard } from "../helpers/cards";

const actor = memberCard("m1", { username: "sam_k", firstName: "Sam" });

const n = (id: string, type: NotificationView["type"] = "like", data = {}): NotificationView => ({
  id,
  type,
  data: { actor, ...data },
  read_at: null,
  created_at: "2026-11-21T10:00:00.000Z",
});

describe("notification state", () => {
  it("loads the unread count and the newest notifications", () => {
    const s = notificationsLoaded(initialNotificationsState, {
      notifications: [n("a"), n("b")],
      unread_count: 7,
    });
    expect(s.unreadCount).toBe(7);
    expect(s.latest.map((x) => x.id)).toEqual(["a", "b"]);
  });

  it("puts a live notification on top once, with the server's count, for the toast", () => {
    let s = notificationReceived(initialNotificationsState, n("a"), 1);
    s = notificationReceived(s, n("b"), 2);
    s = notificationReceived(s, n("b"), 2);
    expect(s.latest.map((x) => x.id)).toEqual(["b", "a"]);
    expect(s.unreadCount).toBe(2);
    expect(s.arrived?.id).toBe("b");
    expect(notificationDismissed(s).arrived).toBeNull();
  });

  it("a match the page celebrates gets no toast, whether its notification came before or after", () => {
    const sam = memberCard("m1", { username: "sam_k", firstName: "Sam" });
    const ana = memberCard("m2", { username: "ana_r", firstName: "Ana" });
    const match = (id: string, who: typeof sam) => ({ ...n(id, "match"), data: { actor: who } });
    // After: the dialog opened first; the notification counts but does not toast.
    let s = matchCelebrated(notificationReceived(initialNotificationsState, n("a"), 1), "m1");
    s = notificationReceived(s, match("b", sam), 2);
    expect(s).toMatchObject({ unreadCount: 2, arrived: { id: "a" } });
    expect(s.latest.map((x) => x.id)).toEqual(["b", "a"]);
    // Before: the toast that came first goes when the dialog opens.
    s = notificationReceived(s, match("c", ana), 3);
    expect(s.arrived?.id).toBe("c");
    s = matchCelebrated(s, "m2");
    expect(s.arrived).toBeNull();
    expect(matchCelebrated(s, "m2").celebrated).toEqual(["m1", "m2"]);
    // Another member's match, or anything else from a celebrated member, still toasts.
    expect(notificationReceived(s, n("d", "message"), 4).arrived?.id).toBe("d");
    const tom = memberCard("m3", { username: "tom_b", firstName: "Tom" });
    expect(notificationReceived(s, match("e", tom), 4).arrived?.id).toBe("e");
  });

  it("the bell shows the rows the server counts, or the notifications when it does not say", () => {
    let s = notificationsLoaded(initialNotificationsState, {
      notifications: [],
      unread_count: 9,
      unread_groups: 2,
    });
    expect(bellCount(s)).toBe(2);
    s = notificationReceived(s, n("a"), { unread_count: 10, unread_groups: 2 });
    expect([s.unreadCount, bellCount(s)]).toEqual([10, 2]);
    s = notificationsRead(s, null, { unread_count: 0, unread_groups: 0 });
    expect(bellCount(s)).toBe(0);
    // A server of the previous version sends only the count.
    s = notificationReceived(s, n("b"), 4);
    expect(bellCount(s)).toBe(4);
  });

  it("keeps a bounded list", () => {
    let s = initialNotificationsState;
    for (let i = 0; i < LATEST_KEPT + 5; i++) s = notificationReceived(s, n(`n${i}`), i + 1);
    expect(s.latest).toHaveLength(LATEST_KEPT);
    expect(s.latest[0]!.id).toBe(`n${LATEST_KEPT + 4}`);
  });

  it("marks some or all read", () => {
    const loaded = notificationsLoaded(initialNotificationsState, {
      notifications: [n("a"), n("b")],
      unread_count: 2,
    });
    const one = notificationsRead(loaded, ["a"], 1, "2026-11-21T11:00:00.000Z");
    expect(one.latest.map((x) => x.read_at)).toEqual(["2026-11-21T11:00:00.000Z", null]);
    expect(one.unreadCount).toBe(1);
    const all = notificationsRead(one, null, 0, "2026-11-21T12:00:00.000Z");
    expect(all.latest.map((x) => x.read_at)).toEqual([
      "2026-11-21T11:00:00.000Z",
      "2026-11-21T12:00:00.000Z",
    ]);
    expect(all.unreadCount).toBe(0);
  });
});

describe("how notifications and activities read", () => {
  it("names the member and the kind, and links to where it happened", () => {
    expect(notificationText(n("a", "like"))).toBe("Sam liked you");
    expect(notificationText(n("a", "match"))).toBe("It's a match! You and Sam like each other");
    // A like that said something says it.
    expect(notificationText(n("a", "like", { comment: "Which market?" }))).toBe(
      "Sam liked you: “Which market?”",
    );
    expect(notificationText(n("a", "match", { comment: "Coffee first?" }))).toBe(
      "It's a match! You and Sam like each other. Sam wrote: “Coffee first?”",
    );
    expect(notificationText(n("a", "like", { comment: "  " }))).toBe("Sam liked you");
    expect(notificationText(n("a", "gift", { gift: { name: "Rose" } }))).toBe(
      "Sam sent you a gift: Rose",
    );
    expect(notificationText(n("a", "message", { preview: "Hey!" }))).toBe("Sam: Hey!");
    expect(notificationText(n("a", "profile_view"))).toBe("Sam viewed your profile");
    expect(notificationText({ ...n("a"), data: { actor: null } })).toBe("Someone liked you");
    expect(notificationHref(n("a", "like"))).toBe("/members/sam_k");
    expect(notificationHref(n("a", "message", { conversation_id: "c1" }))).toBe(
      "/chat?conversation=c1",
    );
  });

  it("tells a member's history in their own words", () => {
    expect(activityText({ type: "like_sent", user: actor, data: {} })).toBe("You liked Sam");
    expect(activityText({ type: "like_received", user: null, data: {} })).toBe(
      "A member liked you",
    );
    expect(activityText({ type: "gift_sent", user: actor, data: { gift: { name: "Rose" } } })).toBe(
      "You sent Sam a gift: Rose",
    );
    expect(activityText({ type: "credits_purchased", user: null, data: { credits: 100 } })).toBe(
      "You bought 100 credits",
    );
    expect(activityText({ type: "subscription_cancelled", user: null, data: {} })).toBe(
      "You cancelled your subscription",
    );
  });
});
