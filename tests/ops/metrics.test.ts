import { afterEach, describe, expect, it, vi } from "vitest";
import { verifiedMember } from "../helpers/members";
import { databaseFailingOn, failingDatabase, fetchWith, recordingDataset } from "../helpers/worker";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("counters", () => {
  it("count a 5xx, and a D1 failure as a D1 error", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { dataset, counted } = recordingDataset();
    const cookie = { Cookie: `heartline_session=${"a".repeat(43)}`, Accept: "application/json" };
    const d1 = await fetchWith(
      { DB: failingDatabase("D1_ERROR: no such table"), METRICS: dataset },
      "/csrf-token",
      { headers: cookie },
    );
    expect(d1.status).toBe(500);
    expect(counted("http_5xx")).toBe(1);
    expect(counted("d1_error")).toBe(1);

    const other = await fetchWith(
      { DB: failingDatabase("something else"), METRICS: dataset },
      "/csrf-token",
      { headers: cookie },
    );
    expect(other.status).toBe(500);
    expect(counted("http_5xx")).toBe(2);
    expect(counted("d1_error")).toBe(1);
  });

  it("count a page that failed as the API's 500s are counted", async () => {
    const lines: Record<string, unknown>[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => {
      lines.push(JSON.parse(String(line)) as Record<string, unknown>);
    });
    const member = await verifiedMember();
    const { dataset, counted } = recordingDataset();
    const DB = databaseFailingOn(/from "activities"/i, "D1_ERROR: activities gone");
    const res = await fetchWith({ DB, METRICS: dataset }, "/my/activities", {
      headers: { Accept: "text/html", Cookie: member.client.cookieHeader() },
    });
    expect(res.status).toBe(500);
    await res.body?.cancel();
    expect(lines.find((l) => l.event === "route_error")).toMatchObject({ level: "error" });
    expect(counted("http_5xx")).toBe(1);
    expect(counted("d1_error")).toBe(1);
  });

  it("count nothing for a request that succeeds or a 4xx", async () => {
    const { dataset, counted } = recordingDataset();
    expect((await fetchWith({ METRICS: dataset }, "/healthz")).status).toBe(200);
    const missing = await fetchWith({ METRICS: dataset }, "/no-such-thing", {
      headers: { Accept: "application/json" },
    });
    expect(missing.status).toBe(404);
    expect(counted("http_5xx")).toBe(0);
    expect(counted("health_failed")).toBe(0);
  });

  it("are written by the real binding without failing a request", async () => {
    const res = await fetchWith({}, "/healthz");
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it("count a Stripe webhook that failed", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { dataset, counted } = recordingDataset();
    const res = await fetchWith({ METRICS: dataset }, "/webhooks/stripe", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Stripe-Signature": "t=1,v1=bad" },
      body: JSON.stringify({ id: "evt_1", type: "checkout.session.completed" }),
    });
    expect(res.status).toBe(400);
    expect(counted("webhook_failed")).toBe(1);
  });
});
