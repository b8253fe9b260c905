import { cookieName, readCookie, serializeCookie } from "./cookies.server";
import { hmacSign, randomToken, timingSafeEqual } from "./crypto.server";
import type { Env } from "./env.server";

/**
 * CSRF protection as docs/api.md "CSRF" says: a per-browser secret in an HttpOnly cookie, and a
 * token derived from it (HMAC with APP_KEY) that the page carries in <meta name="csrf-token">. A
 * state-changing request must send the token in X-CSRF-Token or a `_csrf` form field. The secret is
 * replaced at sign-in and sign-out, so a page from before either holds a stale token.
 */
export const CSRF_HEADER = "X-CSRF-Token";
export const CSRF_FIELD = "_csrf";
const CSRF_COOKIE_MAX_AGE = 400 * 24 * 3600;

export const csrfCookieName = (env: Env) => cookieName(env, "heartline_csrf");

export function readCsrfSecret(env: Env, request: Request): string | null {
  const value = readCookie(request, csrfCookieName(env));
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}

export function newCsrfSecret(env: Env): { secret: string; cookie: string } {
  const secret = randomToken(32);
  return {
    secret,
    cookie: serializeCookie(env, csrfCookieName(env), secret, { maxAge: CSRF_COOKIE_MAX_AGE }),
  };
}

export function csrfTokenFor(env: Env, secret: string): Promise<string> {
  return hmacSign(env.APP_KEY, `csrf:${secret}`);
}

/** Reads the token the request carries: the header, else a `_csrf` field of a form body. */
export async function submittedCsrfToken(request: Request): Promise<string | null> {
  const header = request.headers.get(CSRF_HEADER);
  if (header) return header;
  const type = request.headers.get("Content-Type") ?? "";
  if (
    type.startsWith("application/x-www-form-urlencoded") ||
    type.startsWith("multipart/form-data")
  ) {
    try {
      const form = await request.clone().formData();
      const value = form.get(CSRF_FIELD);
      return typeof value === "string" ? value : null;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * Whether `token` is the token of the request's secret. `expected` is that token when the request
 * made it already (the request context does, for its pages): one HMAC a request, not two.
 */
export async function isValidCsrfToken(
  env: Env,
  secret: string | null,
  token: string | null,
  expected?: string,
) {
  if (!secret || !token) return false;
  return timingSafeEqual(expected || (await csrfTokenFor(env, secret)), token);
}
