import { describe, expect, it } from "vitest";
import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import { signInAs } from "../helpers/auth";
import { TestClient } from "../helpers/client";
import { openSocket, type TestSocket } from "../helpers/sockets";
import { conversationPair, sent } from "../chat/helpers";

/**
 * When a member's sessions end, their open pages stop receiving: every socket of theirs closes
 * (presence, the member channel and their conversation sockets), the other member's stay open, and only a
 * page that is still signed in gets back in.
 */

async function socket(client: TestClient, path: string): Promise<TestSocket> {
  const res = await openSocket(client, path);
  if (res.status !== 101 || !res.socket) throw new Error(`${path} refused: ${res.status}`);
  return res.socket;
}

/** Resolves with the code a socket closes with. */
function closed(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.addEventListener("close", (event) => resolve(event.code)));
}

/** Another browser holding the same cookies: a tab left open after its session ended. */
function staleCopy(client: TestClient): TestClient {
  const copy = new TestClient(client.ip);
  for (const [name, value] of client.cookies) copy.cookies.set(name, value);
  return copy;
}

const isMessage = (text: string) => (f: Record<string, unknown>) =>
  f.type === "message" && (f.message as { message: string }).message === text;

describe("sockets when sessions end", () => {
  it("signing out closes the member's sockets, not the other member's", async () => {
    const { alice, bob, id } = await conversationPair();
    const aliceChat = await socket(alice.client, `/ws/chat/${id}`);
    const aliceMe = await socket(alice.client, "/ws/me");
    const alicePresence = await socket(alice.client, "/ws/presence");
    const bobChat = await socket(bob.client, `/ws/chat/${id}`);
    const bobPresence = await socket(bob.client, "/ws/presence");
    await bobPresence.next((f) => f.type === "here");
    const chatClosed = closed(aliceChat.ws);
    const meClosed = closed(aliceMe.ws);
    const presenceClosed = closed(alicePresence.ws);
    const stale = staleCopy(alice.client);

    expect((await alice.client.json("POST", "/logout")).status).toBe(204);
    expect(await chatClosed).toBe(SESSION_ENDED_CLOSE);
    expect(await meClosed).toBe(SESSION_ENDED_CLOSE);
    expect(await presenceClosed).toBe(SESSION_ENDED_CLOSE);
    // Alice leaves the room once the grace period is over.
    await bobPresence.next((f) => f.type === "leaving" && f.user_id === alice.id, 5000);

    // Bob's socket still delivers; the page Alice left open cannot get back in.
    await sent(bob.client, id, "Still here?");
    await bobChat.next(isMessage("Still here?"));
    expect(aliceChat.frames.some(isMessage("Still here?"))).toBe(false);
    expect((await openSocket(stale, `/ws/chat/${id}`)).status).toBe(401);
    expect((await openSocket(stale, "/ws/me")).status).toBe(401);
    expect((await openSocket(stale, "/ws/presence")).status).toBe(401);
    bobChat.close();
    bobPresence.close();
  });

  it("a device still signed in reconnects; a password change ends the other sessions' sockets", async () => {
    const { alice, id } = await conversationPair();
    const { client: phone } = await signInAs(alice.details.email, alice.details.password);
    const laptopChat = await socket(alice.client, `/ws/chat/${id}`);
    const phoneMe = await socket(phone, "/ws/me");
    const laptopClosed = closed(laptopChat.ws);
    const phoneClosed = closed(phoneMe.ws);

    // Signing out on the phone closes every socket of Alice's; the laptop, still signed in,
    // opens its socket again.
    expect((await phone.json("POST", "/logout")).status).toBe(204);
    expect(await laptopClosed).toBe(SESSION_ENDED_CLOSE);
    expect(await phoneClosed).toBe(SESSION_ENDED_CLOSE);
    const again = await socket(alice.client, `/ws/chat/${id}`);

    // A password change signs out every other session: their sockets close as well.
    const { client: tablet } = await signInAs(alice.details.email, alice.details.password);
    const tabletMe = await socket(tablet, "/ws/me");
    const tabletClosed = closed(tabletMe.ws);
    const againClosed = closed(again.ws);
    const changed = await alice.client.json("PUT", "/settings/password", {
      current_password: alice.details.password,
      password: "a-brand-new-passphrase-42",
      password_confirmation: "a-brand-new-passphrase-42",
    });
    expect(changed.status).toBe(200);
    expect(await tabletClosed).toBe(SESSION_ENDED_CLOSE);
    expect(await againClosed).toBe(SESSION_ENDED_CLOSE);
    expect((await openSocket(tablet, "/ws/me")).status).toBe(401);
    expect((await openSocket(alice.client, "/ws/me")).status).toBe(101);
  });
});
