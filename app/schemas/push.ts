import { z } from "./zod";

/**
 * Web push (docs/api.md "Away from the app"): what a browser's `PushSubscription.toJSON()` sends
 * to POST /my/push/subscriptions, and the plaintext of every push.
 */

/**
 * What a push is about; the service worker picks its wording and icon by it. `call` rings (a
 * call for a member with no page open), `missed_call` replaces it when nobody answered, and
 * `call_answered` when the member answered or declined it on another device.
 */
export const PUSH_TYPES = [
  "message",
  "match",
  "like",
  "gift",
  "profile_view",
  "call",
  "missed_call",
  "call_answered",
  "test",
] as const;
export type PushType = (typeof PUSH_TYPES)[number];

/** A push's plaintext (JSON), as the service worker reads it. */
export interface PushPayload {
  type: PushType;
  title: string;
  body: string;
  /** The page a click opens (`/chat/{conversationId}` for a message). */
  url: string;
  /**
   * Pushes under one tag replace each other (`conversation:{id}` for messages, `call:{id}` for a
   * conversation's calls).
   */
  tag: string;
  /**
   * A ring's: when it stops ringing (milliseconds since the epoch). A browser takes the ring off
   * the screen once it is past, if nothing replaced it.
   */
  ends_at?: number;
}

export const PUSH_ENDPOINT_MAX_LENGTH = 2000;

/** Hosts a push service may have in local development and the tests only (over plain http too). */
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost"]);

/**
 * A push service's URL: https, or http on this machine where `allowLocalHttp` (local development
 * and the tests, never production).
 */
export function pushEndpointSchema({ allowLocalHttp }: { allowLocalHttp: boolean }) {
  return z
    .string({ error: "The endpoint is required." })
    .trim()
    .min(1, "The endpoint is required.")
    .max(PUSH_ENDPOINT_MAX_LENGTH, "The endpoint is too long.")
    .superRefine((value, ctx) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        ctx.addIssue({ code: "custom", message: "The endpoint must be a URL." });
        return;
      }
      const local = LOCAL_HOSTS.has(url.hostname);
      const allowed =
        url.protocol === "https:" || (allowLocalHttp && url.protocol === "http:" && local);
      if (!allowed) {
        ctx.addIssue({ code: "custom", message: "The endpoint must be an https: URL." });
      } else if (url.username || url.password) {
        ctx.addIssue({ code: "custom", message: "The endpoint must not hold credentials." });
      } else if (!allowLocalHttp && (local || /^[\d.]+$|^\[/.test(url.hostname))) {
        ctx.addIssue({ code: "custom", message: "The endpoint must name a push service." });
      }
    });
}

/** Bytes of base64url text (padding allowed), or null when it is not base64url. */
export function base64UrlBytes(value: string): Uint8Array | null {
  const bare = value.replace(/=+$/, "");
  if (!/^[A-Za-z0-9_-]*$/.test(bare) || bare.length % 4 === 1) return null;
  const binary = atob(bare.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** A browser's key: base64url whose bytes pass `check`, kept without padding. */
const browserKey = (name: string, check: (bytes: Uint8Array) => boolean, message: string) =>
  z
    .string({ error: `The ${name} key is required.` })
    .trim()
    .transform((v, ctx) => {
      const bytes = base64UrlBytes(v);
      if (!bytes || !check(bytes)) {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return v.replace(/=+$/, "");
    });

/** POST /my/push/subscriptions. */
export function pushSubscriptionSchema(options: { allowLocalHttp: boolean }) {
  return z.object({
    endpoint: pushEndpointSchema(options),
    keys: z.object(
      {
        p256dh: browserKey(
          "p256dh",
          (b) => b.length === 65 && b[0] === 4,
          "The p256dh key must be an uncompressed P-256 public key (65 bytes, base64url).",
        ),
        auth: browserKey(
          "auth",
          (b) => b.length === 16,
          "The auth secret must be 16 bytes (base64url).",
        ),
      },
      { error: "The keys are required." },
    ),
  });
}

export type PushSubscriptionInput = z.infer<ReturnType<typeof pushSubscriptionSchema>>;

/** DELETE /my/push/subscriptions: any endpoint the member may have stored. */
export const pushUnsubscribeSchema = z.object({
  endpoint: z
    .string({ error: "The endpoint is required." })
    .trim()
    .min(1, "The endpoint is required.")
    .max(PUSH_ENDPOINT_MAX_LENGTH, "The endpoint is too long."),
});
