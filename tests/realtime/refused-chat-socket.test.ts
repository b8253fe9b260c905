import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CHAT_CLOSE_FORBIDDEN, CHAT_CLOSED_REASON } from "~/realtime/chat";
import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import { mintSocketTicket, SOCKET_TICKET_TTL_MS } from "~/server/socket-ticket.server";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { openSocket } from "../helpers/sockets";
import { block, conversationPair, matchedPair, type Member } from "../chat/helpers";

/**
 * A conversation's socket the Worker refuses (docs/realtime.md "Authentication"): a browser sees
 * no HTTP status on a failed upgrade, so a websocket handshake (one with `Sec-WebSocket-Key`, as
 * every browser sends) gets a socket closed at once with the room's own code, 4403, and nothing on
 * it; a refused ticket gets 4401 as before. A request that only asks for an upgrade keeps the HTTP
 * status API.md gives it.
 */

/** What a browser's upgrade carries beyond `Upgrade: websocket`. */
const HANDSHAKE = {
  Connection: "Upgrade",
  "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
  "Sec-WebSocket-Version": "13",
};

type Outcome =
  | { status: number }
  | { code: number; reason: string; frames: number }
  | { open: true; frames: number };

/** Opens `path` as a browser would and says how it ended: a status, a close, or still open. */
async function handshake(client: TestClient, path: string): Promise<Outcome> {
  const res = await openSocket(client, path, HANDSHAKE);
  if (res.status !== 101 || !res.socket) return { status: res.status };
  const socket = res.socket;
  const end = await new Promise<{ code: number; reason: string } | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), 1000);
    socket.ws.addEventListener("close", (event) => {
      clearTimeout(timer);
      resolve({ code: event.code, reason: event.reason });
    });
  });
  socket.close();
  return end ? { ...end, frames: socket.frames.length } : { open: true, frames: 0 };
}

const closedForGood = { code: CHAT_CLOSE_FORBIDDEN, reason: CHAT_CLOSED_REASON, frames: 0 };

const ticketOf = async (client: TestClient) =>
  (await client.json<{ ticket: string }>("POST", "/my/socket-ticket")).body.ticket;

const withTicket = (path: string, ticket: string) => `${path}?ticket=${encodeURIComponent(ticket)}`;

const unmatch = (by: Member, other: Member) => by.client.json("DELETE", `/my/matches/${other.id}`);

describe("a refused conversation socket, to a browser", () => {
  it("opens for its members, and closes with 4403 for both sides of a block", async () => {
    const { alice, bob, id } = await conversationPair();
    expect(await handshake(alice.client, `/ws/chat/${id}`)).toEqual({ open: true, frames: 0 });

    await block(bob, alice);
    for (const m of [alice, bob]) {
      expect(await handshake(m.client, `/ws/chat/${id}`)).toEqual(closedForGood);
      // With the page's ticket instead of the cookie, the same.
      const ticket = await ticketOf(m.client);
      expect(await handshake(new TestClient(), withTicket(`/ws/chat/${id}`, ticket))).toEqual(
        closedForGood,
      );
    }
  });

  it("closes with 4403 for someone else's conversation and an unknown one", async () => {
    const { id } = await conversationPair();
    const stranger = await verifiedMember();
    expect(await handshake(stranger.client, `/ws/chat/${id}`)).toEqual(closedForGood);
    expect(await handshake(stranger.client, "/ws/chat/no-such-conversation")).toEqual(
      closedForGood,
    );
    const ticket = await ticketOf(stranger.client);
    expect(await handshake(new TestClient(), withTicket(`/ws/chat/${id}`, ticket))).toEqual(
      closedForGood,
    );
  });

  it("closes with 4403 for both members once they unmatched", async () => {
    const { alice, bob, id } = await matchedPair();
    expect(await handshake(bob.client, `/ws/chat/${id}`)).toEqual({ open: true, frames: 0 });
    expect((await unmatch(alice, bob)).status).toBe(204);
    for (const m of [alice, bob]) {
      expect(await handshake(m.client, `/ws/chat/${id}`)).toEqual(closedForGood);
    }
  });

  it("closes with 4401 for a forged or expired ticket: the page asks for a new one", async () => {
    const { alice, id } = await conversationPair();
    const ticket = await ticketOf(alice.client);
    const [payload, mac] = ticket.split(".");
    const { ticket: expired } = await mintSocketTicket(
      env,
      {
        userId: alice.id,
        idHash: "0".repeat(64),
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
      Date.now() - SOCKET_TICKET_TTL_MS - 1,
    );
    for (const bad of [`${payload}.${mac!.slice(0, -2)}AA`, expired, "nonsense"]) {
      expect(await handshake(new TestClient(), withTicket(`/ws/chat/${id}`, bad))).toEqual({
        code: SESSION_ENDED_CLOSE,
        reason: "Ticket refused.",
        frames: 0,
      });
    }
  });

  it("keeps API.md's status for a request that only asks for an upgrade", async () => {
    const { alice, bob, id } = await conversationPair();
    const stranger = await verifiedMember();
    expect((await openSocket(stranger.client, `/ws/chat/${id}`)).status).toBe(403);
    expect((await openSocket(stranger.client, "/ws/chat/no-such-conversation")).status).toBe(404);
    await block(alice, bob);
    expect((await openSocket(bob.client, `/ws/chat/${id}`)).status).toBe(403);
    // Signed out, cross-site or not an upgrade at all: refused before any socket, handshake or not.
    expect(await handshake(new TestClient(), `/ws/chat/${id}`)).toEqual({ status: 401 });
    expect(
      (await openSocket(alice.client, `/ws/chat/${id}`, { ...HANDSHAKE, Origin: "https://x.test" }))
        .status,
    ).toBe(403);
    expect((await alice.client.fetch(`/ws/chat/${id}`)).status).toBe(426);
  });
});
