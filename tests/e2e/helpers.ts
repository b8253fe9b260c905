/**
 * Shared pieces for the browser tests: Chromium, contexts and pages against the Worker that
 * global-setup.ts started, and the member flows every feature test starts from (register, read the
 * dev mailbox, verify, sign in and out).
 *
 * Everything waits for a condition (an element, a URL, an email) with a bounded timeout; nothing
 * sleeps for a fixed time.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from "playwright-core";
import { afterAll, beforeAll, expect, inject, onTestFinished } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../scripts/lib/chromium";
import { eventually } from "../../scripts/lib/wait";

export { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../scripts/lib/chromium";

/** Per-action and per-navigation bounds: generous for a slow CI machine, short enough to fail clearly. */
export const ACTION_TIMEOUT_MS = 15_000;
export const NAVIGATION_TIMEOUT_MS = 30_000;
export const EMAIL_TIMEOUT_MS = 15_000;

const ARTIFACTS_DIR = fileURLToPath(new URL("../../test-results/e2e/", import.meta.url));

/** The Worker's origin, e.g. `http://127.0.0.1:41234`. */
export function baseUrl(): string {
  const url = inject("e2eBaseUrl");
  if (!url)
    throw new Error("e2eBaseUrl is missing: run the browser tests with vitest.e2e.config.ts");
  return url;
}

/** `Login` → `Login - Heartline` (docs/domain.md "Pages, navigation and appearance"). */
export const pageTitle = (name: string) => `${name} - Heartline`;

/** Asserts the page's title, allowing a client-side navigation a moment to render it. */
export async function expectTitle(page: Page, name: string): Promise<void> {
  await expect.poll(() => page.title(), { timeout: ACTION_TIMEOUT_MS }).toBe(pageTitle(name));
}

/**
 * Chromium for the tests of the `describe` that calls this: launched before its first test and
 * closed after its last. Returns the browser as a function, since it exists only once the tests
 * have started (`openPage(browser(), …)`); a `beforeAll` declared after this call can use it.
 */
export function useBrowser(extraArgs: string[] = []): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [...CHROMIUM_ARGS, ...extraArgs],
      timeout: 60_000,
    });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error("Chromium is not launched yet: use the browser inside tests");
    return browser;
  };
}

/** A fresh, isolated browser context (own cookies and storage) whose relative URLs go to the Worker. */
export async function newContext(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: baseUrl(),
    locale: "en-US",
    timezoneId: "UTC",
    ...options,
  });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS);
  return context;
}

/**
 * Waits until React has hydrated the server-rendered document: before that a click on a control
 * with a React handler is lost, and a controlled input is reset when hydration catches up.
 * (React 18 keeps the root on the container `hydrateRoot` received, here `document`; its state
 * says `isDehydrated: false` once hydration has committed.)
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page
    .waitForFunction(
      () => {
        // A page sent without the app's scripts (app/lib/static-page.ts) is ready once loaded.
        if (!document.querySelector('script[type="module"]')) {
          return document.readyState === "complete";
        }
        const doc = document as unknown as Record<string, unknown>;
        const key = Object.keys(doc).find((k) => k.startsWith("__reactContainer$"));
        if (!key) return false;
        const root = doc[key] as {
          stateNode?: { current?: { memoizedState?: { isDehydrated?: boolean } } };
        };
        return root.stateNode?.current?.memoizedState?.isDehydrated === false;
      },
      undefined,
      { timeout: NAVIGATION_TIMEOUT_MS },
    )
    .catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`${page.url()} was not hydrated by React: ${reason}`);
    });
}

/** Opens a page of the app and waits for it to be interactive. Fails on an error status. */
export async function visit(page: Page, pathname: string): Promise<void> {
  const response = await page.goto(pathname);
  if (!response) throw new Error(`No response for ${pathname}`);
  if (response.status() >= 400) {
    throw new Error(`GET ${pathname} answered ${response.status()} (${page.url()})`);
  }
  await waitForHydration(page);
}

/**
 * Opens `pathname` the way a link inside the app does: a navigation started by an app page, so the
 * request is same-origin (`Sec-Fetch-Site: same-origin`). A profile visit records a view only then;
 * `visit` is a typed address (`none`), which records nothing.
 */
export async function visitFromApp(page: Page, pathname: string): Promise<void> {
  if (!page.url().startsWith(baseUrl())) await visit(page, "/dashboard");
  await Promise.all([
    page.waitForURL((url) => url.pathname === pathname, { timeout: NAVIGATION_TIMEOUT_MS }),
    page.evaluate((target) => window.location.assign(target), pathname),
  ]);
  await waitForHydration(page);
}

