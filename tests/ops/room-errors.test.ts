import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { conversationRoom } from "~/server/chat-rooms.server";
import { memberHub } from "~/server/member-hub.server";
import type { Env } from "~/server/env.server";
import { reportFailuresToTracker } from "~/server/error-tracker.server";
import { reportFailuresTo } from "~/server/log.server";
import { conversationPair } from "../chat/helpers";
import { openSocket } from "../helpers/sockets";

/**
 * What a room logs as failed reaches the error tracker when it is on (app/server/error-tracker.server.ts,
 * ADR 025): a room with SENTRY_DSN turns the reporting on as it starts; the test turns it on the
 * same way with the stand-in's address (the rooms of the test pool have no DSN).
 */

interface TrackedEvent {
  tags?: Record<string, string>;
  environment?: string;
  exception?: {
    values: { type: string; value: string; stacktrace?: { frames: { filename?: string }[] } }[];
  };
}

const standIn = new URL(env.SENTRY_TEST_DSN.replace(/\/\/[^@]+@/, "//"));
const eventsUrl = `${standIn.origin}/__events`;
const itemCount = async () => ((await (await fetch(eventsUrl)).json()) as unknown[]).length;

async function eventsSince(n: number, match: (e: TrackedEvent) => boolean) {
  for (let i = 0; i < 100; i++) {
    const items = (await (await fetch(`${eventsUrl}?since=${n}`)).json()) as {
      type: string;
      payload: TrackedEvent;
    }[];
    const events = items
      .filter((x) => x.type === "event")
      .map((x) => x.payload)
      .filter(match);
    if (events.length > 0) return events;
    await new Promise((r) => setTimeout(r, 20));
  }
  return [];
}

afterEach(() => {
  reportFailuresTo(null);
  vi.restoreAllMocks();
});

describe("a room's failures and the error tracker", () => {
  it("a send that fails in the room reaches the tracker with its stack and ids", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    reportFailuresToTracker({ ...env, SENTRY_DSN: env.SENTRY_TEST_DSN } as Env);
    const { alice, id } = await conversationPair();
    const opened = await openSocket(alice.client, `/ws/chat/${id}`);
    expect(opened.status).toBe(101);
    const socket = opened.socket!;
    // The room's storage loses its messages table: the next send fails inside the room.
    await runInDurableObject(conversationRoom(env, id), (_instance, state) => {
      state.storage.sql.exec("DROP TABLE messages");
    });
    const before = await itemCount();
    const clientId = crypto.randomUUID();
    socket.ws.send(JSON.stringify({ type: "send", message: "Hello?", client_id: clientId }));
    const refused = await socket.next((f) => f.type === "send_error");
    expect(refused).toMatchObject({ client_id: clientId, status: 500 });

    const [event, ...more] = await eventsSince(
      before,
      (e) => e.tags?.what === "chat_socket_send_failed" && e.tags?.conversation_id === id,
    );
    expect(event).toBeDefined();
    expect(more).toEqual([]);
    expect(event!.tags).toMatchObject({ user_id: alice.id, conversation_id: id });
    expect(event!.environment).toBe("test");
    const exception = event!.exception!.values.at(-1)!;
    expect(exception.value).toMatch(/no such table: messages/);
    expect(exception.stacktrace?.frames.length).toBeGreaterThan(0);
    socket.close();
  });

  it("an alarm that fails in a member's hub reaches the tracker, and is thrown back to be tried again", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    reportFailuresToTracker({ ...env, SENTRY_DSN: env.SENTRY_TEST_DSN } as Env);
    const { alice } = await conversationPair();
    const hub = memberHub(env, alice.id);
    // The hub loses its table of pushes due: its next alarm fails.
    await runInDurableObject(hub, async (_instance, state) => {
      state.storage.sql.exec("DROP TABLE away_push");
      await state.storage.setAlarm(Date.now() + 3_600_000);
    });
    const before = await itemCount();
    await expect(runDurableObjectAlarm(hub)).rejects.toThrow(/no such table: away_push/);
    const events = await eventsSince(before, (e) => e.tags?.what === "member_hub_alarm_failed");
    expect(events).toHaveLength(1);
    expect(events[0]!.exception!.values.at(-1)!.stacktrace?.frames.length).toBeGreaterThan(0);
  });

  it("is off without a DSN: a room's failure is logged and reaches nothing", async () => {
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => {
      errors.push(String(line));
    });
    const { alice, id } = await conversationPair();
    const opened = await openSocket(alice.client, `/ws/chat/${id}`);
    const socket = opened.socket!;
    await runInDurableObject(conversationRoom(env, id), (_instance, state) => {
      state.storage.sql.exec("DROP TABLE messages");
    });
    const before = await itemCount();
    socket.ws.send(
      JSON.stringify({ type: "send", message: "Hello?", client_id: crypto.randomUUID() }),
    );
    await socket.next((f) => f.type === "send_error");
    await new Promise((r) => setTimeout(r, 100));
    expect(await itemCount()).toBe(before);
    expect(errors.some((l) => l.includes('"what":"chat_socket_send_failed"'))).toBe(true);
    socket.close();
  });
});
