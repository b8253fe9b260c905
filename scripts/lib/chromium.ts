/**
 * Debian's Chromium (`apt-get install chromium`; nothing downloads a browser here) and the flags
 * this machine's Chromium needs (DESIGN.md "Known gotchas"), for the browser tests and Lighthouse.
 */
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ?? process.env.CHROME_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
