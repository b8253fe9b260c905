import { useEffect, useState } from "react";

const sameDay = (a: Date, b: Date) =>
  a.getFullYear() === b.getFullYear() &&
  a.getMonth() === b.getMonth() &&
  a.getDate() === b.getDate();

/** "14:05" today, "Mon 14:05" this week, "3 Feb" before (in the reader's own time zone). */
export function shortTime(iso: string, now = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const time = date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  if (sameDay(date, now)) return time;
  if (now.getTime() - date.getTime() < 6 * 86_400_000) {
    return `${date.toLocaleDateString(undefined, { weekday: "short" })} ${time}`;
  }
  return date.toLocaleDateString(undefined, { day: "numeric", month: "short" });
}

/**
 * A time in the reader's own zone. The server does not know that zone, so the first render shows
 * the UTC date and the browser replaces it once hydrated.
 */
export function ChatTime({ iso, className }: { iso: string; className?: string }) {
  const [text, setText] = useState(() => iso.slice(0, 10));
  useEffect(() => setText(shortTime(iso)), [iso]);
  return (
    <time dateTime={iso} className={className} title={new Date(iso).toUTCString()}>
      {text}
    </time>
  );
}
