/**
 * `fetchpriority="high"` for the image that is a page's largest paint (the main photo, the first
 * face), so that the browser fetches it before the page's scripts. Written in lower case: React 18
 * passes unknown lower-case attributes through as they are.
 */
export const HIGH_FETCH_PRIORITY = { fetchpriority: "high" } as Record<string, string>;
