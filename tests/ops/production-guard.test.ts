import { env as testEnv } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { configRefusal, productionProblems } from "~/server/env.server";
import { fetchWith, PRODUCTION } from "../helpers/worker";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The production Worker's configuration with one development setting put back. */
const DEVELOPMENT_SETTINGS: [string, Partial<Cloudflare.Env>, RegExp][] = [
  ["the development mailbox", { DEV_MAILBOX: "on" }, /DEV_MAILBOX/],
  ["mail into the mailbox", { MAIL_TRANSPORT: "mailbox" }, /MAIL_TRANSPORT/],
  ["no Resend key", { RESEND_API_KEY: undefined }, /RESEND_API_KEY/],
  ["test payments (no Stripe key)", { STRIPE_SECRET_KEY: undefined }, /test payments/],
  ["a Stripe test-mode key", { STRIPE_SECRET_KEY: "sk_test_abc" }, /test-mode/],
  ["no webhook secret", { STRIPE_WEBHOOK_SECRET: undefined }, /STRIPE_WEBHOOK_SECRET/],
  ["a Stripe stand-in", { STRIPE_API_BASE: "http://127.0.0.1:1" }, /STRIPE_API_BASE/],
  ["no APP_KEY", { APP_KEY: undefined }, /APP_KEY/],
  ["a short APP_KEY", { APP_KEY: "short" }, /APP_KEY/],
];

describe("a production Worker with a development setting", () => {
  it("serves when nothing of development is set", async () => {
    const res = await fetchWith(PRODUCTION, "/login", { headers: { Accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(productionProblems({ ...testEnv, ...PRODUCTION })).toEqual([]);
  });

  for (const [what, setting, named] of DEVELOPMENT_SETTINGS) {
    it(`refuses every request with ${what}, and its log says which`, async () => {
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      const env = { ...PRODUCTION, ...setting };
      const api = await fetchWith(env, "/csrf-token", {
        headers: { Accept: "application/json", "X-Request-Id": "guard-1" },
      });
      expect(api.status).toBe(503);
      const body = await api.text();
      expect(JSON.parse(body)).toMatchObject({ message: "Service Unavailable" });
      // The public answer names no setting; the log does.
      expect(body).not.toMatch(named);
      const page = await fetchWith(env, "/", { headers: { Accept: "text/html" } });
      expect(page.status).toBe(503);
      expect(await page.text()).not.toMatch(named);
      const health = await fetchWith(env, "/healthz");
      expect(health.status).toBe(503);
      await health.body?.cancel();

      const lines = logged.mock.calls.map(
        (c) => JSON.parse(String(c[0])) as Record<string, unknown>,
      );
      const refusal = lines.find((l) => l.request_id === "guard-1");
      expect(refusal).toMatchObject({ event: "config_refused", level: "error" });
      expect((refusal!.problems as string[]).some((p) => named.test(p))).toBe(true);
    });
  }

  it("names production's problems, and none outside production", () => {
    const refused = { ...testEnv, ...PRODUCTION, DEV_MAILBOX: "on" } as Cloudflare.Env;
    expect(configRefusal(refused)).toEqual(productionProblems(refused));
    expect(configRefusal(refused)).toHaveLength(1);
    expect(configRefusal({ ...testEnv, ...PRODUCTION } as Cloudflare.Env)).toEqual([]);
    expect(configRefusal({ ...refused, APP_ENV: "development" })).toEqual([]);
  });

  it("does not apply outside production", async () => {
    const res = await fetchWith({ DEV_MAILBOX: "on", STRIPE_SECRET_KEY: undefined }, "/healthz");
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});
