/**
 * A day as the money and account pages (and their emails' lines) write it, in UTC so that the
 * server's render and the browser's agree: "April 27, 2027", or "Apr 27, 2027" in tables.
 */
export function dayText(at: string | number, month: "long" | "short" = "long"): string {
  return new Date(at).toLocaleDateString("en-US", {
    year: "numeric",
    month,
    day: "numeric",
    timeZone: "UTC",
  });
}
