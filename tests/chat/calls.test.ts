import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatMessageView } from "~/realtime/chat";
import {
  CALL_ACTION_UNKNOWN,
  CALL_BUSY,
  CALL_NOT_FOUND,
  CALL_NOT_YOURS,
  CALLS_NEED_MATCH,
} from "../../durable-objects/conversation/calls";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { openSocket, type TestSocket } from "../helpers/sockets";
import { fetchWith } from "../helpers/worker";
import { TURN_TEST_KEY_ID, TURN_TEST_TOKEN } from "../setup/turn-stand-in";
import { block, conversationPair, matchedPair, page, type Member } from "./helpers";

/**
 * docs/api.md "Calls": the room relays a call's signalling between the two members of a match and
 * nothing else; both agree each time; every call ends as a line in the conversation.
 */

type Frame = Record<string, unknown>;

/** The conversation's socket, or (`id` empty) the member's own channel. */
async function socket(member: Member, id: string): Promise<TestSocket> {
  const res = await openSocket(member.client, id ? `/ws/chat/${id}` : "/ws/me");
  if (res.status !== 101 || !res.socket) throw new Error(`socket refused: ${res.status}`);
  return res.socket;
}

const call = (s: TestSocket, callId: string, action: string, data?: unknown) =>
  s.ws.send(JSON.stringify({ type: "call", call_id: callId, action, data }));

const callFrame = (callId: string, action: string) => (f: Frame) =>
  f.type === "call" && f.call_id === callId && f.action === action;

const callError = (callId: string) => (f: Frame) => f.type === "call_error" && f.call_id === callId;

/** Waits a little, so that a frame that should not arrive would have. */
const settle = async (s: TestSocket) => {
  s.ws.send(JSON.stringify({ type: "ping" }));
  await s
    .next((f) => f.type === "pong" && !s.frames.slice(0, -1).includes(f), 2000)
    .catch(() => {
      // The pong (an automatic response) was seen before; either way the room has caught up.
    });
  await new Promise((r) => setTimeout(r, 100));
};

const callLines = async (member: Member, id: string) =>
  (await page(member.client, id)).body.messages.filter((m: ChatMessageView) => m.call);

