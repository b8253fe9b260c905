import { buildPushPayload } from "@block65/webcrypto-web-push";
import { and, asc, eq, inArray, notInArray, sql } from "drizzle-orm";
import type { PushPayload, PushSubscriptionInput } from "~/schemas/push";
import { fromBase64Url, newId, toBase64Url } from "./crypto.server";
import { pushSubscriptions } from "./db/push";
import { getDb, nowIso } from "./db.server";
import type { Env } from "./env.server";
import { HttpError, ValidationError } from "./errors.server";
import { logFailure } from "./log.server";
import { pushSettingsChanged } from "./member-channel.server";

/**
 * Web push (docs/api.md "Away from the app", docs/decisions/031): the member's browsers that
 * allowed pushes, and sending one push to each of them. A push is a Web Push request (RFC 8030)
 * with an `aes128gcm` payload (RFC 8291) and VAPID authorization (RFC 8292), built by
 * @block65/webcrypto-web-push on Web Crypto. Sending never throws: a push service's 404 or 410
 * removes that subscription, any other failure is logged (`what: "push_send"`).
 *
 * `sendPush` needs only `env` (D1 and the VAPID settings): the member's hub calls it from its
 * alarm as a request handler would.
 */

/** A member keeps at most this many browsers subscribed; a new one pushes out the oldest. */
export const MAX_PUSH_SUBSCRIPTIONS = 10;

/** How long a push service keeps a push for a browser that is offline, unless told otherwise. */
export const DEFAULT_PUSH_TTL_SECONDS = 24 * 60 * 60;

/** How long one push service may take to answer before the push counts as failed. */
const PUSH_TIMEOUT_MS = 10_000;

export type PushUrgency = "low" | "normal" | "high";

export interface PushOptions {
  /** Seconds the push service keeps the push for an offline browser (RFC 8030 §5.2). */
  ttl?: number;
  /** RFC 8030 §5.3: how soon the browser should be woken for it. */
  urgency?: PushUrgency;
}

export interface StoredPushSubscription {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface PushOutcome {
  /** Pushes a push service accepted. */
  sent: number;
  /** Subscriptions removed because their push service said they are gone (404, 410). */
  removed: number;
  /** Pushes that failed otherwise (logged); their subscriptions are kept. */
  failed: number;
}

/** Local development and the tests, exactly: where a push service may be http on this machine. */
export const localPushServicesAllowed = (env: Env) =>
  env.APP_ENV === "development" || env.APP_ENV === "test";

interface Vapid {
  subject: string;
  publicKey: string;
  privateKey: string;
}

/** The VAPID settings, or null when this Worker has no key pair (push is then off). */
function vapidOf(env: Env): Vapid | null {
  const publicKey = env.VAPID_PUBLIC_KEY?.trim();
  const privateKey = env.VAPID_PRIVATE_KEY?.trim();
  const subject = env.VAPID_SUBJECT?.trim();
  if (!publicKey || !privateKey || !subject) return null;
  return { subject, publicKey, privateKey };
}

/**
 * GET /my/push/key: the VAPID public key a browser subscribes with (`applicationServerKey`),
 * base64url of the 65-byte uncompressed P-256 point. 503 when push is not configured here.
 */
export function vapidPublicKey(env: Env): string {
  const vapid = vapidOf(env);
  if (!vapid) throw new HttpError(503, "Push notifications are not available.");
  return vapid.publicKey;
}

/**
 * RFC 8030 §5.4's Topic for a push's tag: a push service keeps only the newest undelivered push
 * of a topic. At most 32 URL-safe base64 characters, so a hash of the tag (its first 192 bits of
 * SHA-256): the same for every push of that tag, and saying nothing of it to the push service.
 */
export async function pushTopic(tag: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(tag));
  return toBase64Url(new Uint8Array(digest).slice(0, 24));
}

