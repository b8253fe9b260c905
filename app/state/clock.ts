import { useEffect } from "react";
import { useRootData } from "~/lib/root-data";
import { atom, useAtomValue, useSetAtom } from "./jotai";

/** How often relative times ("5 minutes ago") move on while a page stays open. */
export const CLOCK_TICK_MS = 30_000;

/**
 * The browser's clock once the page is hydrated; null before. Until then every relative time is
 * computed from the server's clock (the root loader's `now`), so the server HTML and the first
 * client render are identical whatever the browser's clock says, and React never discards them.
 */
export const clientNowAtom = atom<number | null>(null);

/** "Now" for rendering: the server's time during hydration, then the browser's, ticking. */
export function useNow(): number {
  const clientNow = useAtomValue(clientNowAtom);
  const root = useRootData();
  return clientNow ?? root?.now ?? Date.now();
}

/**
 * The time zone and locale to lay dates out in: UTC and English during hydration (the server's,
 * which cannot know the reader's), then the reader's own.
 */
export function useDateZone(): { timeZone?: string; locale?: string } {
  return useAtomValue(clientNowAtom) === null ? SERVER_ZONE : READER_ZONE;
}
const SERVER_ZONE = { timeZone: "UTC", locale: "en-US" };
const READER_ZONE = {};

/** Mounted once in the root: switches to the browser's clock after hydration and keeps it fresh. */
export function useClockTicker(): void {
  const setNow = useSetAtom(clientNowAtom);
  useEffect(() => {
    const tick = () => setNow(Date.now());
    tick();
    const id = setInterval(tick, CLOCK_TICK_MS);
    return () => clearInterval(id);
  }, [setNow]);
}
