import { env } from "cloudflare:test";
import { nextIp, TestClient } from "./client";
import { mailboxOf } from "./members";

/** Cookie names outside production (production prefixes them with `__Host-`). */
export const SESSION_COOKIE = "heartline_session";
export const CSRF_COOKIE = "heartline_csrf";

export interface PublicUser {
  id: string;
  username: string;
  email: string;
  email_verified_at: string | null;
}

/** A second browser holding a copy of this one's cookies and page token, from another address. */
export function cloneClient(client: TestClient, ip = nextIp()): TestClient {
  const copy = new TestClient(ip);
  for (const [k, v] of client.cookies) copy.cookies.set(k, v);
  copy.csrfToken = client.csrfToken;
  return copy;
}

/** Signs in through the JSON API from a fresh browser (or the one given). */
export async function signInAs(
  email: string,
  password: string,
  opts: { remember?: boolean; client?: TestClient } = {},
) {
  const client = opts.client ?? new TestClient();
  const res = await client.json<{ user: PublicUser }>("POST", "/login", {
    email,
    password,
    ...(opts.remember === undefined ? {} : { remember: opts.remember }),
  });
  if (res.status !== 200)
    throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { client, res };
}

/**
 * Whether the browser's session authenticates: the status of an endpoint that only needs a
 * signed-in member (202) and answers 401 otherwise. Verified members are not rate-limited there.
 */
export async function authStatus(client: TestClient): Promise<number> {
  const res = await client.json("POST", "/email/verification-notification");
  return res.status;
}

/** The raw Set-Cookie line a response set for one cookie, if any. */
export function setCookieLine(res: Response | Headers, name: string): string | undefined {
  const headers = res instanceof Headers ? res : res.headers;
  return headers.getSetCookie().find((line) => line.startsWith(`${name}=`));
}

/** The value a response set for one cookie, if any. */
export function setCookieValue(res: Response | Headers, name: string): string | undefined {
  const line = setCookieLine(res, name);
  return line?.slice(name.length + 1).split(";")[0];
}

export interface SessionRow {
  id_hash: string;
  user_id: string;
  remember: number;
  created_at: string;
  last_active_at: string;
  expires_at: string;
  password_confirmed_at: string | null;
  ip: string | null;
  user_agent: string | null;
}

export async function sessionsOf(userId: string): Promise<SessionRow[]> {
  const { results } = await env.DB.prepare("SELECT * FROM sessions WHERE user_id = ?1")
    .bind(userId)
    .all<SessionRow>();
  return results;
}

export async function allSessions(): Promise<SessionRow[]> {
  return (await env.DB.prepare("SELECT * FROM sessions").all<SessionRow>()).results;
}

export async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The sessions row behind a browser's session cookie (looked up by the cookie's hash). */
export async function sessionRowOf(client: TestClient): Promise<SessionRow | null> {
  const token = client.cookies.get(SESSION_COOKIE);
  if (!token) return null;
  return env.DB.prepare("SELECT * FROM sessions WHERE id_hash = ?1")
    .bind(await sha256Hex(decodeURIComponent(token)))
    .first<SessionRow>();
}

export interface UserRow {
  id: string;
  username: string;
  email: string;
  password_hash: string;
  email_verified_at: string | null;
}

export async function userByEmail(email: string): Promise<UserRow | null> {
  return env.DB.prepare("SELECT * FROM users WHERE email = ?1 COLLATE NOCASE")
    .bind(email)
    .first<UserRow>();
}

export async function countUsers(): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM users").first<{ n: number }>();
  return row?.n ?? 0;
}

export const isoAgo = (ms: number) => new Date(Date.now() - ms).toISOString();
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * Every email in the local mailbox for one address, oldest first. Emails leave through the email
 * queue, after the request that sent them has answered: this waits (up to 5 s) until at least
 * `expected` have arrived, then a little longer, so that one more than expected would show too.
 */
export async function emailsTo(address: string, expected = 0) {
  await mailboxOf(address, expected);
  // And a moment more, for an email the test expects not to come.
  await new Promise((resolve) => setTimeout(resolve, 150));
  return mailboxOf(address, 0);
}

/** The page's <title>. */
export function titleOf(html: string): string | undefined {
  return html.match(/<title>([^<]*)<\/title>/)?.[1];
}
