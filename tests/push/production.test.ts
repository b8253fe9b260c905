import { env as testEnv } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { productionProblems, REQUIRED_PRODUCTION_SECRETS } from "~/server/env.server";
import { fetchWith, PRODUCTION } from "../helpers/worker";

afterEach(() => {
  vi.restoreAllMocks();
});

const production = (setting: Partial<Cloudflare.Env>) =>
  ({ ...testEnv, ...PRODUCTION, ...setting }) as Cloudflare.Env;

describe("a production Worker's VAPID settings", () => {
  it("are secrets a deploy checks for", () => {
    expect(REQUIRED_PRODUCTION_SECRETS).toEqual(
      expect.arrayContaining(["VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"]),
    );
    expect(productionProblems(production({}))).toEqual([]);
  });

  const BAD: [string, Partial<Cloudflare.Env>, RegExp][] = [
    ["no public key", { VAPID_PUBLIC_KEY: undefined }, /VAPID_PUBLIC_KEY is not set/],
    ["no private key", { VAPID_PRIVATE_KEY: undefined }, /VAPID_PRIVATE_KEY is not set/],
    ["a public key that is not a point", { VAPID_PUBLIC_KEY: "abc" }, /VAPID_PUBLIC_KEY/],
    ["a private key of the wrong size", { VAPID_PRIVATE_KEY: "AAECAw" }, /VAPID_PRIVATE_KEY/],
    ["no subject", { VAPID_SUBJECT: undefined }, /VAPID_SUBJECT/],
    ["a subject that is no contact", { VAPID_SUBJECT: "heartline" }, /VAPID_SUBJECT/],
  ];
  for (const [what, setting, named] of BAD) {
    it(`with ${what}: every request is refused, and the log says why`, async () => {
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      expect(productionProblems(production(setting))).toEqual([expect.stringMatching(named)]);
      const res = await fetchWith({ ...PRODUCTION, ...setting }, "/csrf-token", {
        headers: { Accept: "application/json" },
      });
      expect(res.status).toBe(503);
      expect(await res.text()).not.toMatch(named);
      const refusal = logged.mock.calls
        .map((c) => JSON.parse(String(c[0])) as { event?: string; problems?: string[] })
        .find((l) => l.event === "config_refused");
      expect(refusal?.problems?.some((p) => named.test(p))).toBe(true);
    });
  }

  it("may be missing outside production (push is then off: the key answers 503)", () => {
    const dev = { ...testEnv, VAPID_PUBLIC_KEY: undefined } as Cloudflare.Env;
    expect(productionProblems({ ...dev, ...PRODUCTION, VAPID_PUBLIC_KEY: undefined })).toHaveLength(
      1,
    );
  });
});
