import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import { mintSocketTicket, SOCKET_TICKET_TTL_MS } from "~/server/socket-ticket.server";
import type { MemberHub } from "../../durable-objects/member-hub";
import { sessionRowOf, signInAs } from "../helpers/auth";
import { d1Statements } from "../helpers/d1-count";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { restartObject } from "../helpers/restart";
import { openSocket, type TestSocket } from "../helpers/sockets";
import { conversationPair, sent } from "../chat/helpers";
import { onlineOf, until, watch } from "./presence-helpers";

/**
 * Socket tickets (docs/decisions/044): a page's ticket opens the member's sockets with no D1 read
 * (no cookie needed), and stops opening them the moment its session ends, as the cookie does.
 */

interface Ticket {
  ticket: string;
  expires_at: number;
}

async function ticketOf(client: TestClient): Promise<string> {
  const res = await client.json<Ticket>("POST", "/my/socket-ticket");
  expect(res.status).toBe(200);
  expect(res.body.expires_at).toBeGreaterThan(Date.now() + SOCKET_TICKET_TTL_MS - 60_000);
  return res.body.ticket;
}

const HOUR = 3_600_000;

const hubOf = (userId: string) => env.MEMBER_HUB.get(env.MEMBER_HUB.idFromName(userId));

/** The hub's alarm (null: none set). */
const hubAlarm = (userId: string) =>
  runInDurableObject(hubOf(userId), (_hub: MemberHub, state) => state.storage.getAlarm());

/** Makes the client's session end by itself `ms` from now (its absolute expiry); answers when. */
async function sessionEndsIn(client: TestClient, ms: number): Promise<number> {
  const row = await sessionRowOf(client);
  const at = Date.now() + ms;
  await env.DB.prepare("UPDATE sessions SET expires_at = ?1 WHERE id_hash = ?2")
    .bind(new Date(at).toISOString(), row!.id_hash)
    .run();
  return at;
}

const sleepUntil = (at: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

/** A browser without the session cookie: only the ticket can open anything. */
const cookieless = () => new TestClient();

const block = (userId: string) => ({ user_id: userId, reason_type: "other" });

const withTicket = (path: string, ticket: string) => `${path}?ticket=${encodeURIComponent(ticket)}`;

async function opened(path: string, ticket: string): Promise<TestSocket> {
  const res = await openSocket(cookieless(), withTicket(path, ticket));
  if (res.status !== 101 || !res.socket) throw new Error(`${path} refused: ${res.status}`);
  return res.socket;
}

/** Resolves with the code and reason the socket closes with (or "open" after a while). */
function closeOf(ws: WebSocket, waitMs = 1000): Promise<{ code: number; reason: string } | "open"> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("open"), waitMs);
    ws.addEventListener("close", (event) => {
      clearTimeout(timer);
      resolve({ code: event.code, reason: event.reason });
    });
  });
}

/** Opens a socket with the ticket and says whether it stays open or is refused (4401). */
async function outcome(path: string, ticket: string) {
  const res = await openSocket(cookieless(), withTicket(path, ticket));
  if (res.status !== 101 || !res.socket) return res.status;
  const end = await closeOf(res.socket.ws);
  res.socket.close();
  return end === "open" ? "open" : end.code;
}

