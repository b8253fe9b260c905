import { describe, expect, it } from "vitest";
import { SESSION_ENDED_CLOSE } from "~/realtime/member";
import { signInAs } from "../helpers/auth";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { openSocket } from "../helpers/sockets";
import { conversationPair } from "../chat/helpers";

/**
 * Issue 12, finding 2: a channel token (`POST /broadcasting/auth`, then `?auth=`) is bound to the
 * session that minted it. Once that session has ended (signed out, or ended by a password change
 * elsewhere) the token opens nothing, and a socket opened with it closes (4401) as cookie sockets
 * do.
 */
async function token(client: TestClient, channel: string): Promise<string> {
  const res = await client.json<{ auth: string }>("POST", "/broadcasting/auth", {
    channel_name: channel,
  });
  expect(res.status).toBe(200);
  return res.body.auth;
}

const closed = (ws: WebSocket) =>
  new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));

describe("channel tokens", () => {
  it("open nothing once the session that minted them signed out", async () => {
    const { alice, id } = await conversationPair();
    const me = await token(alice.client, `private-member.${alice.id}`);
    const chat = await token(alice.client, `private-chat.${id}`);
    const presence = await token(alice.client, "presence-global");
    // While the session lives they work, from a client without cookies.
    const live = await openSocket(new TestClient(), `/ws/me?auth=${me}`);
    expect(live.status).toBe(101);
    live.socket!.close();

    expect((await alice.client.json("POST", "/logout")).status).toBe(204);
    expect((await openSocket(new TestClient(), `/ws/me?auth=${me}`)).status).toBe(401);
    expect((await openSocket(new TestClient(), `/ws/chat/${id}?auth=${chat}`)).status).toBe(401);
    expect((await openSocket(new TestClient(), `/ws/presence?auth=${presence}`)).status).toBe(401);
  });

  it("open nothing once a password change elsewhere ended their session", async () => {
    const member = await verifiedMember();
    const { client: laptop } = await signInAs(member.details.email, member.details.password);
    const stale = await token(laptop, "presence-global");
    const kept = await token(member.client, "presence-global");
    const changed = await member.client.json("PUT", "/settings/password", {
      current_password: member.details.password,
      password: "a different passphrase",
      password_confirmation: "a different passphrase",
    });
    expect(changed.status).toBe(200);
    expect((await openSocket(new TestClient(), `/ws/presence?auth=${stale}`)).status).toBe(401);
    // The session that changed the password still lives, and so does its token.
    const still = await openSocket(new TestClient(), `/ws/presence?auth=${kept}`);
    expect(still.status).toBe(101);
    still.socket!.close();
  });

  it("sockets opened with a token close when their session ends", async () => {
    const { alice, id } = await conversationPair();
    const me = await openSocket(
      new TestClient(),
      `/ws/me?auth=${await token(alice.client, `private-member.${alice.id}`)}`,
    );
    const chat = await openSocket(
      new TestClient(),
      `/ws/chat/${id}?auth=${await token(alice.client, `private-chat.${id}`)}`,
    );
    expect(me.status).toBe(101);
    expect(chat.status).toBe(101);
    const meClosed = closed(me.socket!.ws);
    const chatClosed = closed(chat.socket!.ws);
    expect((await alice.client.json("POST", "/logout")).status).toBe(204);
    expect(await meClosed).toBe(SESSION_ENDED_CLOSE);
    expect(await chatClosed).toBe(SESSION_ENDED_CLOSE);
  });
});