/** The path (and query) of the page's current URL. */
export function currentPath(page: Page): string {
  const url = new URL(page.url());
  return url.pathname + url.search;
}

/** Waits for the page to arrive at `pathname` (query string ignored), by full load or client navigation. */
export async function waitForPath(page: Page, pathname: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === pathname, { timeout: NAVIGATION_TIMEOUT_MS });
  await waitForHydration(page);
}

/** The session cookie's name outside production (docs/api.md "Conventions"). */
export const SESSION_COOKIE = "heartline_session";

export async function getCookie(context: BrowserContext, name: string) {
  const cookies = await context.cookies(baseUrl());
  return cookies.find((c) => c.name === name);
}

export async function cookieValue(context: BrowserContext, name: string) {
  return (await getCookie(context, name))?.value;
}

/** Days from now until a cookie expires (`expires` is in seconds; -1 means a session cookie). */
export function daysUntil(expiresSeconds: number): number {
  return (expiresSeconds * 1000 - Date.now()) / 86_400_000;
}

// ---------------------------------------------------------------------------------------------
// Members

export interface TestMember {
  username: string;
  email: string;
  password: string;
  dateOfBirth: string;
}

let memberCounter = 0;

/**
 * A member nobody else in this run (or an earlier run against the same database) uses.
 * Usernames are 3 to 30 letters, numbers or underscores.
 */
export function uniqueMember(prefix = "e2e", overrides: Partial<TestMember> = {}): TestMember {
  memberCounter += 1;
  const suffix = `${Date.now().toString(36)}${process.pid.toString(36)}${memberCounter}${Math.random()
    .toString(36)
    .slice(2, 6)}`;
  const username = `${prefix.slice(0, Math.max(1, 29 - suffix.length))}_${suffix}`.slice(0, 30);
  return {
    username,
    email: `${username.toLowerCase()}@example.test`,
    password: "correct-horse-battery-staple-9",
    dateOfBirth: "1994-05-17",
    ...overrides,
  };
}

/** Fills and submits /register; ends on the verification notice (/verify-email), signed in. */
export async function registerThroughUi(page: Page, member: TestMember): Promise<void> {
  if (new URL(page.url()).pathname !== "/register") await visit(page, "/register");
  else await waitForHydration(page);
  await page.getByLabel("Username").fill(member.username);
  await page.getByLabel("Email").fill(member.email);
  await page.getByLabel("Date of birth").fill(member.dateOfBirth);
  await page.getByLabel("Password", { exact: true }).fill(member.password);
  await page.getByLabel("Confirm password").fill(member.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await waitForPath(page, "/verify-email");
}

/** Fills and submits /login; ends on `expectPath` (the dashboard by default). */
export async function signInThroughUi(
  page: Page,
  member: Pick<TestMember, "email" | "password">,
  { remember = false, expectPath = "/dashboard" } = {},
): Promise<void> {
  if (new URL(page.url()).pathname !== "/login") await visit(page, "/login");
  else await waitForHydration(page);
  await page.getByLabel("Email").fill(member.email);
  await page.getByLabel("Password", { exact: true }).fill(member.password);
  if (remember) await page.getByLabel("Remember me").check();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await waitForPath(page, expectPath);
}

/** Opens the header's account menu and presses "Sign out"; ends on /login. */
export async function signOutThroughUi(page: Page): Promise<void> {
  await page.locator(".site-header summary", { hasText: "Account menu" }).click();
  await page.getByRole("button", { name: "Sign out" }).click();
  await waitForPath(page, "/login");
}

// ---------------------------------------------------------------------------------------------
// Dev mailbox

export interface MailboxEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  sent_at: string;
}

/** Every email in /dev/mailbox, newest first. */
export async function readMailbox(): Promise<MailboxEmail[]> {
  const response = await fetch(`${baseUrl()}/dev/mailbox`, {
    headers: { Accept: "application/json" },
  });
  if (!response.ok) throw new Error(`GET /dev/mailbox answered ${response.status}`);
  const body = (await response.json()) as { emails?: MailboxEmail[] };
  if (!Array.isArray(body.emails))
    throw new Error("GET /dev/mailbox did not return {emails: [...]}");
  return body.emails;
}

/**
 * The newest email to `address` (optionally with a matching subject and sent at or after `since`),
 * waiting for it to arrive.
 */
