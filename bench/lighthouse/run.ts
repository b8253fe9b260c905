/**
 * Lighthouse on Heartline's key pages, on a phone and a desktop, and the budgets of issue 15:
 * performance ≥ 95, accessibility 100, best practices 100.
 *
 *   npm run build
 *   npx tsx bench/lighthouse/run.ts            # prints the table; exits 1 when a budget is missed
 *   npx tsx bench/lighthouse/run.ts --write    # and writes it to README.md ("Lighthouse")
 *   npx tsx bench/lighthouse/run.ts --pages welcome,chat --forms mobile
 *   npx tsx bench/lighthouse/run.ts --reports /dev/shm/lh   # and keeps each full JSON report there
 *
 * The Worker runs in workerd with the inspector off, on fresh state (bench/lib/worker.ts), built
 * from this tree's `npm run build`. A member with a complete profile signs in; around them, a few
 * members with drawn portraits (the seed's), one of whom matched them and wrote first. Lighthouse
 * 12.8 drives Debian's Chromium (CHROME_PATH, default /usr/bin/chromium) with its default mobile
 * (simulated Moto G Power, slow 4G, 4× CPU slowdown) and desktop settings. Then the installable
 * app (bench/lighthouse/installable.ts): Chromium's installability errors and the offline page.
 */
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { ApiSession } from "../../scripts/lib/api-session";
import { renderPortrait } from "../../scripts/lib/portrait";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../scripts/lib/chromium";
import { BenchState, ROOT, startWorker } from "../lib/worker";
import { audit, BUDGET, CATEGORIES, FORMS, type Category, type Form, type Scores } from "./audit";
import { checkInstallable, type Installability } from "./installable";
import { commandLine } from "../lib/args";

function parseArgs(argv: string[]) {
  const { value, flag } = commandLine(argv);
  return {
    write: flag("write"),
    pages: value("pages")?.split(","),
    forms: (value("forms")?.split(",") ?? [...FORMS]) as Form[],
    reports: value("reports"),
  };
}

const log = (line: string) => console.error(`[lighthouse] ${line}`);

/** A member driven through the JSON API (scripts/lib/api-session.ts). */
class Member extends ApiSession {
  id = "";

  constructor(
    base: string,
    readonly username: string,
  ) {
    super(base);
  }

  get email() {
    return `${this.username}@example.test`;
  }

  /** Registers, verifies through the dev mailbox, fills the profile and uploads portraits. */
  async join(profile: Record<string, unknown>, portrait: { gender: string; age: number }) {
    await this.refreshToken();
    const password = "lighthouse-member-password";
    const year = new Date().getUTCFullYear() - portrait.age;
    const registered = await this.expect("POST", "/register", 201, {
      username: this.username,
      email: this.email,
      password,
      password_confirmation: password,
      dateOfBirth: `${year}-03-14`,
    });
    this.id = String((registered.user as { id: string }).id);
    // The email comes through the email queue, a moment after the answer.
    let link: string | undefined;
    for (let tries = 0; !link && tries < 100; tries += 1) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const mailbox = (await (
        await fetch(new URL("/dev/mailbox", this.baseUrl), {
          headers: { Accept: "application/json" },
        })
      ).json()) as { emails: { to: string; text: string }[] };
      const mail = mailbox.emails.find((e) => e.to === this.email);
      link = mail?.text.match(/https?:\/\/\S+\/verify-email\/\S+/)?.[0];
    }
    if (!link) throw new Error(`no verification email for ${this.email}`);
    const url = new URL(link);
    await this.call("GET", `${url.pathname}${url.search}`);
    await this.refreshToken();
    const form = new FormData();
    for (let i = 0; i < 2; i++) {
      const png = renderPortrait({ key: this.username, ethnicity: "Mixed", ...portrait }, i);
      form.append("photos", new File([await toJpeg(png)], `photo${i}.jpg`, { type: "image/jpeg" }));
    }
    await this.expect("POST", "/my/photos", 201, form);
    await this.expect("PUT", "/my/profile", 200, profile);
    // A complete profile finishes onboarding the next time it is looked at.
    await this.call("GET", "/onboarding");
    return this;
  }
}

let encoder: Promise<import("playwright-core").Page> | null = null;

/**
 * The seed's portraits are PNG drawings; members' photos are camera JPEGs (and the app turns large
 * uploads into JPEG before sending them). Chromium encodes them as the app's photo step does.
 */
