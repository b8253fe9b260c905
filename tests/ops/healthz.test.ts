import { SELF } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { failingDatabase, fetchWith } from "../helpers/worker";
import { verifiedMember } from "../helpers/members";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Log lines the Worker wrote through console.error during `run`, parsed as JSON. */
async function errorLines(run: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const spy = vi.spyOn(console, "error").mockImplementation(() => {});
  await run();
  return spy.mock.calls.map((call) => JSON.parse(String(call[0])) as Record<string, unknown>);
}

const SECRET = "secret-host.internal:5432 refused";

function failingBucket(): R2Bucket {
  return {
    head: () => Promise.reject(new Error(SECRET)),
  } as unknown as R2Bucket;
}

function failingRooms(): Cloudflare.Env["MEMBER_HUB"] {
  return {
    idFromName: () => ({}),
    get: () => ({ unreadTotal: () => Promise.reject(new Error(SECRET)) }),
  } as unknown as Cloudflare.Env["MEMBER_HUB"];
}

describe("GET /healthz", () => {
  it("answers 200 with every check ok, sets no cookie and needs no session", async () => {
    const res = await SELF.fetch("http://localhost/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, checks: { d1: "ok", r2: "ok", rooms: "ok" } });
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
  });

  it("does not read the session of a signed-in caller, nor say anything about them", async () => {
    const member = await verifiedMember();
    const res = await member.client.json("GET", "/healthz");
    expect(res.status).toBe(200);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(member.id);
    expect(text).not.toContain(member.details.email);
    expect(res.headers.getSetCookie()).toEqual([]);
    // Were the session read, a database that fails would fail the request before any check ran.
    const cookie = member.client.cookieHeader();
    const down = await errorLines(async () => {
      const failing = await fetchWith({ DB: failingDatabase(SECRET) }, "/healthz", {
        headers: { Accept: "application/json", Cookie: cookie },
      });
      expect(failing.status).toBe(503);
      expect(await failing.json()).toEqual({
        ok: false,
        checks: { d1: "error", r2: "ok", rooms: "ok" },
      });
    });
    expect(down.map((l) => l.event)).toEqual(["health_check_failed"]);
  });

  for (const [check, overrides] of [
    ["d1", { DB: failingDatabase(SECRET) }],
    ["r2", { PHOTOS: failingBucket() }],
    ["rooms", { MEMBER_HUB: failingRooms() }],
  ] as const) {
    it(`answers 503 naming ${check} when it fails, logs why and leaks nothing`, async () => {
      let res!: Response;
      const lines = await errorLines(async () => {
        res = await fetchWith(overrides, "/healthz", {
          headers: { Accept: "application/json", "X-Request-Id": `health-${check}` },
        });
      });
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(text).not.toContain(SECRET);
      const body = JSON.parse(text) as { ok: boolean; checks: Record<string, string> };
      expect(body.ok).toBe(false);
      for (const name of ["d1", "r2", "rooms"]) {
        expect(body.checks[name]).toBe(name === check ? "error" : "ok");
      }
      const line = lines.find((l) => l.event === "health_check_failed");
      expect(line).toMatchObject({ level: "error", check, request_id: `health-${check}` });
      expect((line!.error as { message: string; stack: string }).message).toBe(SECRET);
      expect((line!.error as { stack: string }).stack).toMatch(/\n\s+at .+:\d+:\d+/);
    });
  }

  it("names a check that does not answer in time a timeout", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const hanging = { head: () => new Promise(() => {}) } as unknown as R2Bucket;
      vi.spyOn(console, "error").mockImplementation(() => {});
      const pending = fetchWith({ PHOTOS: hanging }, "/healthz");
      await vi.advanceTimersByTimeAsync(3001);
      const res = await pending;
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ checks: { r2: "timeout", d1: "ok" } });
    } finally {
      vi.useRealTimers();
    }
  });
});
