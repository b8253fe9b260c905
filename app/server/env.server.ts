import { z } from "zod";
import type { ConversationRoomApi, MemberHubApi, PresenceRoomApi } from "./room-api.server";

/** A Durable Object namespace whose rooms answer the calls of `Api` (the class implements it). */
type Rooms<Api> = DurableObjectNamespace<Api & Rpc.DurableObjectBranded>;

/** Bindings and variables the Worker receives (wrangler.toml, secrets, .dev.vars). */
export interface Env {
  DB: D1Database;
  PHOTOS: R2Bucket;
  /** Cloudflare Images: photos at the widths pages show them (app/server/photos.server.ts). */
  IMAGES: ImagesBinding;
  ASSETS: Fetcher;
  MEMBER_HUB: Rooms<MemberHubApi>;
  PRESENCE_ROOM: Rooms<PresenceRoomApi>;
  CONVERSATION_ROOM: Rooms<ConversationRoomApi>;
  APP_ENV: string;
  APP_NAME: string;
  APP_KEY: string;
  MAIL_FROM: string;
  MAIL_TRANSPORT: string;
  RESEND_API_KEY?: string;
  /** Development and tests only: Resend's API at another address (a local stand-in). */
  RESEND_API_BASE?: string;
  /** Every email leaves through this queue (app/server/mail.server.ts, docs/decisions/027). */
  EMAIL_QUEUE: Queue;
  /** "on" opens /dev/mailbox (set in wrangler.toml's local [vars] only; see devMailboxOpen). */
  DEV_MAILBOX?: string;
  /** Payments (app/server/payments.server.ts): Stripe when the secret key is set. */
  STRIPE_SECRET_KEY?: string;
  STRIPE_WEBHOOK_SECRET?: string;
  /** Development and tests only: Stripe's API at another address (a local stand-in). */
  STRIPE_API_BASE?: string;
  RATE_LIMITS: Record<string, string>;
  /** The presence room's shards and leave grace (app/realtime/presence-shards.ts). */
  PRESENCE_SHARDS?: string;
  PRESENCE_GRACE_MS?: string;
  /** Sockets a presence shard joins a second before it asks the rest to retry (default 100). */
  PRESENCE_JOINS_PER_SECOND?: string;
  /** "1": send the database time of a search back as a Server-Timing header (benchmarks). */
  SERVER_TIMING?: string;
  /** Workers Analytics Engine: the counters of app/server/metrics.server.ts. */
  METRICS?: AnalyticsEngineDataset;
  /** The error tracker (Sentry): on when set (worker/index.ts). */
  SENTRY_DSN?: string;
  /** The release the error tracker files errors under (the deploy sets it). */
  SENTRY_RELEASE?: string;
  /** Housekeeping's bounds, "rows per statement/statements per job" (worker/scheduled.ts). */
  HOUSEKEEPING_BATCH?: string;
  /**
   * Web push's VAPID key pair (app/server/push.server.ts, docs/decisions/031), secrets: the public
   * key as base64url of the 65-byte uncompressed P-256 point, the private key as base64url of its
   * 32-byte scalar. Locally `npm run dev` makes a pair in .dev.vars.
   */
  VAPID_PUBLIC_KEY?: string;
  VAPID_PRIVATE_KEY?: string;
  /** Who push services contact about this sender's pushes: a mailto: or https: URL. */
  VAPID_SUBJECT?: string;
  /** How long a member has no page open before what happens for them is pushed (seconds). */
  AWAY_PUSH_DELAY_SECONDS?: string;
  /** How long something stays unseen by a member away before their email digest (seconds). */
  AWAY_EMAIL_DELAY_SECONDS?: string;
  /** At most one email digest per member per this long (seconds). */
  EMAIL_DIGEST_INTERVAL_SECONDS?: string;
  /** Days a report's evidence is kept after the reported member deleted their account (90). */
  REPORT_RETENTION_DAYS?: string;
  /**
   * The address members reach the app at (`https://heartline.app`), for links in emails sent
   * without a request (the digest). Unset: the origin of the member's own last page.
   */
  APP_ORIGIN?: string;
  /** Calls (app/server/calls.server.ts): static ICE servers, JSON RTCIceServer[]. */
  ICE_SERVERS?: string;
  /** Cloudflare's TURN service: the key's id, and (a secret) its API token. */
  TURN_KEY_ID?: string;
  TURN_KEY_API_TOKEN?: string;
  /** Development and tests only: the TURN credentials API at another address (a stand-in). */
  TURN_API_BASE?: string;
}

