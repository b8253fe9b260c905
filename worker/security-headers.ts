import { createMiddleware } from "hono/factory";
import { isProduction } from "~/server/env.server";
import { addResponseHeaders } from "./http";
import type { AppBindings } from "./types";

/**
 * Security headers on every response the Worker gives (docs/decisions/009). Pages get a
 * Content-Security-Policy whose scripts must carry this response's nonce (entry.server.tsx and
 * root.tsx put it on Remix's inline scripts and the theme script): no inline script an attacker
 * could inject runs, and nothing loads from another origin. Everything else (JSON, redirects,
 * errors) gets a policy that allows nothing, unless the route set its own (photos do).
 */
export const securityHeaders = createMiddleware<AppBindings>(async (c, next) => {
  const nonce = newNonce();
  c.set("cspNonce", nonce);
  await next();
  const production = isProduction(c.env);
  addResponseHeaders(c, (headers) => {
    if (!headers.has("Content-Security-Policy")) {
      const type = headers.get("Content-Type") ?? "";
      headers.set(
        "Content-Security-Policy",
        type.startsWith("text/html")
          ? pagePolicy(nonce, new URL(c.req.url), production)
          : NOTHING_POLICY,
      );
    }
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
    headers.set("X-Frame-Options", "DENY");
    headers.set("Permissions-Policy", PERMISSIONS_POLICY);
    headers.set("Cross-Origin-Opener-Policy", "same-origin");
    headers.set("Cross-Origin-Resource-Policy", "same-origin");
    if (production) headers.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
  });
});

/**
 * Features no page of Heartline uses are refused to the page and anything it embeds; the camera
 * and microphone (calls and voice notes) are the page's own, never an embedded frame's.
 */
export const PERMISSIONS_POLICY = [
  "accelerometer=()",
  "camera=(self)",
  "display-capture=()",
  "geolocation=()",
  "gyroscope=()",
  "magnetometer=()",
  "microphone=(self)",
  "midi=()",
  "payment=()",
  "usb=()",
  "browsing-topics=()",
].join(", ");

const NOTHING_POLICY =
  "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function pagePolicy(nonce: string, url: URL, production: boolean): string {
  const sockets = `${url.protocol === "https:" ? "wss:" : "ws:"}//${url.host}`;
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    // React's style attributes (progress bars, avatars) are inline styles; no script runs from CSS.
    "style-src 'self' 'unsafe-inline'",
    // Photo previews before an upload are blob: URLs; avatars may be data: URLs.
    "img-src 'self' data: blob:",
    // A voice note plays from this device (a blob: URL) until the server has it.
    "media-src 'self' blob:",
    "font-src 'self'",
    `connect-src 'self' ${sockets}`,
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(production ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}