/** The browser's key is a point on P-256 (a browser's always is; made-up bytes are not). */
async function isP256Point(p256dh: string): Promise<boolean> {
  try {
    await crypto.subtle.importKey(
      "raw",
      fromBase64Url(p256dh),
      { name: "ECDH", namedCurve: "P-256" },
      false,
      [],
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * POST /my/push/subscriptions. One row per endpoint: the same endpoint again updates its keys
 * and keeps its id (`created` false); an endpoint stored under another member moves to this one
 * with a new id (a browser profile that someone else signs in to now: the pushes follow who is
 * signed in there). A member's subscriptions beyond MAX_PUSH_SUBSCRIPTIONS go, oldest first.
 */
export async function savePushSubscription(
  env: Env,
  userId: string,
  input: PushSubscriptionInput,
  /** The session the browser subscribed in: the subscription ends with it. */
  sessionHash: string | null = null,
): Promise<{ id: string; created: boolean }> {
  if (!(await isP256Point(input.keys.p256dh))) {
    throw new ValidationError({ "keys.p256dh": ["The p256dh key is not a P-256 public key."] });
  }
  const db = getDb(env.DB);
  const id = newId();
  const t = pushSubscriptions;
  const sameMember = sql`${t.userId} = excluded.user_id`;
  const previous = db.select({ userId: t.userId }).from(t).where(eq(t.endpoint, input.endpoint));
  const keep = db
    .select({ id: t.id })
    .from(t)
    .where(eq(t.userId, userId))
    .orderBy(sql`${t.createdAt} DESC`, sql`rowid DESC`)
    .limit(MAX_PUSH_SUBSCRIPTIONS);
  const [owners, saved] = await db.batch([
    previous,
    db
      .insert(t)
      .values({
        id,
        userId,
        endpoint: input.endpoint,
        p256dh: input.keys.p256dh,
        auth: input.keys.auth,
        createdAt: nowIso(),
        sessionHash,
      })
      .onConflictDoUpdate({
        target: t.endpoint,
        set: {
          id: sql`CASE WHEN ${sameMember} THEN ${t.id} ELSE excluded.id END`,
          createdAt: sql`CASE WHEN ${sameMember} THEN ${t.createdAt} ELSE excluded.created_at END`,
          userId: sql`excluded.user_id`,
          p256dh: sql`excluded.p256dh`,
          auth: sql`excluded.auth`,
          sessionHash: sql`excluded.session_hash`,
        },
      })
      .returning({ id: t.id }),
    db.delete(t).where(and(eq(t.userId, userId), notInArray(t.id, keep))),
  ]);
  const savedId = saved[0]!.id;
  // The member's hub, and that of a member this browser was subscribed for before, push from a
  // copy of their subscriptions: both read them again.
  const previousOwner = owners[0]?.userId;
  await Promise.all([
    pushSettingsChanged(env, userId),
    previousOwner && previousOwner !== userId ? pushSettingsChanged(env, previousOwner) : undefined,
  ]);
  return { id: savedId, created: savedId === id };
}

/** DELETE /my/push/subscriptions: the member's own subscription at that endpoint, if any. */
export async function deletePushSubscription(
  env: Env,
  userId: string,
  endpoint: string,
): Promise<void> {
  const t = pushSubscriptions;
  await getDb(env.DB)
    .delete(t)
    .where(and(eq(t.userId, userId), eq(t.endpoint, endpoint)));
  await pushSettingsChanged(env, userId);
}

/** The member's subscriptions, oldest first. */
export async function listPushSubscriptions(
  env: Env,
  userId: string,
): Promise<StoredPushSubscription[]> {
  const t = pushSubscriptions;
  return getDb(env.DB)
    .select({ id: t.id, endpoint: t.endpoint, p256dh: t.p256dh, auth: t.auth })
    .from(t)
    .where(eq(t.userId, userId))
    .orderBy(asc(t.createdAt), sql`rowid`);
}

/**
 * Sends one push to every browser of the member (one D1 read, and one delete when a push service
 * says some are gone). Never throws.
 */
export async function sendPush(
  env: Env,
  userId: string,
  payload: PushPayload,
  options: PushOptions = {},
): Promise<PushOutcome> {
  let subscriptions: StoredPushSubscription[];
  try {
    subscriptions = await listPushSubscriptions(env, userId);
  } catch (error) {
    logFailure("push_send", error, { user_id: userId, step: "list_subscriptions" });
    return { sent: 0, removed: 0, failed: 1 };
  }
  const outcome = await sendPushTo(env, subscriptions, payload, { ...options, userId });
  if (outcome.removed > 0) await pushSettingsChanged(env, userId);
  return outcome;
}

/**
 * Sends one push to each of these subscriptions (a caller that already holds them reads nothing
 * from D1), and removes those whose push service answers 404 or 410. Never throws.
 */
export async function sendPushTo(
  env: Env,
  subscriptions: StoredPushSubscription[],
  payload: PushPayload,
  options: PushOptions & { userId?: string } = {},
): Promise<PushOutcome> {
  const outcome: PushOutcome = { sent: 0, removed: 0, failed: 0 };
  if (subscriptions.length === 0) return outcome;
  const detail = { user_id: options.userId, type: payload.type };
  const vapid = vapidOf(env);
  if (!vapid) {
    logFailure("push_send", new Error("VAPID keys are not configured"), detail);
    return { ...outcome, failed: subscriptions.length };
  }
  let topic: string;
  try {
    topic = await pushTopic(payload.tag);
  } catch (error) {
    logFailure("push_send", error, detail);
    return { ...outcome, failed: subscriptions.length };
  }
  const message = {
    data: { ...payload },
    options: {
      ttl: options.ttl ?? DEFAULT_PUSH_TTL_SECONDS,
      urgency: options.urgency ?? "normal",
      topic,
    },
  };
  const gone: string[] = [];
  await Promise.all(
    subscriptions.map(async (s) => {
      const service = originOf(s.endpoint);
      try {
        const request = await buildPushPayload(
          message,
          { endpoint: s.endpoint, expirationTime: null, keys: { p256dh: s.p256dh, auth: s.auth } },
          vapid,
        );
        const response = await fetch(s.endpoint, {
          method: "POST",
          headers: request.headers,
          body: request.body,
          signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
        });
        // Read to its end (push services answer with an empty or tiny body): a body left unread
        // closes the connection, and the next push to that service would open a new one.
        await response.arrayBuffer().catch(() => undefined);
        if (response.ok) {
          outcome.sent += 1;
        } else if (response.status === 404 || response.status === 410) {
          gone.push(s.id);
        } else {
          outcome.failed += 1;
          // The endpoint itself is a capability: only its push service is logged.
          logFailure("push_send", new Error(`The push service answered ${response.status}`), {
            ...detail,
            subscription_id: s.id,
            push_service: service,
            status: response.status,
            retry_after: response.headers.get("Retry-After") ?? undefined,
          });
        }
      } catch (error) {
        outcome.failed += 1;
        logFailure("push_send", error, { ...detail, subscription_id: s.id, push_service: service });
      }
    }),
  );
  if (gone.length > 0) {
    try {
      await getDb(env.DB).delete(pushSubscriptions).where(inArray(pushSubscriptions.id, gone));
      outcome.removed = gone.length;
    } catch (error) {
      outcome.failed += gone.length;
      logFailure("push_send", error, { ...detail, step: "remove_gone" });
    }
  }
  return outcome;
}

function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return "invalid";
  }
}

/** POST /my/push/test: one push of type `test` to each of the member's browsers. */
export function sendTestPush(env: Env, userId: string): Promise<PushOutcome> {
  return sendPush(
    env,
    userId,
    {
      type: "test",
      title: env.APP_NAME,
      body: "Notifications are on for this browser.",
      url: "/settings/notifications",
      tag: "test",
    },
    { ttl: 10 * 60, urgency: "normal" },
  );
}
