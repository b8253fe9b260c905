import type { Env } from "./env.server";
import type { ActiveSession, SessionUser } from "./session.server";

/**
 * What the Worker resolves once per request and hands to both the Hono API and Remix's loaders
 * and actions (as the Remix load context).
 */
export interface RequestContext {
  env: Env;
  executionCtx: { waitUntil(promise: Promise<unknown>): void };
  requestId: string;
  user: SessionUser | null;
  session: ActiveSession | null;
  /** The CSRF token for the page's meta tag and forms. */
  csrfToken: string;
  /** The Remix build version, for the client's deploy-skew check. */
  buildVersion: string;
  /** Queues a Set-Cookie header onto whatever response this request ends with. */
  appendCookie(cookie: string): void;
  /** Replaces the CSRF secret (at sign-in and sign-out) and returns the new token. */
  rotateCsrf(): Promise<string>;
  meta: { ip: string; userAgent: string | null; origin: string };
  /** This response's Content-Security-Policy nonce (worker/security-headers.ts). */
  cspNonce: string;
  /** A page that failed with a 500 is counted and tracked as the API's are (worker/app.ts). */
  reportError?(error: unknown): void;
}

declare module "@remix-run/cloudflare" {
  interface AppLoadContext extends RequestContext {}
}

export function requestMeta(request: Request): RequestContext["meta"] {
  let origin: string | undefined;
  return {
    // Cloudflare sets CF-Connecting-IP itself; X-Forwarded-For is whatever the client wrote, so
    // per-IP limits never read it. Without the header (local workerd) every request is local.
    ip: request.headers.get("CF-Connecting-IP") ?? "127.0.0.1",
    userAgent: request.headers.get("User-Agent"),
    // Parsed when first read (links in emails): most requests never do.
    get origin() {
      return (origin ??= new URL(request.url).origin);
    },
  };
}

/** A browser's speculative fetch (a link prefetched on hover), which is not the member's visit. */
export function isPrefetch(request: Request): boolean {
  const purpose = `${request.headers.get("Sec-Purpose") ?? ""} ${request.headers.get("Purpose") ?? ""}`;
  return /prefetch/i.test(purpose);
}
