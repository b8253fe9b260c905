import { useEffect } from "react";
import { watchPresence } from "./client";

/**
 * Tells the presence room which members this page (or part of it) shows: the cards of a search,
 * the likes and matches, the conversations, the open conversation, a profile. The room then sends
 * `here` for them and their arrivals and departures only (docs/realtime.md "Presence room"); every
 * part's list goes into one watch set for the page, at most 500 members.
 *
 *   usePresenceWatch(results.map((m) => m.id));
 */
export function usePresenceWatch(ids: readonly string[]) {
  const key = ids.join(",");
  useEffect(() => {
    if (key === "") return;
    return watchPresence(key.split(","));
  }, [key]);
}
