import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { verifiedMember } from "../helpers/members";
import { databaseFailingOn, failingDatabase, fetchWith } from "../helpers/worker";

afterEach(() => {
  vi.restoreAllMocks();
});

interface TrackedEvent {
  tags?: Record<string, string>;
  environment?: string;
  exception?: {
    values: { type: string; value: string; stacktrace?: { frames: { filename?: string }[] } }[];
  };
}

const standIn = new URL(env.SENTRY_TEST_DSN.replace(/\/\/[^@]+@/, "//"));
const eventsUrl = `${standIn.origin}/__events`;

async function trackedSince(n: number): Promise<TrackedEvent[]> {
  const items = (await (await fetch(`${eventsUrl}?since=${n}`)).json()) as {
    type: string;
    payload: TrackedEvent;
  }[];
  return items.filter((i) => i.type === "event").map((i) => i.payload);
}

const itemCount = async () => ((await (await fetch(eventsUrl)).json()) as unknown[]).length;

const session = { Accept: "application/json", Cookie: `heartline_session=${"a".repeat(43)}` };

describe("the error tracker", () => {
  it("receives an error the Worker threw, with its stack and the request id", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const before = await itemCount();
    const message = `database gone ${crypto.randomUUID()}`;
    const res = await fetchWith(
      { SENTRY_DSN: env.SENTRY_TEST_DSN, DB: failingDatabase(message) },
      "/csrf-token",
      { headers: { ...session, "X-Request-Id": "tracked-1" } },
    );
    expect(res.status).toBe(500);
    await res.body?.cancel();

    let events: TrackedEvent[] = [];
    for (let i = 0; i < 50 && events.length === 0; i++) {
      events = (await trackedSince(before)).filter((e) =>
        e.exception?.values.some((v) => v.value === message),
      );
      if (events.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event!.tags?.request_id).toBe("tracked-1");
    expect(event!.environment).toBe("test");
    const exception = event!.exception!.values.find((v) => v.value === message)!;
    expect(exception.type).toBe("Error");
    expect(exception.stacktrace?.frames.length).toBeGreaterThan(0);
  });

  it("receives a page's failure too, which Remix answers without the Worker's error handler", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const member = await verifiedMember();
    const before = await itemCount();
    const message = `activities gone ${crypto.randomUUID()}`;
    const res = await fetchWith(
      { SENTRY_DSN: env.SENTRY_TEST_DSN, DB: databaseFailingOn(/from "activities"/i, message) },
      "/my/activities",
      {
        headers: {
          Accept: "text/html",
          Cookie: member.client.cookieHeader(),
          "X-Request-Id": "tracked-page-1",
        },
      },
    );
    expect(res.status).toBe(500);
    await res.body?.cancel();

    let events: TrackedEvent[] = [];
    for (let i = 0; i < 50 && events.length === 0; i++) {
      events = (await trackedSince(before)).filter((e) =>
        e.exception?.values.some((v) => v.value === message),
      );
      if (events.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(events).toHaveLength(1);
    expect(events[0]!.tags?.request_id).toBe("tracked-page-1");
  });

  it("is off without a DSN: nothing reaches it", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const before = await itemCount();
    const res = await fetchWith({ DB: failingDatabase("untracked") }, "/csrf-token", {
      headers: session,
    });
    expect(res.status).toBe(500);
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 100));
    expect(await itemCount()).toBe(before);
  });
});