async function toJpeg(png: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  encoder ??= (async () => {
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    });
    return browser.newPage();
  })();
  const page = await encoder;
  const base64 = await page.evaluate(async (data: string) => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    canvas.getContext("2d")!.drawImage(bitmap, 0, 0);
    const blob = await canvas.convertToBlob({ type: "image/jpeg", quality: 0.85 });
    const out = new Uint8Array(await blob.arrayBuffer());
    let text = "";
    for (const b of out) text += String.fromCharCode(b);
    return btoa(text);
  }, Buffer.from(png).toString("base64"));
  return new Uint8Array(Buffer.from(base64, "base64"));
}

async function closeEncoder() {
  if (encoder) await (await encoder).context().browser()?.close();
}

const PEOPLE = [
  ["Maya", "Woman", 29, ["Hiking", "Jazz", "Coffee"]],
  ["Noor", "Woman", 31, ["Cooking", "Travel"]],
  ["Jonas", "Man", 33, ["Live music", "Cycling"]],
  ["Amara", "Woman", 27, ["Photography", "Art"]],
  ["Luca", "Man", 35, ["Wine", "Reading"]],
  ["Sofia", "Woman", 30, ["Yoga", "Dogs"]],
] as const;

/** The member Lighthouse signs in as, and the people, match and conversation around them. */
async function populate(base: string) {
  const stamp = Date.now().toString(36);
  const viewer = await new Member(base, `lh_viewer_${stamp}`).join(
    {
      firstName: "Alex",
      bio: "Coffee first, then adventures. Looking for someone to share both with.",
      interests: ["Hiking", "Jazz", "Travel"],
      preferences: ["Long-term relationship"],
      ageRange: { min: 24, max: 40 },
      gender: "Man",
    },
    { gender: "Man", age: 32 },
  );
  const others: Member[] = [];
  for (const [firstName, gender, age, interests] of PEOPLE) {
    others.push(
      await new Member(base, `lh_${firstName.toLowerCase()}_${stamp}`).join(
        {
          firstName,
          bio: `${firstName} here: ${interests.join(", ").toLowerCase()} and good conversation.`,
          interests: [...interests],
          preferences: ["Long-term relationship", "New friends"],
          ageRange: { min: 25, max: 45 },
          gender,
        },
        { gender, age },
      ),
    );
  }
  const partner = others[0]!;
  await partner.expect("POST", "/my/likes", 201, { user_id: viewer.id });
  await viewer.expect("POST", "/my/likes", 201, { user_id: partner.id });
  await others[1]!.expect("POST", "/my/likes", 201, { user_id: viewer.id });
  const started = await partner.expect("POST", "/chat/conversations", 201, {
    user_id: viewer.id,
    message: "Hi Alex! I saw you like jazz too. Been to any good concerts lately?",
  });
  const conversation = (started.conversation as { id: string }).id;
  await viewer.expect("POST", `/chat/conversations/${conversation}/messages`, 201, {
    message: "Hi Maya! Yes, a trio at the Blue Note last week. You?",
  });
  await partner.expect("POST", `/chat/conversations/${conversation}/messages`, 201, {
    message: "Jealous! Fancy finding one together this weekend?",
  });
  return {
    cookie: viewer.cookieHeader(),
    pages: {
      welcome: { path: "/", signedIn: false },
      dashboard: { path: "/dashboard", signedIn: true },
      discover: { path: "/my/matches", signedIn: true },
      profile: { path: `/members/${partner.username}`, signedIn: true },
      chat: { path: `/chat?conversation=${conversation}`, signedIn: true },
    } as Record<string, { path: string; signedIn: boolean }>,
  };
}

