/**
 * One Lighthouse 12.8 audit of a page in Debian's Chromium (CHROME_PATH, default
 * /usr/bin/chromium; nothing is downloaded), with issue 15's budgets. Used by
 * bench/lighthouse/run.ts (every key page) and the browser tests (the welcome page).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse, { type Flags } from "lighthouse";
import { chromium } from "playwright-core";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../scripts/lib/chromium";

export const BUDGET = { performance: 95, accessibility: 100, "best-practices": 100 } as const;
export type Category = keyof typeof BUDGET;
export const CATEGORIES = Object.keys(BUDGET) as Category[];
export const FORMS = ["mobile", "desktop"] as const;
export type Form = (typeof FORMS)[number];

/** Lighthouse starts Chromium itself, with the new headless mode. */
export const CHROME_FLAGS = [
  "--headless=new",
  ...CHROMIUM_ARGS.filter((flag) => flag !== "--headless"),
];

const log = (line: string) => console.error(`[lighthouse] ${line}`);

export type Scores = Record<Category, number>;

/**
 * One audit, tried again (up to 3 times) when Chromium's trace of the load comes back broken.
 * With `report`, Lighthouse's full JSON report is written to that file.
 */
export async function audit(
  url: string,
  form: Form,
  cookie: string | null,
  report?: string,
): Promise<Scores> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await auditOnce(url, form, cookie, report);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes("Please run Lighthouse again")) throw error;
      log(`  ${form} ${new URL(url).pathname}: ${String(error)}; again`);
    }
  }
}

async function auditOnce(
  url: string,
  form: Form,
  cookie: string | null,
  report: string | undefined,
): Promise<Scores> {
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM_PATH,
    chromeFlags: CHROME_FLAGS,
  });
  try {
    const flags: Flags = {
      port: chrome.port,
      output: "json",
      logLevel: "error",
      onlyCategories: CATEGORIES,
    };
    // The member's cookies go into the browser itself (Lighthouse clears storage but keeps
    // cookies), so that the page's websockets carry them too, as they do for a member: a Cookie
    // header given to Lighthouse reaches page requests but not the socket upgrades (each answered
    // 401, an error in the console).
    if (cookie) await setCookies(chrome.port, url, cookie);
    const result = await lighthouse(url, flags, form === "desktop" ? desktopConfig : undefined);
    if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
    const { lhr } = result;
    if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.message}`);
    const landed = new URL(lhr.finalDisplayedUrl);
    if (`${landed.pathname}${landed.search}` !== `${new URL(url).pathname}${new URL(url).search}`) {
      throw new Error(`${url} ended on ${lhr.finalDisplayedUrl}`);
    }
    log(`  ${form} ${new URL(url).pathname}: benchmark index ${lhr.environment.benchmarkIndex}`);
    if (report) {
      await mkdir(path.dirname(report), { recursive: true });
      await writeFile(report, JSON.stringify(lhr));
    }
    const scores = {} as Scores;
    for (const c of CATEGORIES) scores[c] = Math.round((lhr.categories[c]?.score ?? 0) * 100);
    for (const c of CATEGORIES) {
      if (scores[c] >= BUDGET[c]) continue;
      const failing = (lhr.categories[c]?.auditRefs ?? [])
        .map((ref) => lhr.audits[ref.id]!)
        .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode !== "informative")
        .map((a) => `${a.id}${a.displayValue ? ` (${a.displayValue})` : ""}`);
      log(`  ${form} ${new URL(url).pathname} ${c} ${scores[c]}: ${failing.join(", ")}`);
      if (c !== "performance") {
        // What to fix: the items behind each failing accessibility or best-practice audit.
        for (const ref of lhr.categories[c]?.auditRefs ?? []) {
          const a = lhr.audits[ref.id]!;
          if (a.score === null || a.score >= 1) continue;
          const items = (a.details as { items?: unknown[] } | undefined)?.items ?? [];
          for (const item of items.slice(0, 5))
            log(`    ${a.id}: ${JSON.stringify(item).slice(0, 400)}`);
        }
      }
    }
    return scores;
  } finally {
    chrome.kill();
  }
}

/** Sets `name=value; …` as cookies of the page's origin in the browser on `port`. */
async function setCookies(port: number, url: string, header: string): Promise<void> {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  try {
    const context = browser.contexts()[0]!;
    await context.addCookies(
      header.split(/;\s*/).flatMap((pair) => {
        const at = pair.indexOf("=");
        if (at <= 0) return [];
        return [{ name: pair.slice(0, at), value: pair.slice(at + 1), url: new URL(url).origin }];
      }),
    );
  } finally {
    // Disconnects from the browser Lighthouse then drives; it keeps running.
    await browser.close();
  }
}