const limitSpec = z
  .string()
  .regex(/^\d+\/\d+$/, "a rate limit is written requests/seconds")
  .transform((v) => {
    const [max, seconds] = v.split("/").map(Number) as [number, number];
    return { max, windowSeconds: seconds };
  });

export const rateLimitNames = [
  "login_ip",
  "login_account",
  "login_account_global",
  "login_device",
  "register_ip",
  "forgot_password_ip",
  "forgot_password_account",
  "verification_resend_ip",
  "verification_resend_account",
  "reset_password_ip",
  "confirm_password_account",
  "chat_send_account",
  "chat_start_account",
  "report_account",
  "photo_verification_account",
] as const;
export type RateLimitName = (typeof rateLimitNames)[number];

const configSchema = z.object({
  appEnv: z.enum(["development", "test", "production"]),
  appKey: z.string().min(32, "APP_KEY must be at least 32 characters"),
  mailTransport: z.enum(["mailbox", "resend"]),
  mailFrom: z.string().min(3),
  resendApiKey: z.string().optional(),
  rateLimits: z.object(
    Object.fromEntries(rateLimitNames.map((n) => [n, limitSpec])) as Record<
      RateLimitName,
      typeof limitSpec
    >,
  ),
});

export type AppConfig = z.infer<typeof configSchema>;

/**
 * Reads the Worker's configuration. Fails loudly (at the first request) when something is missing,
 * rather than running with an unsafe default. Parsed per call: nothing per-request is cached at
 * module level, and the parse is cheap.
 */
export function readConfig(env: Env): AppConfig {
  const config = configSchema.parse({
    appEnv: env.APP_ENV,
    appKey: env.APP_KEY,
    mailTransport: env.MAIL_TRANSPORT,
    mailFrom: env.MAIL_FROM,
    resendApiKey: env.RESEND_API_KEY,
    rateLimits: env.RATE_LIMITS,
  });
  if (config.appEnv === "production" && config.mailTransport === "mailbox") {
    throw new Error("MAIL_TRANSPORT=mailbox is for local development only");
  }
  return config;
}

export const isProduction = (env: Env) => env.APP_ENV === "production";

/** A duration variable given in seconds (`"30"`), in milliseconds; the fallback when unset or bad. */
export function secondsSettingMs(value: string | undefined, fallbackSeconds: number): number {
  const seconds = Number(value ?? fallbackSeconds);
  return Math.round((Number.isFinite(seconds) && seconds >= 0 ? seconds : fallbackSeconds) * 1000);
}

/**
 * /dev/mailbox (the emails local development did not send) exists only when asked for by name:
 * DEV_MAILBOX is "on" (wrangler.toml's local [vars]; production's vars do not have it) and the
 * environment is local development or the tests, exactly. Any other APP_ENV (production, a
 * staging copy, a typo) has no mailbox.
 */
export const devMailboxOpen = (env: Env) =>
  env.DEV_MAILBOX === "on" && (env.APP_ENV === "development" || env.APP_ENV === "test");

/**
 * The secrets a production Worker cannot serve without (`wrangler secret put --env production`).
 * `npm run deploy` checks they exist before it migrates (scripts/predeploy.ts).
 */
