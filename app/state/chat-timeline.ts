/**
 * How a conversation's messages are laid out: a day separator ("Today", "Yesterday", "Monday",
 * "Mon, Nov 3") before the first message of each calendar day, and consecutive messages of one
 * sender a few minutes apart grouped, so that the group shows its time once (under its last
 * message) and its bubbles sit close together.
 *
 * Pure functions of the messages and "now" (`useNow()` of app/state/clock.ts, as <TimeAgo> does),
 * in the reader's time zone unless one is given, so that they can be tested in any zone.
 */

/** Two messages of one sender this close (and on one day) belong to one group. */
export const GROUP_GAP_MS = 5 * 60_000;

export interface TimelineMessage {
  sender_id: string;
  sent_at: string;
  /** Messages still being sent, or that failed, always show their own state. */
  status?: string;
}

export interface TimelineOptions {
  /** An IANA time zone; the runtime's own (the reader's, in a browser) when absent. */
  timeZone?: string;
  /** A BCP 47 locale for the dates; the runtime's own when absent. */
  locale?: string;
}

export type TimelineItem<M extends TimelineMessage> =
  | { kind: "day"; key: string; label: string }
  | {
      kind: "message";
      message: M;
      /** First bubble of its group (the group's sender changed, or time passed). */
      groupStart: boolean;
      /** Last bubble of its group: the one that shows the time. */
      groupEnd: boolean;
    };

const DAY_MS = 86_400_000;

/** The calendar day of an instant in a time zone, as YYYY-MM-DD. */
export function dayKey(at: number | string, timeZone?: string): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return "";
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")}`;
}

/** Whole calendar days from day `a` to day `b` (YYYY-MM-DD each). */
function daysBetween(a: string, b: string): number {
  const utc = (key: string) => {
    const [y, m, d] = key.split("-").map(Number);
    return Date.UTC(y!, m! - 1, d!);
  };
  return Math.round((utc(b) - utc(a)) / DAY_MS);
}

/**
 * The separator's words for the day of `at`: "Today", "Yesterday", the weekday within the last
 * week, the date within the year, and the date with its year before that.
 */
export function dayLabel(at: number | string, now: number, options: TimelineOptions = {}): string {
  const { timeZone, locale } = options;
  const key = dayKey(at, timeZone);
  if (!key) return "";
  const ago = daysBetween(key, dayKey(now, timeZone));
  if (ago === 0) return "Today";
  if (ago === 1) return "Yesterday";
  const date = new Date(at);
  if (ago > 1 && ago < 7) return date.toLocaleDateString(locale, { timeZone, weekday: "long" });
  const sameYear = key.slice(0, 4) === dayKey(now, timeZone).slice(0, 4);
  return date.toLocaleDateString(locale, {
    timeZone,
    weekday: "short",
    day: "numeric",
    month: "short",
    ...(sameYear ? {} : { year: "numeric" }),
  });
}

/** Whether `next` continues the group that `previous` is in. */
export function sameGroup(
  previous: TimelineMessage,
  next: TimelineMessage,
  timeZone?: string,
): boolean {
  if (previous.sender_id !== next.sender_id) return false;
  if (previous.status || next.status) return previous.status === next.status;
  const gap = Date.parse(next.sent_at) - Date.parse(previous.sent_at);
  if (!(gap >= 0 && gap <= GROUP_GAP_MS)) return false;
  return dayKey(previous.sent_at, timeZone) === dayKey(next.sent_at, timeZone);
}

/** The messages (oldest first) with their day separators and group boundaries. */
export function chatTimeline<M extends TimelineMessage>(
  messages: readonly M[],
  now: number,
  options: TimelineOptions = {},
): TimelineItem<M>[] {
  const items: TimelineItem<M>[] = [];
  let day = "";
  messages.forEach((message, i) => {
    const previous = messages[i - 1];
    const next = messages[i + 1];
    const key = dayKey(message.sent_at, options.timeZone);
    const newDay = key !== day;
    if (newDay && key) {
      items.push({ kind: "day", key, label: dayLabel(message.sent_at, now, options) });
      day = key;
    }
    items.push({
      kind: "message",
      message,
      groupStart: !previous || newDay || !sameGroup(previous, message, options.timeZone),
      groupEnd: !next || !sameGroup(message, next, options.timeZone),
    });
  });
  return items;
}
