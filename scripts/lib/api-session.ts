/**
 * A member's session on a running Worker's JSON API, as a browser holds it: the cookies it is
 * given, the CSRF token sent with every change, JSON in and out (a FormData body as it is). For
 * the seed (scripts/lib/seed-conversations.ts), the benchmarks and the browser tests.
 */
export class ApiSession {
  readonly cookies = new Map<string, string>();
  private csrf = "";

  constructor(readonly baseUrl: string) {}

  /** The Cookie header a browser holding this session sends. */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  /** One request; its status and JSON body (null when it has none). */
  async call(method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.cookies.size) headers.Cookie = this.cookieHeader();
    if (method !== "GET") headers["X-CSRF-Token"] = this.csrf;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      headers,
      body: payload,
      redirect: "manual",
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    return { status: res.status, json };
  }

  /** One request that must answer `status`; its JSON body ({} when it has none). */
  async expect(method: string, path: string, status: number, body?: unknown) {
    const res = await this.call(method, path, body);
    if (res.status !== status) {
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
    }
    return res.json ?? {};
  }

  /** Takes the CSRF token of the session as it is now (a sign-in changes it). */
  async refreshToken() {
    this.csrf = String((await this.call("GET", "/csrf-token")).json?.token ?? "");
  }

  async signIn(email: string, password: string) {
    await this.refreshToken();
    await this.expect("POST", "/login", 200, { email, password });
    await this.refreshToken();
  }
}