export const REQUIRED_PRODUCTION_SECRETS = [
  "APP_KEY",
  "RESEND_API_KEY",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "VAPID_PUBLIC_KEY",
  "VAPID_PRIVATE_KEY",
] as const;

/**
 * What makes a production Worker unsafe to serve: development settings, test payments, missing
 * secrets. Each problem is named; an empty list means the configuration may serve members. The
 * Worker refuses every request (503) while this is not empty in production (worker/app.ts), and
 * says which in its log (docs/runbook.md "config_refused").
 */
export function productionProblems(env: Env): string[] {
  const problems: string[] = [];
  if (env.DEV_MAILBOX !== undefined) problems.push("DEV_MAILBOX is set (the development mailbox)");
  if (env.MAIL_TRANSPORT !== "resend") {
    problems.push(`MAIL_TRANSPORT is "${env.MAIL_TRANSPORT}", not "resend"`);
  }
  if (!env.RESEND_API_KEY) problems.push("RESEND_API_KEY is not set");
  if (!env.APP_KEY || env.APP_KEY.length < 32) {
    problems.push("APP_KEY is not set or shorter than 32 characters");
  }
  if (!env.STRIPE_SECRET_KEY) {
    problems.push("STRIPE_SECRET_KEY is not set (payments would be test payments)");
  } else if (/^(sk|rk)_test_/.test(env.STRIPE_SECRET_KEY)) {
    problems.push("STRIPE_SECRET_KEY is a Stripe test-mode key");
  }
  if (!env.STRIPE_WEBHOOK_SECRET) problems.push("STRIPE_WEBHOOK_SECRET is not set");
  if (env.STRIPE_API_BASE) problems.push("STRIPE_API_BASE is set (a local Stripe stand-in)");
  if (env.TURN_API_BASE) problems.push("TURN_API_BASE is set (a local TURN stand-in)");
  problems.push(...vapidProblems(env));
  return problems;
}

/** The bytes of base64url text (no padding), or null when it is not base64url. */
function base64UrlBytes(value: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]+$/.test(value) || value.length % 4 === 1) return null;
  return Uint8Array.from(atob(value.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
}

/**
 * What is wrong with web push's VAPID settings (app/server/push.server.ts): each problem named,
 * none when the keys have the form browsers and push services take (the public key a 65-byte
 * uncompressed P-256 point, the private key 32 bytes, both base64url) and the subject is a
 * mailto: or https: contact.
 */
export function vapidProblems(env: Env): string[] {
  const problems: string[] = [];
  const publicKey = env.VAPID_PUBLIC_KEY?.trim() ?? "";
  const privateKey = env.VAPID_PRIVATE_KEY?.trim() ?? "";
  const publicBytes = base64UrlBytes(publicKey);
  if (!publicKey) problems.push("VAPID_PUBLIC_KEY is not set");
  else if (publicBytes?.length !== 65 || publicBytes[0] !== 4) {
    problems.push("VAPID_PUBLIC_KEY is not an uncompressed P-256 public key (base64url)");
  }
  if (!privateKey) problems.push("VAPID_PRIVATE_KEY is not set");
  else if (base64UrlBytes(privateKey)?.length !== 32) {
    problems.push("VAPID_PRIVATE_KEY is not a P-256 private key (32 bytes, base64url)");
  }
  if (!/^(mailto:[^\s@]+@\S+|https:\/\/\S+)$/.test(env.VAPID_SUBJECT?.trim() ?? "")) {
    problems.push("VAPID_SUBJECT is not a mailto: or https: contact");
  }
  return problems;
}

/**
 * Why a Worker must refuse to serve or run: productionProblems in production, nothing elsewhere.
 * The fetch handler (worker/app.ts) and the cron (worker/scheduled.ts) both ask. A handful of
 * property reads per request: nothing is cached at module level.
 */
export function configRefusal(env: Env): string[] {
  return isProduction(env) ? productionProblems(env) : [];
}