describe("socket tickets", () => {
  it("every page of a verified member carries one; a member without a verified email gets none", async () => {
    const member = await verifiedMember();
    const page = await member.client.fetch("/dashboard?_data=root");
    const data = (await page.json()) as { socketTicket: { ticket: string; expiresAt: number } };
    expect(data.socketTicket.ticket).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(await outcome("/ws/me", data.socketTicket.ticket)).toBe("open");

    const stranger = await new TestClient().fetch("/?_data=root");
    expect(((await stranger.json()) as { socketTicket: unknown }).socketTicket).toBeNull();
  });

  it("opens the member channel, presence and a conversation without the cookie, and without D1", async () => {
    const { alice, bob, id } = await conversationPair();
    const ticket = await ticketOf(alice.client);
    // The first presence socket reads what it starts with once; the hub keeps it.
    const first = await opened("/ws/presence", ticket);
    await first.next((f) => f.type === "here");
    first.close();

    let me!: TestSocket, presence!: TestSocket, chat!: TestSocket;
    const { total: statements } = await d1Statements(async () => {
      me = await opened("/ws/me", ticket);
      presence = await opened("/ws/presence", ticket);
      await presence.next((f) => f.type === "here");
      chat = await opened(`/ws/chat/${id}`, ticket);
    });
    expect(statements).toBe(0);

    // They are Alice's sockets: her conversation's messages arrive on both channels.
    await sent(bob.client, id, "Over the ticket");
    await chat.next((f) => f.type === "message");
    await me.next((f) => f.type === "conversation" && f.conversation_id === id);
    for (const s of [me, presence, chat]) s.close();
  });

  it("the cold hub's first presence socket is what reads D1 (the count sees the objects' reads)", async () => {
    const member = await verifiedMember();
    const ticket = await ticketOf(member.client);
    let socket!: TestSocket;
    const { total: statements } = await d1Statements(async () => {
      socket = await opened("/ws/presence", ticket);
      await socket.next((f) => f.type === "here");
    });
    expect(statements).toBeGreaterThan(0);
    socket.close();
  });

  it("a forged, altered or expired ticket is refused with 4401", async () => {
    const member = await verifiedMember();
    const ticket = await ticketOf(member.client);
    const [payload, mac] = ticket.split(".");
    const other = await verifiedMember();
    const othersPayload = (await ticketOf(other.client)).split(".")[0];
    const { ticket: expired } = await mintSocketTicket(
      env,
      {
        userId: member.id,
        idHash: "0".repeat(64),
        expiresAt: new Date(Date.now() + HOUR).toISOString(),
      },
      Date.now() - SOCKET_TICKET_TTL_MS - 1,
    );
    for (const bad of [
      `${othersPayload}.${mac}`,
      `${payload}.${mac!.slice(0, -2)}AA`,
      `${payload}x.${mac}`,
      `${payload}`,
      expired,
      "nonsense",
    ]) {
      for (const path of ["/ws/me", "/ws/presence"]) {
        expect(await outcome(path, bad), `${path} ${bad}`).toBe(SESSION_ENDED_CLOSE);
      }
    }
  });

  it("signing out ends that session's tickets only; another device's ticket still opens", async () => {
    const { alice, id } = await conversationPair();
    const { client: phone } = await signInAs(alice.details.email, alice.details.password);
    const laptopTicket = await ticketOf(alice.client);
    const phoneTicket = await ticketOf(phone);
    const open = await opened("/ws/me", phoneTicket);
    const closed = closeOf(open.ws, 5000);

    expect((await phone.json("POST", "/logout")).status).toBe(204);
    expect(await closed).toEqual({ code: SESSION_ENDED_CLOSE, reason: "Signed out." });
    for (const path of ["/ws/me", "/ws/presence", `/ws/chat/${id}`]) {
      expect(await outcome(path, phoneTicket), path).toBe(SESSION_ENDED_CLOSE);
      expect(await outcome(path, laptopTicket), path).toBe("open");
    }
  });

  it("a password change keeps the changing session's ticket and ends the others'", async () => {
    const member = await verifiedMember();
    const { client: phone } = await signInAs(member.details.email, member.details.password);
    const laptopTicket = await ticketOf(member.client);
    const phoneTicket = await ticketOf(phone);
    const res = await member.client.json("PUT", "/settings/password", {
      current_password: member.details.password,
      password: "a much newer passphrase 42",
      password_confirmation: "a much newer passphrase 42",
    });
    expect(res.status).toBe(200);
    expect(await outcome("/ws/me", laptopTicket)).toBe("open");
    expect(await outcome("/ws/me", phoneTicket)).toBe(SESSION_ENDED_CLOSE);
    // The phone signs in again: its new ticket opens.
    const { client: again } = await signInAs(member.details.email, "a much newer passphrase 42");
    expect(await outcome("/ws/presence", await ticketOf(again))).toBe("open");
  });

  it("suspension and deletion end every ticket of the member", async () => {
    const suspended = await verifiedMember();
    const moderator = await verifiedMember();
    await env.DB.prepare("UPDATE users SET role = 'moderator' WHERE id = ?1")
      .bind(moderator.id)
      .run();
    const ticket = await ticketOf(suspended.client);
    const res = await moderator.client.json("POST", `/moderation/members/${suspended.id}/suspend`);
    expect(res.status).toBeLessThan(300);
    expect(await outcome("/ws/me", ticket)).toBe(SESSION_ENDED_CLOSE);
    expect(await outcome("/ws/presence", ticket)).toBe(SESSION_ENDED_CLOSE);

    const leaving = await verifiedMember();
    const leavingTicket = await ticketOf(leaving.client);
    const deleted = await leaving.client.json("DELETE", "/my/account");
    expect(deleted.status).toBeLessThan(300);
    expect(await outcome("/ws/me", leavingTicket)).toBe(SESSION_ENDED_CLOSE);
  });

  it("a ticket opens only its member's conversations: another's is refused, and a blocked one", async () => {
    const { alice, bob, id } = await conversationPair();
    const stranger = await verifiedMember();
    const strangerTicket = await ticketOf(stranger.client);
    expect(await outcome(`/ws/chat/${id}`, strangerTicket)).toBe(403);
    expect(await outcome("/ws/chat/no-such-conversation", strangerTicket)).toBe(404);

    const aliceTicket = await ticketOf(alice.client);
    expect(await outcome(`/ws/chat/${id}`, aliceTicket)).toBe("open");
    expect((await bob.client.json("POST", "/my/block", block(alice.id))).status).toBe(200);
    expect(await outcome(`/ws/chat/${id}`, aliceTicket)).toBe(403);
  });

  it("a block after the hub kept the presence start reaches the next presence socket", async () => {
    const [watcher, target] = [await verifiedMember(), await verifiedMember()];
    const ticket = await ticketOf(watcher.client);
    const warm = await opened("/ws/presence", ticket);
    await warm.next((f) => f.type === "here");
    warm.close();
    const targetSocket = await openSocket(target.client, "/ws/presence");
    expect(targetSocket.status).toBe(101);

    expect((await target.client.json("POST", "/my/block", block(watcher.id))).status).toBe(200);
    const presence = await opened("/ws/presence", ticket);
    await presence.next((f) => f.type === "here");
    await watch(presence, [target.id]);
    // The target is online, but on the other side of a block: never shown.
    await new Promise((r) => setTimeout(r, 500));
    expect(onlineOf(presence).has(target.id)).toBe(false);

    // Unblocked, the next socket sees them again.
    expect((await target.client.json("DELETE", `/my/block/${watcher.id}`)).status).toBe(200);
    presence.close();
    const after = await opened("/ws/presence", ticket);
    await after.next((f) => f.type === "here");
    await watch(after, [target.id]);
    await until(after, (online) => online.has(target.id));
    after.close();
    targetSocket.socket?.close();
  });

  it("a ticket never outlives its session: minted near the session's end, it is refused after", async () => {
    const member = await verifiedMember();
    const ends = await sessionEndsIn(member.client, 2500);
    const res = await member.client.json<Ticket>("POST", "/my/socket-ticket");
    expect(res.status).toBe(200);
    expect(res.body.expires_at).toBe(ends);
    expect(await outcome("/ws/me", res.body.ticket)).toBe("open");

    await sleepUntil(ends + 50);
    for (const path of ["/ws/me", "/ws/presence"]) {
      expect(await outcome(path, res.body.ticket), path).toBe(SESSION_ENDED_CLOSE);
    }
  });

  it("a session's end closes its member, presence and conversation sockets, as a sign-out of it does", async () => {
    const { alice, bob, id } = await conversationPair();
    const { client: phone } = await signInAs(alice.details.email, alice.details.password);
    const phoneTicket = await ticketOf(phone);
    const bobPresence = await opened("/ws/presence", await ticketOf(bob.client));
    await bobPresence.next((f) => f.type === "here");
    await watch(bobPresence, [alice.id]);

    const ends = await sessionEndsIn(alice.client, 4000);
    const laptop = await alice.client.json<Ticket>("POST", "/my/socket-ticket");
    expect(laptop.body.expires_at).toBe(ends);
    const me = await opened("/ws/me", laptop.body.ticket);
    const presence = await opened("/ws/presence", laptop.body.ticket);
    await presence.next((f) => f.type === "here");
    const chat = await opened(`/ws/chat/${id}`, laptop.body.ticket);
    await until(bobPresence, (online) => online.has(alice.id));
    expect(Date.now()).toBeLessThan(ends);
    // The hub that admitted the ticket rings at the session's end.
    expect(await hubAlarm(alice.id)).toBe(ends);

    const closes = [me, presence, chat].map((s) => closeOf(s.ws, 8000));
    await sleepUntil(ends + 50);
    // The alarm rings by itself at `ends`; run it here in case it has not yet.
    await runDurableObjectAlarm(hubOf(alice.id));
    const [meEnd, presenceEnd, chatEnd] = await Promise.all(closes);
    expect(meEnd).toEqual({ code: SESSION_ENDED_CLOSE, reason: "Session expired." });
    expect(presenceEnd).toMatchObject({ code: SESSION_ENDED_CLOSE });
    expect(chatEnd).toMatchObject({ code: SESSION_ENDED_CLOSE });
    // Alice leaves Bob's presence once her grace period is over (nothing reconnected for her).
    await until(bobPresence, (online) => !online.has(alice.id), "Alice left", 5000);

    // Nothing of the ended session gets back in; the phone's session does, with its ticket.
    expect((await openSocket(alice.client, "/ws/me")).status).toBe(401);
    for (const path of ["/ws/me", "/ws/presence", `/ws/chat/${id}`]) {
      expect(await outcome(path, laptop.body.ticket), path).toBe(SESSION_ENDED_CLOSE);
      expect(await outcome(path, phoneTicket), path).toBe("open");
    }
    bobPresence.close();
  }, 20_000);

  it("a session's end and the away pushes share the hub's alarm without losing either", async () => {
    const member = await verifiedMember();
    const ends = await sessionEndsIn(member.client, 2 * HOUR);
    const res = await member.client.json<Ticket>("POST", "/my/socket-ticket");
    (await opened("/ws/me", res.body.ticket)).close();
    expect(await hubAlarm(member.id)).toBe(ends);

    // The digest falls due first and is handled: the alarm goes back to the session's end.
    await runInDurableObject(hubOf(member.id), async (_hub: MemberHub, state) => {
      await state.storage.put("away:digest", { due: Date.now() - 1, last: null });
      // Far enough not to ring by itself: run below.
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    expect(await runDurableObjectAlarm(hubOf(member.id))).toBe(true);
    expect(await hubAlarm(member.id)).toBe(ends);

    // A digest due later than the session's end waits for it, and rings after it.
    const digestDue = ends + HOUR;
    await runInDurableObject(hubOf(member.id), async (_hub: MemberHub, state) => {
      await state.storage.put("away:digest", { due: digestDue, last: null });
      const held = await state.storage.get<{ member: string; ends: Record<string, number> }>(
        "session-ends",
      );
      const sid = Object.keys(held!.ends)[0]!;
      await state.storage.put("session-ends", { ...held, ends: { [sid]: Date.now() - 1 } });
      // Far enough not to ring by itself: run below.
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    // A restart (a deploy) in between: the hub finds the session's end in its storage.
    await restartObject(hubOf(member.id));
    expect(await runDurableObjectAlarm(hubOf(member.id))).toBe(true);
    expect(await hubAlarm(member.id)).toBe(digestDue);
    expect(await outcome("/ws/me", res.body.ticket)).toBe(SESSION_ENDED_CLOSE);
  });
});
