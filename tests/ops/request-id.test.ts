import { afterEach, describe, expect, it, vi } from "vitest";
import { openSocket } from "../helpers/sockets";
import { conversationPair } from "../chat/helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the request id", () => {
  it("reaches the conversation room: its log line for the socket carries it, as JSON", async () => {
    const { alice, id } = await conversationPair();
    const lines: Record<string, unknown>[] = [];
    vi.spyOn(console, "info").mockImplementation((line: unknown) => {
      lines.push(JSON.parse(String(line)) as Record<string, unknown>);
    });
    const opened = await openSocket(alice.client, `/ws/chat/${id}`, {
      "X-Request-Id": "req-socket-1",
    });
    expect(opened.status).toBe(101);
    opened.socket!.close();
    expect(lines).toContainEqual({
      event: "socket_opened",
      level: "info",
      request_id: "req-socket-1",
      user_id: alice.id,
      conversation_id: id,
      channel: "chat",
    });
  });

  it("reaches the member channel and the presence room: each socket's opening line carries it", async () => {
    const { alice } = await conversationPair();
    const lines: Record<string, unknown>[] = [];
    vi.spyOn(console, "info").mockImplementation((line: unknown) => {
      lines.push(JSON.parse(String(line)) as Record<string, unknown>);
    });
    for (const [path, channel] of [
      ["/ws/me", "member"],
      ["/ws/presence", "presence"],
    ] as const) {
      const opened = await openSocket(alice.client, path, { "X-Request-Id": `req-${channel}` });
      expect(opened.status).toBe(101);
      opened.socket!.close();
      expect(lines).toContainEqual({
        event: "socket_opened",
        level: "info",
        request_id: `req-${channel}`,
        user_id: alice.id,
        channel,
      });
    }
  });
});
