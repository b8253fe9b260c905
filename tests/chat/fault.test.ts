import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { parseChatServerFrame, type ChatMessageView } from "~/realtime/chat";
import type { ConversationRoom } from "../../durable-objects/conversation/room";
import type { TestClient } from "../helpers/client";
import { restartObject } from "../helpers/restart";
import { conversationPair, page, send, withLimits, type Member } from "./helpers";

/**
 * One member's view of the conversation, kept the way the chat page keeps it: live frames from
 * the room, and on every (re)connect a catch-up of the messages after the highest seq held, all
 * merged by id. Reconnects by itself when the socket drops, as partysocket does.
 */
class Side {
  readonly held = new Map<string, ChatMessageView>();
  /** A message that reached the same connection twice (must never happen). */
  duplicatesOnOneConnection = 0;
  connections = 0;
  /** Client ids the room refused (the page then sends them over HTTP). */
  readonly refused = new Set<string>();
  private socket: WebSocket | null = null;
  private stopped = false;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly member: Member,
    private readonly conversationId: string,
  ) {}

  get maxSeq() {
    let max = 0;
    for (const m of this.held.values()) max = Math.max(max, m.seq);
    return max;
  }

  history(): ChatMessageView[] {
    return [...this.held.values()].sort((a, b) => a.seq - b.seq);
  }

  private add(message: ChatMessageView) {
    if (!this.held.has(message.id)) this.held.set(message.id, message);
  }

  connect(): Promise<void> {
    this.pending = this.open();
    return this.pending;
  }

  private async open(): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      const res = await this.member.client
        .fetch(`/ws/chat/${this.conversationId}`, { headers: { Upgrade: "websocket" } })
        .catch(() => null);
      const ws = res?.webSocket;
      if (res?.status === 101 && ws) {
        ws.accept();
        this.connections += 1;
        this.socket = ws;
        const seen = new Set<string>();
        ws.addEventListener("message", (event) => {
          const frame = parseChatServerFrame(event.data);
          if (frame?.type === "send_error") this.refused.add(frame.client_id);
          if (frame?.type !== "message") return;
          if (seen.has(frame.message.id)) this.duplicatesOnOneConnection += 1;
          seen.add(frame.message.id);
          this.add(frame.message);
        });
        ws.addEventListener("close", () => {
          if (this.socket !== ws || this.stopped) return;
          this.socket = null;
          setTimeout(() => void this.connect(), 10);
        });
        await this.catchUp();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20 * (attempt + 1)));
    }
  }

  private async catchUp() {
    for (;;) {
      const res = await page(this.member.client, this.conversationId, `after=${this.maxSeq}`);
      if (res.status !== 200) throw new Error(`catch-up answered ${res.status}`);
      for (const m of res.body.messages) this.add(m);
      if (!res.body.meta.has_more) return;
    }
  }

  /**
   * Sends over this side's socket, as the chat page does when the socket is open; true once the
   * stored message came back on it, false when the socket could not say (the page then sends the
   * same client id over HTTP).
   */
  async sendOverSocket(text: string, clientId: string): Promise<boolean> {
    const ws = this.socket;
    if (!ws) return false;
    try {
      ws.send(JSON.stringify({ type: "send", client_id: clientId, message: text }));
    } catch {
      return false;
    }
    const deadline = Date.now() + 1500;
    while (Date.now() < deadline) {
      if ([...this.held.values()].some((m) => m.client_id === clientId)) return true;
      if (this.refused.has(clientId)) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return false;
  }

  /** The connection drops from this side (a phone going through a tunnel). */
  drop() {
    this.socket?.close(1000, "dropped");
  }

  async settled() {
    await this.pending;
  }

  stop() {
    this.stopped = true;
    this.socket?.close(1000, "done");
  }
}

/** Sends over HTTP until the server acknowledges, always with the same client id (as the page retries). */
async function sendUntilStored(client: TestClient, id: string, text: string, clientId: string) {
  for (let attempt = 0; attempt < 8; attempt++) {
    const res = await send(client, id, text, { client_id: clientId }).catch(() => null);
    if (res?.status === 201) return res.body.message;
    await new Promise((resolve) => setTimeout(resolve, 25 * (attempt + 1)));
  }
  throw new Error(`${text} was never acknowledged`);
}

async function waitFor(condition: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

it("two members exchange 200 messages while sockets drop and the room is evicted: both end with all 200, once each, in one order", async () => {
  const { alice, bob, id } = await conversationPair();
  const unlimited = { chat_send_account: "100000/60" };
  const senders = [withLimits(alice.client, unlimited), withLimits(bob.client, unlimited)];
  const sides = [new Side(alice, id), new Side(bob, id)] as const;
  await Promise.all(sides.map((s) => s.connect()));
  const room = () => env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(id));
  // The room is evicted (a deploy, a crash), while sends are in flight.
  const evict = () => restartObject(room());

  const acknowledged: string[] = [];
  let viaSocket = 0;
  const TOTAL = 200;
  const BATCH = 4;
  for (let start = 1; start <= TOTAL; start += BATCH) {
    const batch = Array.from({ length: BATCH }, (_, k) => start + k).filter((n) => n <= TOTAL);
    // Faults, mid-stream and while sends are in flight.
    const faults: Promise<unknown>[] = [];
    if (start === 41) sides[0].drop();
    if (start === 81) faults.push(evict());
    if (start === 121) {
      // The room itself drops every socket.
      faults.push(
        runInDurableObject(room(), (_instance: ConversationRoom, state) => {
          for (const ws of state.getWebSockets()) ws.close(1011, "going away");
        }),
      );
    }
    if (start === 161) {
      sides[0].drop();
      sides[1].drop();
    }
    if (start === 181) faults.push(evict());
    await Promise.all([
      ...batch.map(async (n) => {
        // Members take turns, so neither waits for a reply (the unanswered-messages limit).
        // Every other message goes over the socket first, falling back to HTTP like the page.
        const side = sides[n % 2]!;
        const text = `message ${n}`;
        const clientId = `fault-${n}`;
        if (n % 4 < 2 && (await side.sendOverSocket(text, clientId))) viaSocket += 1;
        else await sendUntilStored(senders[n % 2]!, id, text, clientId);
        acknowledged.push(clientId);
      }),
      ...faults,
    ]);
  }

  const everyone = () => sides.every((s) => s.held.size >= TOTAL);
  const arrived = await waitFor(everyone, 15_000);
  await Promise.all(sides.map((s) => s.settled()));
  for (const s of sides) s.stop();
  expect(arrived).toBe(true);

  // What the server holds: 200 messages, seq 1..200, each text once.
  const server: ChatMessageView[] = [];
  for (let after = 0; ;) {
    const res = await page(alice.client, id, `after=${after}`);
    server.push(...res.body.messages);
    if (!res.body.meta.has_more) break;
    after = res.body.messages.at(-1)!.seq;
  }
  expect(server).toHaveLength(TOTAL);
  expect(server.map((m) => m.seq)).toEqual(Array.from({ length: TOTAL }, (_, i) => i + 1));
  expect(new Set(server.map((m) => m.message)).size).toBe(TOTAL);
  expect(new Set(acknowledged)).toEqual(new Set(server.map((m) => m.client_id)));
  expect(viaSocket).toBeGreaterThan(50);

  // Both sides: exactly those 200, each once, in the server's order.
  for (const side of sides) {
    const history = side.history();
    expect(history.map((m) => m.id)).toEqual(server.map((m) => m.id));
    expect(side.duplicatesOnOneConnection).toBe(0);
    expect(side.connections).toBeGreaterThanOrEqual(3);
  }
}, 120_000);
