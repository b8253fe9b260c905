import { useMatches } from "@remix-run/react";

/**
 * A page that works without JavaScript can be sent without it (docs/decisions/029): its route
 * says so in its handle, `handle: { hydrate: (data) => false }` (the welcome page, for a
 * visitor who is not signed in). Such a page is plain HTML and CSS: its links and forms are the
 * browser's own, and the page a visitor opens from it loads the app's scripts.
 */
export interface HydrateHandle<Data = unknown> {
  /** Whether the page, with this loader data (none when its loader failed), needs the scripts. */
  hydrate: (data: Data | undefined) => boolean;
}

/**
 * Whether the page being rendered sends the app's scripts: unless a route of the page says it
 * needs none. In the browser the answer is always yes: the page is hydrated, so its scripts run
 * already, and a client-side visit to a static page keeps them.
 */
export function usePageScripts(): boolean {
  const matches = useMatches();
  if (typeof document !== "undefined") return true;
  return matches.every((match) => {
    const handle = match.handle as Partial<HydrateHandle> | undefined;
    return handle?.hydrate ? handle.hydrate(match.data) : true;
  });
}
