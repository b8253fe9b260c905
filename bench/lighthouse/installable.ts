/**
 * The installable app as Chromium sees it (docs/decisions/032), for bench/lighthouse/run.ts:
 * Lighthouse 12 no longer has its PWA category, so the bench asks Chromium itself. In a profile of
 * its own (an incognito context is never installable), a page that registers the service worker
 * opens; once the worker controls it, `Page.getInstallabilityErrors` must be empty and
 * `Page.getAppManifest` without errors; then, with the network gone, a navigation must show the
 * offline page, and how long that took.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../scripts/lib/chromium";

export interface Installability {
  /** Chromium's installability errors (none: installable). */
  errors: string[];
  manifestErrors: string[];
  /** Whether a navigation without a network showed the offline page, and in how many ms. */
  offlinePage: boolean;
  offlineMs: number | null;
}

export async function checkInstallable(base: string): Promise<Installability> {
  const profile = await mkdtemp(path.join(os.tmpdir(), "heartline-lh-install-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${base}/login`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
      timeout: 30_000,
    });
    const cdp = await context.newCDPSession(page);
    const manifest = await cdp.send("Page.getAppManifest");
    const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
    await context.setOffline(true);
    const started = performance.now();
    await page.goto(`${base}/my/matches`).catch(() => undefined);
    const offlinePage = await page
      .getByRole("heading", { name: "You are offline" })
      .waitFor({ timeout: 10_000 })
      .then(() => true)
      .catch(() => false);
    const offlineMs = offlinePage ? Math.round(performance.now() - started) : null;
    return {
      errors: installabilityErrors.map((e) => e.errorId),
      manifestErrors: manifest.errors.map((e) => e.message),
      offlinePage,
      offlineMs,
    };
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}
