import { describe, expect, it } from "vitest";
import { FRAME_FLOOD_CLOSE, SOCKET_FRAME_LIMIT } from "~/realtime/frames";
import { SENDING_TOO_FAST } from "~/server/chat-rules.server";
import { verifiedMember } from "../helpers/members";
import { openSocket, type TestSocket } from "../helpers/sockets";
import { page, send, sent, start, withLimits, type Member } from "./helpers";

/**
 * The send limit is the member's, across every conversation (their hub counts, not each room:
 * docs/decisions/021), over HTTP and the socket alike; and every socket has a frame rate past
 * which it is closed with FRAME_FLOOD_CLOSE.
 */

async function conversationWith(alice: Member, other: Member): Promise<string> {
  const res = await start(alice, other);
  if (res.status !== 201) throw new Error(`start failed: ${res.status}`);
  const id = res.body.conversation.id;
  // A reply lifts the unanswered-messages rule, which would stop Alice at 3.
  await sent(other.client, id, "Hi Alice");
  return id;
}

async function socket(member: Member, path: string): Promise<TestSocket> {
  const res = await openSocket(member.client, path);
  if (res.status !== 101 || !res.socket) throw new Error(`${path} refused: ${res.status}`);
  return res.socket;
}

function closed(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.addEventListener("close", (event) => resolve(event.code)));
}

describe("chat limits per member", () => {
  it("61 messages in a minute over two conversations: the 61st is 429, over HTTP and the socket", async () => {
    const [alice, bob, carol] = await Promise.all([
      verifiedMember(),
      verifiedMember(),
      verifiedMember(),
    ]);
    const withBob = await conversationWith(alice, bob);
    const withCarol = await conversationWith(alice, carol);
    const carolSocket = await socket(alice, `/ws/chat/${withCarol}`);

    for (let i = 1; i <= 30; i += 1) await sent(alice.client, withBob, `bob ${i}`);
    for (let i = 1; i <= 29; i += 1) await sent(alice.client, withCarol, `carol ${i}`);
    // The 60th, over the socket, is still within the limit.
    carolSocket.ws.send(
      JSON.stringify({ type: "send", message: "carol 30", client_id: crypto.randomUUID() }),
    );
    await carolSocket.next(
      (f) => f.type === "message" && (f.message as { message: string }).message === "carol 30",
    );

    const over = await send(alice.client, withBob, "bob 31");
    expect(over.status).toBe(429);
    expect(over.body.message).toBe(SENDING_TOO_FAST);
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);

    const clientId = crypto.randomUUID();
    carolSocket.ws.send(JSON.stringify({ type: "send", message: "carol 31", client_id: clientId }));
    const error = await carolSocket.next((f) => f.type === "send_error");
    expect(error).toMatchObject({ client_id: clientId, status: 429, message: SENDING_TOO_FAST });
    expect(error.retry_after).toBeGreaterThan(0);
    carolSocket.close();

    // Nothing past the limit was stored; the other members' own limits are untouched.
    const texts = async (id: string) =>
      (await page(alice.client, id)).body.messages.map((m) => m.message);
    expect(await texts(withBob)).not.toContain("bob 31");
    expect(await texts(withCarol)).not.toContain("carol 31");
    expect((await send(bob.client, withBob, "Still here")).status).toBe(201);
  }, 60_000);

  it("takes back the sends one conversation was granted and did not use before refusing one elsewhere", async () => {
    const [alice, bob, carol] = await Promise.all([
      verifiedMember(),
      verifiedMember(),
      verifiedMember(),
    ]);
    const withBob = await conversationWith(alice, bob);
    const withCarol = await conversationWith(alice, carol);
    const limited = withLimits(alice.client, { chat_send_account: "40/86400" });
    // Ten quick messages to Bob: his room is granted more sends than it spends (048).
    for (let i = 1; i <= 10; i += 1) {
      expect((await send(limited, withBob, `bob ${i}`)).status).toBe(201);
    }
    // The other thirty of the forty go to Carol, all of them.
    for (let i = 1; i <= 30; i += 1) {
      expect((await send(limited, withCarol, `carol ${i}`)).status).toBe(201);
    }
    // And nothing more, in either.
    expect((await send(limited, withBob, "bob 11")).status).toBe(429);
    expect((await send(limited, withCarol, "carol 31")).status).toBe(429);
  }, 60_000);

  it("does not count a retry of a stored message (the same client id) against the limit", async () => {
    const [alice, bob] = await Promise.all([verifiedMember(), verifiedMember()]);
    const id = await conversationWith(alice, bob);
    const limited = withLimits(alice.client, { chat_send_account: "2/86400" });
    const clientId = crypto.randomUUID();
    const first = await send(limited, id, "one", { client_id: clientId });
    expect(first.status).toBe(201);
    for (let i = 0; i < 3; i += 1) {
      const again = await send(limited, id, "one", { client_id: clientId });
      expect(again.status).toBe(201);
      expect(again.body.message.id).toBe(first.body.message.id);
    }
    // Retries sent nothing new: the second message is still within the limit, the third is not.
    expect((await send(limited, id, "two")).status).toBe(201);
    expect((await send(limited, id, "three")).status).toBe(429);
    // A retry is answered even past the limit.
    expect((await send(limited, id, "one", { client_id: clientId })).status).toBe(201);
  });
});

describe("a socket's frame rate", () => {
  const flood = SOCKET_FRAME_LIMIT.max + 10;

  it("closes a conversation socket that floods it, and hears nothing past the limit", async () => {
    const [alice, bob] = await Promise.all([verifiedMember(), verifiedMember()]);
    const id = await conversationWith(alice, bob);
    const aliceSocket = await socket(alice, `/ws/chat/${id}`);
    const bobSocket = await socket(bob, `/ws/chat/${id}`);
    const code = closed(aliceSocket.ws);
    for (let i = 0; i < flood; i += 1) {
      try {
        aliceSocket.ws.send(JSON.stringify({ type: "read" }));
      } catch {
        break;
      }
    }
    expect(await code).toBe(FRAME_FLOOD_CLOSE);
    // The other member's socket stays open.
    await sent(bob.client, id, "Still open?");
    await bobSocket.next((f) => f.type === "message");
    bobSocket.close();
  });

  it("closes a member channel socket and a presence socket that flood", async () => {
    const alice = await verifiedMember();
    for (const path of ["/ws/me", "/ws/presence"]) {
      const s = await socket(alice, path);
      const code = closed(s.ws);
      for (let i = 0; i < flood; i += 1) {
        try {
          s.ws.send(JSON.stringify({ type: "watch", user_ids: [] }));
        } catch {
          break;
        }
      }
      expect(await code).toBe(FRAME_FLOOD_CLOSE);
    }
  });
});