describe("calls", () => {
  it("relays ring, accept, offer, answer, candidates and end to the other member only", async () => {
    const { alice, bob, id } = await matchedPair();
    const a1 = await socket(alice, id);
    const a2 = await socket(alice, id);
    const b1 = await socket(bob, id);

    call(a1, "c1", "ring", { video: true });
    expect(await b1.next(callFrame("c1", "ring"))).toEqual({
      type: "call",
      call_id: "c1",
      action: "ring",
      user_id: alice.id,
      data: { video: true },
    });
    call(b1, "c1", "accept");
    await a1.next(callFrame("c1", "accept"));
    await a2.next(callFrame("c1", "accept"));

    const offer = { type: "offer", sdp: "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n" };
    call(a1, "c1", "offer", offer);
    expect((await b1.next(callFrame("c1", "offer"))).data).toEqual(offer);
    call(b1, "c1", "answer", { type: "answer", sdp: "v=0\r\n" });
    await a1.next(callFrame("c1", "answer"));
    const candidate = { candidate: "candidate:1 1 udp 1 10.0.0.1 5000 typ host", sdpMid: "0" };
    call(b1, "c1", "candidate", candidate);
    expect((await a1.next(callFrame("c1", "candidate"))).data).toEqual(candidate);

    call(a1, "c1", "end");
    await b1.next(callFrame("c1", "end"));
    await settle(a2);
    await settle(b1);
    // Nothing came back to the socket it came from; alice's other tab saw what the other member
    // sent, none of her own signalling, and her hang-up (so that it stops showing the call).
    expect(a1.frames.filter((f) => f.type === "call").map((f) => f.action)).toEqual([
      "accept",
      "answer",
      "candidate",
    ]);
    expect(a2.frames.filter((f) => f.type === "call").map((f) => f.action)).toEqual([
      "accept",
      "answer",
      "candidate",
      "end",
    ]);
    expect(b1.frames.filter((f) => f.type === "call").map((f) => f.action)).toEqual([
      "ring",
      "offer",
      "end",
    ]);
    // The call is a line in the conversation, for both.
    for (const member of [alice, bob]) {
      const [line] = await callLines(member, id);
      expect(line!.sender_id).toBe(alice.id);
      expect(line!.call).toMatchObject({
        caller_id: alice.id,
        kind: "video",
        outcome: "completed",
      });
      expect(line!.message).toMatch(/^📞 Video call · \d:\d\d$/);
    }
  });

  it("rings the member called on their own channel, and on the conversation when they open it", async () => {
    const { alice, bob, id } = await matchedPair();
    const a = await socket(alice, id);
    const aliceChannel = await socket(alice, "");
    const bobChannel = await socket(bob, "");
    call(a, "r1", "ring", { video: true });
    const ringing = (f: Frame) => f.type === "call" && f.call_id === "r1" && f.ringing === true;
    expect(await bobChannel.next(ringing)).toEqual({
      type: "call",
      conversation_id: id,
      call_id: "r1",
      user_id: alice.id,
      video: true,
      ringing: true,
    });
    // Bob opens the conversation to answer: it rings there.
    const b = await socket(bob, id);
    expect(await b.next(callFrame("r1", "ring"))).toMatchObject({
      user_id: alice.id,
      data: { video: true },
    });
    call(b, "r1", "accept");
    await a.next(callFrame("r1", "accept"));
    await bobChannel.next((f) => f.type === "call" && f.call_id === "r1" && f.ringing === false);
    // A ring the caller gives up on stops ringing on the channel too.
    call(a, "r1", "end");
    call(a, "r2", "ring", { video: false });
    await bobChannel.next((f) => f.type === "call" && f.call_id === "r2" && f.ringing === true);
    call(a, "r2", "end");
    await bobChannel.next((f) => f.type === "call" && f.call_id === "r2" && f.ringing === false);
    // The caller's own channel hears nothing of it.
    await settle(aliceChannel);
    expect(aliceChannel.frames.filter((f) => f.type === "call")).toEqual([]);
  });

  it("is refused outside a match, and reaches nobody", async () => {
    const { alice, bob, id } = await conversationPair();
    const a = await socket(alice, id);
    const b = await socket(bob, id);
    call(a, "c2", "ring", { video: false });
    expect(await a.next(callError("c2"))).toMatchObject({ status: 403, message: CALLS_NEED_MATCH });
    await settle(b);
    expect(b.frames.filter((f) => f.type === "call")).toEqual([]);
  });

  it("refuses unknown actions, signalling outside an accepted call, and answers by the caller", async () => {
    const { alice, bob, id } = await matchedPair();
    const a = await socket(alice, id);
    const b = await socket(bob, id);
    call(a, "c3", "dance");
    expect(await a.next(callError("c3"))).toMatchObject({
      status: 422,
      message: CALL_ACTION_UNKNOWN,
    });
    call(a, "nope", "offer", { sdp: "x" });
    expect(await a.next(callError("nope"))).toMatchObject({ status: 404, message: CALL_NOT_FOUND });
    call(a, "c4", "ring", { video: false });
    await b.next(callFrame("c4", "ring"));
    // Before it is accepted no offer passes; the caller cannot accept for the other member.
    call(a, "c4", "offer", { sdp: "x" });
    expect(await a.next(callError("c4"))).toMatchObject({ status: 409 });
    call(a, "c4", "accept");
    await a.next((f) => f.type === "call_error" && f.call_id === "c4" && f.status === 403);
    expect(a.frames.find((f) => f.status === 403)).toMatchObject({ message: CALL_NOT_YOURS });
    // One call at a time in a conversation.
    call(b, "c5", "ring", { video: true });
    expect(await b.next(callError("c5"))).toMatchObject({ status: 409, message: CALL_BUSY });
    // Too large a frame.
    call(a, "c4", "candidate", { candidate: "x".repeat(20_000) });
    await a.next((f) => f.type === "call_error" && f.status === 413);
    await settle(b);
    expect(b.frames.filter((f) => f.type === "call").map((f) => f.action)).toEqual(["ring"]);
  });

  it("writes a declined call, and a missed one when the caller hangs up first", async () => {
    const { alice, bob, id } = await matchedPair();
    const a = await socket(alice, id);
    const b = await socket(bob, id);
    call(a, "d1", "ring", { video: false });
    await b.next(callFrame("d1", "ring"));
    call(b, "d1", "decline");
    await a.next(callFrame("d1", "decline"));
    call(b, "d2", "ring", { video: true });
    await a.next(callFrame("d2", "ring"));
    call(b, "d2", "end");
    await a.next(callFrame("d2", "end"));
    await expect.poll(async () => (await callLines(alice, id)).length).toBe(2);
    const lines = await callLines(alice, id);
    expect(lines.map((l) => [l.sender_id, l.call!.outcome, l.call!.kind, l.message])).toEqual([
      [alice.id, "declined", "voice", "📞 Declined voice call"],
      [bob.id, "missed", "video", "📞 Missed video call"],
    ]);
    expect(lines.every((l) => l.call!.duration_ms === 0)).toBe(true);
    // The other member's list shows it, unread.
    const list = await alice.client.json<{ conversations: { id: string; last_message: string }[] }>(
      "GET",
      "/chat/conversations",
    );
    expect(list.body.conversations.find((c) => c.id === id)!.last_message).toBe(
      "📞 Missed video call",
    );
  });

  it("ends when a member's last socket closes, or with a block", async () => {
    const { alice, bob, id } = await matchedPair();
    const a = await socket(alice, id);
    let b = await socket(bob, id);
    call(a, "e1", "ring", { video: true });
    await b.next(callFrame("e1", "ring"));
    call(b, "e1", "accept");
    await a.next(callFrame("e1", "accept"));
    b.close();
    expect(await a.next(callFrame("e1", "end"))).toMatchObject({ user_id: bob.id });
    await expect.poll(async () => (await callLines(alice, id)).length).toBe(1);

    b = await socket(bob, id);
    call(a, "e2", "ring", { video: false });
    await b.next(callFrame("e2", "ring"));
    call(b, "e2", "accept");
    await a.next(callFrame("e2", "accept"));
    await block(bob, alice);
    const lines = (
      await env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(id)).allMessages(id)
    ).filter((m) => m.call);
    expect(lines.map((l) => l.call!.outcome)).toEqual(["completed", "completed"]);
  });
});