export async function latestEmailFor(
  address: string,
  {
    subject,
    since,
    timeoutMs = EMAIL_TIMEOUT_MS,
  }: { subject?: string | RegExp; since?: Date; timeoutMs?: number } = {},
): Promise<MailboxEmail> {
  const wanted = address.toLowerCase();
  return eventually(
    async () => {
      const emails = await readMailbox();
      return emails.find(
        (e) =>
          e.to.toLowerCase() === wanted &&
          (subject === undefined ||
            (typeof subject === "string" ? e.subject === subject : subject.test(e.subject))) &&
          (since === undefined || Date.parse(e.sent_at) >= since.getTime() - 1000),
      );
    },
    { timeoutMs, intervalMs: 100, what: `an email to ${address}` },
  );
}

/** The first link in an email whose path starts with `pathPrefix`, as an absolute URL. */
export function linkFromEmail(email: MailboxEmail, pathPrefix: string): URL {
  const html = email.html.replaceAll("&amp;", "&");
  for (const source of [email.text, html]) {
    for (const match of source.matchAll(/https?:\/\/[^\s"'<>]+/g)) {
      const url = new URL(match[0]);
      if (url.pathname.startsWith(pathPrefix)) return url;
    }
  }
  throw new Error(`No ${pathPrefix} link in the email "${email.subject}" to ${email.to}`);
}

/**
 * Opens the verification link of the newest verification email, which starts onboarding; then,
 * unless `onboarding` is "stay", skips it for now and ends on the dashboard.
 */
export async function verifyEmailThroughMailbox(
  page: Page,
  member: TestMember,
  { onboarding = "skip" }: { onboarding?: "skip" | "stay" } = {},
): Promise<URL> {
  const email = await latestEmailFor(member.email);
  const link = linkFromEmail(email, "/verify-email/");
  await page.goto(link.toString());
  await waitForPath(page, "/onboarding");
  if (onboarding === "skip") await skipOnboardingThroughUi(page);
  return link;
}

/** From any onboarding step: "Skip for now", then the knowing "Skip for now"; ends on the dashboard. */
export async function skipOnboardingThroughUi(page: Page): Promise<void> {
  await page.getByRole("link", { name: "Skip for now" }).click();
  await page.waitForURL((url) => url.searchParams.get("step") === "review");
  await page.getByRole("button", { name: "Skip for now" }).click();
  await waitForPath(page, "/dashboard");
}

/**
 * Inside a test: a new member who registered and verified through the UI, signed in on a page of
 * its own context (closed when the test finishes, see `openPage`).
 */
export async function registerVerifiedMember(
  browser: Browser,
  prefix = "e2e",
): Promise<{ member: TestMember; page: Page }> {
  const member = uniqueMember(prefix);
  const page = await openPage(browser, { label: member.username });
  await registerThroughUi(page, member);
  await verifyEmailThroughMailbox(page, member);
  return { member, page };
}

// ---------------------------------------------------------------------------------------------
// Pages that clean up after themselves

let pageCounter = 0;

/**
 * A page in a fresh context, for use inside a test. When the test finishes the context is closed;
 * when it failed, the page's screenshot, HTML and console output are first written to
 * test-results/e2e/ (gitignored) so a CI log can point at them.
 */
export async function openPage(
  browser: Browser,
  { label, ...options }: BrowserContextOptions & { label?: string } = {},
): Promise<Page> {
  const testName = expect.getState().currentTestName ?? "e2e";
  pageCounter += 1;
  const name = `${testName}-${label ?? `page${pageCounter}`}`;
  const context = await newContext(browser, options);
  const page = await context.newPage();
  const consoleLines: string[] = [];
  page.on("console", (message) => consoleLines.push(`[${message.type()}] ${message.text()}`));
  page.on("pageerror", (error) => consoleLines.push(`[pageerror] ${error.message}`));
  onTestFinished(async ({ task }) => {
    try {
      if (task.result?.state === "fail") await saveArtifacts(page, name, consoleLines);
    } finally {
      await context.close();
    }
  });
  return page;
}

async function saveArtifacts(page: Page, name: string, consoleLines: string[]): Promise<void> {
  if (page.isClosed()) return;
  const base = path.join(ARTIFACTS_DIR, name.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 120));
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: `${base}.png`, fullPage: true, timeout: 10_000 }).catch(() => {});
  await writeFile(`${base}.html`, await page.content().catch(() => ""));
  await writeFile(`${base}.console.txt`, [`url: ${page.url()}`, ...consoleLines].join("\n"));
  console.error(`[e2e] failed at ${page.url()}; artifacts in ${base}.*`);
}