const README_START = "<!-- lighthouse:start -->";
const README_END = "<!-- lighthouse:end -->";

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const state = new BenchState("lighthouse");
  log("fresh state, migrations");
  await state.reset();
  await state.prepareWorker((config) => {
    // Every member here registers from 127.0.0.1: the per-IP limits would be shared.
    const limits = config.vars?.RATE_LIMITS as Record<string, string> | undefined;
    for (const name of Object.keys(limits ?? {})) {
      if (name.endsWith("_ip")) limits![name] = "10000/60";
    }
  });
  const worker = await startWorker(state, { vars: { APP_ENV: "development" } });
  const started = new Date();
  const load = [os.loadavg()[0]!];
  const rows: { page: string; form: Form; scores: Scores }[] = [];
  let installable: Installability | null = null;
  try {
    log(`Worker on ${worker.url}; members, photos, a match and a conversation`);
    const { cookie, pages } = await populate(worker.url).finally(closeEncoder);
    const names = options.pages ?? Object.keys(pages);
    for (const name of names) {
      const page = pages[name];
      if (!page) throw new Error(`unknown page ${name}: one of ${Object.keys(pages).join(", ")}`);
      for (const form of options.forms) {
        const scores = await audit(
          `${worker.url}${page.path}`,
          form,
          page.signedIn ? cookie : null,
          options.reports && path.join(options.reports, `${name}-${form}.json`),
        );
        rows.push({ page: name, form, scores });
        log(`${name} ${form}: ${CATEGORIES.map((c) => `${c} ${scores[c]}`).join(", ")}`);
      }
    }
    installable = await checkInstallable(worker.url);
  } finally {
    load.push(os.loadavg()[0]!);
    await worker.dispose();
  }

  const byPage = new Map<string, Partial<Record<Form, Scores>>>();
  for (const row of rows) byPage.set(row.page, { ...byPage.get(row.page), [row.form]: row.scores });
  const cell = (s: Scores | undefined, c: Category) => (s ? String(s[c]) : "–");
  const table = [
    "| page | performance (mobile / desktop) | accessibility | best practices |",
    "| --- | ---: | ---: | ---: |",
    ...[...byPage].map(
      ([page, s]) =>
        `| ${page} | ${cell(s.mobile, "performance")} / ${cell(s.desktop, "performance")} | ` +
        `${cell(s.mobile, "accessibility")} / ${cell(s.desktop, "accessibility")} | ` +
        `${cell(s.mobile, "best-practices")} / ${cell(s.desktop, "best-practices")} |`,
    ),
  ].join("\n");
  const note =
    `Measured ${started.toISOString().slice(0, 16).replace("T", " ")} UTC by ` +
    "`npx tsx bench/lighthouse/run.ts --write` (Lighthouse 12.8, Debian's Chromium), " +
    `load average ${load.map((l) => l.toFixed(1)).join(" → ")}.`;
  const installLine = installable
    ? `Installable (Chromium's \`Page.getInstallabilityErrors\`): ${
        installable.errors.length === 0 ? "yes, no error" : `no: ${installable.errors.join(", ")}`
      }; manifest errors: ${installable.manifestErrors.length || "none"}; offline page: ${
        installable.offlinePage
          ? `shown in ${installable.offlineMs} ms without a network`
          : "not shown"
      }.`
    : "";
  console.log(`\n${table}\n\n${note}\n\n${installLine}\n`);

  const missed = rows.flatMap((r) =>
    CATEGORIES.filter((c) => r.scores[c] < BUDGET[c]).map(
      (c) => `${r.page} ${r.form} ${c} ${r.scores[c]} < ${BUDGET[c]}`,
    ),
  );
  if (installable && (installable.errors.length > 0 || installable.manifestErrors.length > 0)) {
    missed.push(
      `not installable: ${[...installable.errors, ...installable.manifestErrors].join(", ")}`,
    );
  }
  if (installable && !installable.offlinePage) missed.push("no offline page without a network");
  if (options.write) {
    const readmePath = path.join(ROOT, "README.md");
    const readme = await readFile(readmePath, "utf8");
    const start = readme.indexOf(README_START);
    const end = readme.indexOf(README_END);
    if (start < 0 || end < start) throw new Error(`README.md has no ${README_START} block`);
    const verdict = missed.length
      ? `Budgets not met in this run: ${missed.join("; ")}.`
      : "Every budget was met in this run.";
    await writeFile(
      readmePath,
      `${readme.slice(0, start + README_START.length)}\n${table}\n\n${note} ${verdict}\n\n${installLine}\n${readme.slice(end)}`,
    );
    // The table as the repository's formatter writes it.
    const prettier = createRequire(import.meta.url).resolve("prettier/bin/prettier.cjs");
    spawnSync(process.execPath, [prettier, "--write", readmePath], { stdio: "ignore" });
    log("README.md updated");
  }
  if (missed.length) {
    console.log(`Budgets missed:\n  ${missed.join("\n  ")}`);
    process.exitCode = 1;
  } else console.log("Every budget met.");
}

await main();
