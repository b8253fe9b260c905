import type { Env } from "./env.server";

export interface CookieOptions {
  maxAge?: number;
  httpOnly?: boolean;
}

/** Outside local development every cookie is Secure and, where it can be, `__Host-` prefixed. */
export function cookieName(env: Env, base: string): string {
  return env.APP_ENV === "production" ? `__Host-${base}` : base;
}

export function serializeCookie(env: Env, name: string, value: string, opts: CookieOptions = {}) {
  const parts = [`${name}=${encodeURIComponent(value)}`, "Path=/", "SameSite=Lax"];
  if (opts.httpOnly !== false) parts.push("HttpOnly");
  if (env.APP_ENV === "production") parts.push("Secure");
  if (opts.maxAge !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(opts.maxAge))}`);
  return parts.join("; ");
}

export function expireCookie(env: Env, name: string, httpOnly = true) {
  return serializeCookie(env, name, "", { maxAge: 0, httpOnly });
}

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("Cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}
