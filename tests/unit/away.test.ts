import { describe, expect, it } from "vitest";
import {
  awayPayload,
  awayPushDelayMs,
  fold,
  inQuietHours,
  messageEvent,
  withheld,
  type AwayEvent,
} from "~/server/away.server";
import { RING_TIMEOUT_MS } from "~/realtime/chat";
import { DEFAULT_CHANNELS } from "~/schemas/notifications";
import type { ListUpdate } from "~/server/room-api.server";

const at = (iso: string) => new Date(iso);

describe("quiet hours, in the member's time zone", () => {
  const night = { start: "22:00", end: "08:00", time_zone: "Europe/Paris" };

  it("span midnight when the end is earlier than the start", () => {
    // Paris is UTC+1 in winter: 21:30 UTC is 22:30 there, 06:59 UTC is 07:59.
    expect(inQuietHours(night, at("2026-01-15T21:30:00Z"))).toBe(true);
    expect(inQuietHours(night, at("2026-01-15T06:59:00Z"))).toBe(true);
    expect(inQuietHours(night, at("2026-01-15T07:00:00Z"))).toBe(false);
    expect(inQuietHours(night, at("2026-01-15T20:59:00Z"))).toBe(false);
    expect(inQuietHours(night, at("2026-01-15T21:00:00Z"))).toBe(true);
  });

  it("follow the zone's daylight saving time", () => {
    // UTC+2 in summer: 20:30 UTC is 22:30 in Paris, quiet; the same instant in winter is 21:30.
    expect(inQuietHours(night, at("2026-07-15T20:30:00Z"))).toBe(true);
    expect(inQuietHours(night, at("2026-01-15T20:30:00Z"))).toBe(false);
    // The night the clocks go forward (29 March 2026, 02:00 → 03:00): 06:30 local is 04:30 UTC.
    expect(inQuietHours(night, at("2026-03-29T05:59:00Z"))).toBe(true);
    expect(inQuietHours(night, at("2026-03-29T06:00:00Z"))).toBe(false);
  });

  it("hold within one day when the start is earlier, and equal times mean none", () => {
    const afternoon = { start: "13:00", end: "15:00", time_zone: "Asia/Tokyo" };
    expect(inQuietHours(afternoon, at("2026-05-01T04:00:00Z"))).toBe(true); // 13:00 in Tokyo
    expect(inQuietHours(afternoon, at("2026-05-01T06:00:00Z"))).toBe(false); // 15:00
    expect(inQuietHours({ ...afternoon, end: "13:00" }, at("2026-05-01T04:00:00Z"))).toBe(false);
    expect(inQuietHours(null, at("2026-05-01T04:00:00Z"))).toBe(false);
  });

  it("withhold a push for a kind switched off, or in quiet hours", () => {
    const settings = { preferences: DEFAULT_CHANNELS, quiet_hours: night, preview: false };
    expect(withheld(settings, "message", at("2026-01-15T12:00:00Z"))).toBeNull();
    expect(withheld(settings, "message", at("2026-01-15T23:00:00Z"))).toBe("quiet_hours");
    expect(withheld(settings, "profile_view", at("2026-01-15T12:00:00Z"))).toBe("switched_off");
  });
});

const update = (extra: Partial<ListUpdate> = {}): ListUpdate => ({
  conversation_id: "c1",
  other_id: "maya",
  version: 3,
  last_message: "hi",
  last_message_time: "2026-01-01T00:00:00Z",
  activity_at: "2026-01-01T00:00:00Z",
  unread_count: 1,
  hidden: false,
  message: { id: "m1", sender_id: "maya", message: "hi", sent_at: "2026-01-01T00:00:00Z" },
  ...extra,
});

describe("what becomes a push", () => {
  it("a new message or gift from the other member, never one's own, a hidden or a read one", () => {
    expect(messageEvent(update(), "Maya")).toMatchObject({
      kind: "message",
      tag: "conversation:c1",
      url: "/chat/c1",
      text: "hi",
    });
    const gift = update({ message: { ...update().message!, gift: "Rose" } });
    expect(messageEvent(gift, "Maya")).toMatchObject({ kind: "gift", text: "Rose" });
    const own = update({ message: { ...update().message!, sender_id: "me" } });
    expect(messageEvent(own, "Maya")).toBeNull();
    expect(messageEvent(update({ hidden: true }), "Maya")).toBeNull();
    expect(messageEvent(update({ unread_count: 0 }), "Maya")).toBeNull();
    expect(messageEvent(update({ message: null }), "Maya")).toBeNull();
  });

  const likeBy = (id: string, name: string): AwayEvent => ({
    kind: "like",
    tag: "likes",
    actor: { id, name },
    url: `/members/${id}`,
    count: 1,
    text: null,
  });

  it("folds likes by person (a second like of the same member counts once)", () => {
    let held = fold(null, likeBy("a", "Ana"));
    expect(awayPayload(held, false)).toEqual({
      type: "like",
      title: "New like",
      body: "Ana liked you",
      url: "/members/a",
      tag: "likes",
    });
    held = fold(held, likeBy("b", "Ben"));
    held = fold(held, likeBy("a", "Ana"));
    expect(awayPayload(held, false)).toMatchObject({
      title: "New likes",
      body: "Ana and 1 other liked you",
      url: "/my/likes",
    });
  });

  it("names only the sender of messages unless previews are on", () => {
    const first = fold(null, messageEvent(update(), "Maya")!);
    expect(awayPayload(first, false).body).toBe("Maya sent you a message");
    expect(awayPayload(first, true).body).toBe("hi");
    const more = fold(
      first,
      messageEvent(
        update({ unread_count: 4, message: { ...update().message!, message: "ok?" } }),
        "Maya",
      )!,
    );
    expect(awayPayload(more, false)).toMatchObject({
      title: "New messages",
      body: "Maya sent 4 messages",
    });
    expect(awayPayload(more, true).body).toBe("Maya sent 4 messages: ok?");
  });

  it("tells a call's ring with its end, and an answer on another device by what was done", () => {
    const ring = {
      ...fold(null, {
        kind: "call",
        tag: "call:c1",
        actor: { id: "u1", name: "Sam" },
        url: "/chat/c1",
        count: 1,
        text: "video",
      }),
      call_id: "k1",
      rang_at: 1_000_000,
    };
    expect(awayPayload(ring, false)).toEqual({
      type: "call",
      title: "Incoming call",
      body: "Sam is calling you",
      url: "/chat/c1",
      tag: "call:c1",
      ends_at: 1_000_000 + RING_TIMEOUT_MS,
    });
    expect(awayPayload({ ...ring, kind: "call_answered", answered: "accepted" }, true)).toEqual({
      type: "call_answered",
      title: "Answered video call",
      body: "You answered Sam's call on another device",
      url: "/chat/c1",
      tag: "call:c1",
    });
    expect(
      awayPayload({ ...ring, kind: "call_answered", answered: "declined" }, false),
    ).toMatchObject({ title: "Declined call", body: "You declined Sam's call on another device" });
  });

  it("reads the delay from its setting (30 s when it is missing or bad)", () => {
    expect(awayPushDelayMs({ AWAY_PUSH_DELAY_SECONDS: "5" })).toBe(5000);
    expect(awayPushDelayMs({})).toBe(30_000);
    expect(awayPushDelayMs({ AWAY_PUSH_DELAY_SECONDS: "soon" })).toBe(30_000);
  });
});
