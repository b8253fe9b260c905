import { describe, expect, it } from "vitest";
import {
  chatTimeline,
  dayKey,
  dayLabel,
  GROUP_GAP_MS,
  sameGroup,
  type TimelineMessage,
} from "~/state/chat-timeline";

const NOW = Date.parse("2026-11-23T15:00:00Z"); // a Monday
const UTC = { timeZone: "UTC", locale: "en-US" };

const msg = (
  sender: string,
  sent_at: string,
  status?: string,
): TimelineMessage & { id: string } => ({
  id: `${sender}@${sent_at}`,
  sender_id: sender,
  sent_at,
  ...(status ? { status } : {}),
});

/** The timeline as short strings: `[Today]`, `a:start,end`, … */
const shape = (items: ReturnType<typeof chatTimeline>) =>
  items.map((item) =>
    item.kind === "day"
      ? `[${item.label}]`
      : `${item.message.sender_id}:${[item.groupStart ? "start" : "", item.groupEnd ? "end" : ""]
          .filter(Boolean)
          .join(",")}`,
  );

describe("day separators", () => {
  it("names today, yesterday, the weekdays of the last week, then dates", () => {
    expect(dayLabel("2026-11-23T08:00:00Z", NOW, UTC)).toBe("Today");
    expect(dayLabel("2026-11-22T23:59:00Z", NOW, UTC)).toBe("Yesterday");
    expect(dayLabel("2026-11-20T10:00:00Z", NOW, UTC)).toBe("Friday");
    expect(dayLabel("2026-11-16T10:00:00Z", NOW, UTC)).toBe("Mon, Nov 16");
    expect(dayLabel("2025-12-31T10:00:00Z", NOW, UTC)).toBe("Wed, Dec 31, 2025");
  });

  it("counts days in the reader's time zone, not in UTC", () => {
    // 23:30 UTC on the 22nd is already the 23rd in Paris, and still the 22nd in Los Angeles.
    const late = "2026-11-22T23:30:00Z";
    expect(dayKey(late, "Europe/Paris")).toBe("2026-11-23");
    expect(dayLabel(late, NOW, { timeZone: "Europe/Paris" })).toBe("Today");
    expect(dayLabel(late, NOW, { timeZone: "America/Los_Angeles" })).toBe("Yesterday");
  });

  it("puts one separator before the first message of each day", () => {
    const items = chatTimeline(
      [
        msg("a", "2026-11-21T20:00:00Z"),
        msg("b", "2026-11-22T09:00:00Z"),
        msg("b", "2026-11-22T09:01:00Z"),
        msg("a", "2026-11-23T07:00:00Z"),
      ],
      NOW,
      UTC,
    );
    expect(items.filter((i) => i.kind === "day").map((i) => i.kind === "day" && i.label)).toEqual([
      "Saturday",
      "Yesterday",
      "Today",
    ]);
    expect(items[0]).toMatchObject({ kind: "day", key: "2026-11-21" });
  });

  it("is empty without messages", () => {
    expect(chatTimeline([], NOW, UTC)).toEqual([]);
  });
});

describe("grouped bubbles", () => {
  it("groups one sender's consecutive messages a few minutes apart; the last shows the time", () => {
    const items = chatTimeline(
      [
        msg("a", "2026-11-23T10:00:00Z"),
        msg("a", "2026-11-23T10:01:00Z"),
        msg("a", "2026-11-23T10:04:30Z"),
        msg("b", "2026-11-23T10:05:00Z"),
        msg("a", "2026-11-23T10:06:00Z"),
      ],
      NOW,
      UTC,
    );
    expect(shape(items)).toEqual([
      "[Today]",
      "a:start",
      "a:",
      "a:end",
      "b:start,end",
      "a:start,end",
    ]);
  });

  it("starts a new group after a pause longer than the gap", () => {
    const first = msg("a", "2026-11-23T10:00:00Z");
    const soon = msg("a", new Date(Date.parse(first.sent_at) + GROUP_GAP_MS).toISOString());
    const late = msg("a", new Date(Date.parse(first.sent_at) + GROUP_GAP_MS + 1).toISOString());
    expect(sameGroup(first, soon)).toBe(true);
    expect(sameGroup(first, late)).toBe(false);
    expect(shape(chatTimeline([first, late], NOW, UTC))).toEqual([
      "[Today]",
      "a:start,end",
      "a:start,end",
    ]);
  });

  it("never groups across midnight, even a minute apart", () => {
    const items = chatTimeline(
      [msg("a", "2026-11-22T23:59:30Z"), msg("a", "2026-11-23T00:00:30Z")],
      NOW,
      UTC,
    );
    expect(shape(items)).toEqual(["[Yesterday]", "a:start,end", "[Today]", "a:start,end"]);
  });

  it("keeps messages being sent or failed apart from stored ones", () => {
    const items = chatTimeline(
      [
        msg("a", "2026-11-23T10:00:00Z"),
        msg("a", "2026-11-23T10:00:10Z", "pending"),
        msg("a", "2026-11-23T10:00:20Z", "pending"),
        msg("a", "2026-11-23T10:00:30Z", "failed"),
      ],
      NOW,
      UTC,
    );
    expect(shape(items)).toEqual(["[Today]", "a:start,end", "a:start", "a:end", "a:start,end"]);
  });

  it("does not group a message older than the one before it (clock skew)", () => {
    expect(sameGroup(msg("a", "2026-11-23T10:05:00Z"), msg("a", "2026-11-23T10:00:00Z"))).toBe(
      false,
    );
  });
});
