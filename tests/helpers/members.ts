import { env } from "cloudflare:test";
import { TestClient } from "./client";

let counter = 0;

export function adultBirthday(years = 25) {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

export function uniqueMember(prefix = "member") {
  counter += 1;
  const tag = `${prefix}${counter}${Math.random().toString(36).slice(2, 6)}`;
  return {
    username: tag.slice(0, 30),
    email: `${tag}@example.test`,
    password: "correct horse battery",
    password_confirmation: "correct horse battery",
    dateOfBirth: adultBirthday(),
  };
}

/** Registers a member through the API; signed in afterwards. */
export async function registerMember(overrides: Partial<ReturnType<typeof uniqueMember>> = {}) {
  const client = new TestClient();
  const details = { ...uniqueMember(), ...overrides };
  const res = await client.json<{ user: { id: string } }>("POST", "/register", details);
  if (res.status !== 201)
    throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  // The verification email comes through the email queue: once it is here, nothing is in flight.
  if (!(await latestEmailTo(details.email))) throw new Error("no verification email arrived");
  return { client, details, id: res.body.user.id };
}

/** How many emails the local mailbox holds for an address now. */
export async function countEmailsTo(address: string): Promise<number> {
  const row = await env.DB.prepare(
    "SELECT count(*) AS n FROM dev_mailbox WHERE lower(`to`) = lower(?1)",
  )
    .bind(address)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

export interface MailboxEmail {
  id: number;
  subject: string;
  text: string;
  html: string;
  /** JSON of the headers beyond From, To and Subject (List-Unsubscribe…), or null. */
  headers: string | null;
  sent_at: string;
}

/**
 * The emails the local mailbox holds for an address, oldest first, once there are at least
 * `atLeast` (the email queue delivers them a moment after the request that sent them), or what
 * there is after 5 s.
 */
export async function mailboxOf(address: string, atLeast: number): Promise<MailboxEmail[]> {
  const read = async () =>
    (
      await env.DB.prepare("SELECT * FROM dev_mailbox WHERE lower(`to`) = lower(?1) ORDER BY id")
        .bind(address)
        .all<MailboxEmail>()
    ).results;
  const deadline = Date.now() + 5000;
  let emails = await read();
  while (emails.length < atLeast && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    emails = await read();
  }
  return emails;
}

/**
 * The newest email sent to an address, once the email queue has delivered it: waits (up to 5 s)
 * until the address has more than `before` emails.
 */
export async function latestEmailTo(address: string, before = 0) {
  const emails = await mailboxOf(address, before + 1);
  return emails.length > before ? emails.at(-1)! : null;
}

export function firstLink(text: string) {
  const match = text.match(/https?:\/\/\S+/);
  if (!match) throw new Error("no link in email");
  const url = new URL(match[0]);
  return `${url.pathname}${url.search}`;
}

/**
 * Registers a member and follows the verification link from their email. Then, unless
 * `onboarding` is "pending", the member skips onboarding for now (as "Skip for now" does), so that
 * the dashboard and Discover open for them.
 */
export async function verifiedMember(
  overrides: Partial<ReturnType<typeof uniqueMember>> = {},
  { onboarding = "skipped" }: { onboarding?: "pending" | "skipped" } = {},
) {
  const member = await registerMember(overrides);
  const email = await latestEmailTo(member.details.email);
  const res = await member.client.fetch(firstLink(email!.text));
  if (res.status !== 303) throw new Error(`verification failed: ${res.status}`);
  if (onboarding === "skipped") {
    const skipped = await member.client.form("/onboarding", { intent: "skip" });
    if (skipped.status !== 302) throw new Error(`skipping onboarding failed: ${skipped.status}`);
  }
  return member;
}
