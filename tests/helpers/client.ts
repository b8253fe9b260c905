import { SELF } from "cloudflare:test";

let ipCounter = 0;

/** A fresh address per client, so per-IP rate limits of one test do not leak into another. */
export function nextIp() {
  ipCounter += 1;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

export interface JsonResult<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * A browser-like client for the Worker: keeps cookies, fetches the CSRF token from the page's meta
 * tag, and talks JSON (docs/api.md) unless told otherwise.
 */
export class TestClient {
  readonly cookies = new Map<string, string>();
  csrfToken = "";

  constructor(readonly ip = nextIp()) {}

  cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("Cookie", this.cookieHeader());
    headers.set("CF-Connecting-IP", this.ip);
    const response = await SELF.fetch(`http://localhost${path}`, {
      redirect: "manual",
      ...init,
      headers,
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /max-age=0\b/i.test(a.trim()));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Loads a page and takes the CSRF token from its <meta name="csrf-token">. */
  async loadCsrfFromPage(path = "/login"): Promise<string> {
    const html = await (await this.fetch(path, { headers: { Accept: "text/html" } })).text();
    const match = html.match(/<meta name="csrf-token" content="([^"]*)"/);
    if (!match?.[1]) throw new Error(`no csrf meta tag on ${path}`);
    this.csrfToken = match[1];
    return this.csrfToken;
  }

  async json<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    opts: { csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<JsonResult<T>> {
    if (method !== "GET" && !this.csrfToken && opts.csrf === undefined)
      await this.loadCsrfFromPage();
    const headers: Record<string, string> = { Accept: "application/json", ...opts.headers };
    const token = opts.csrf === undefined ? this.csrfToken : opts.csrf;
    if (method !== "GET" && token) headers["X-CSRF-Token"] = token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await this.fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = { raw: text };
    }
    const result = { status: response.status, body: parsed as T, headers: response.headers };
    const fresh = (parsed as { csrf_token?: string } | null)?.csrf_token;
    if (fresh) this.csrfToken = fresh;
    return result;
  }

  /** Posts a plain HTML form, as a browser without JavaScript would. */
  async form(path: string, fields: Record<string, string>, withCsrf = true): Promise<Response> {
    if (withCsrf && !this.csrfToken) await this.loadCsrfFromPage();
    const body = new URLSearchParams(fields);
    if (withCsrf) body.set("_csrf", this.csrfToken);
    return this.fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "text/html" },
      body,
    });
  }
}