describe("GET /chat/ice-servers", () => {
  it("gives none by default: browsers on one network need none", async () => {
    const { alice } = await matchedPair();
    const res = await alice.client.json<{ ice_servers: unknown[] }>("GET", "/chat/ice-servers");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ice_servers: [], ice_transport_policy: "all" });
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    const anonymous = await new TestClient().json("GET", "/chat/ice-servers");
    expect(anonymous.status).toBe(401);
  });

  it("gives the configured servers, and fresh TURN credentials from Cloudflare's service", async () => {
    const member = await verifiedMember();
    const cookie = member.client.cookieHeader();
    const get = async (overrides: Partial<Cloudflare.Env>) => {
      const res = await fetchWith(overrides, "/chat/ice-servers", {
        headers: { Cookie: cookie, Accept: "application/json" },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        ice_servers: { urls: string[]; username?: string }[];
        ice_transport_policy: string;
      };
      policies.push(body.ice_transport_policy);
      return body.ice_servers;
    };
    const policies: string[] = [];
    const stun = [{ urls: ["stun:stun.example.net:3478"] }];
    expect(await get({ ICE_SERVERS: JSON.stringify(stun) })).toEqual(stun);
    const turn = {
      TURN_KEY_ID: TURN_TEST_KEY_ID,
      TURN_KEY_API_TOKEN: TURN_TEST_TOKEN,
      TURN_API_BASE: env.TURN_TEST_BASE,
    };
    const withTurn = await get({ ICE_SERVERS: JSON.stringify(stun), ...turn });
    expect(withTurn[0]).toEqual(stun[0]);
    const relay = withTurn.find((s) => s.urls.some((u) => u.startsWith("turn:")))!;
    // The stand-in saw the key, the bearer token and a TTL of four hours.
    expect(relay.username).toMatch(/-ttl-14400$/);
    // A refused key leaves the call with what else is configured.
    expect(await get({ ...turn, TURN_KEY_API_TOKEN: "wrong" })).toEqual([]);
    // With a relay, media goes through it only: neither browser learns the other's address.
    expect(policies).toEqual(["all", "relay", "all"]);
  });
});
