/**
 * A socket whose session ended is not heard, whatever its client does with the close frame
 * (docs/decisions/021): a raw websocket client on a bare TCP connection that never answers the
 * close frame keeps sending after sign-out, a password change from another session, a suspension
 * and a block; nothing it sends is stored or delivered, no typing reaches the other member, nothing
 * more reaches it, and the presence room and the member channel ignore it too.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ApiSession } from "../../scripts/lib/api-session";
import { ApiMember } from "./api-member";
import { baseUrl, uniqueMember } from "./helpers";
import { openRawSocket, type RawSocket } from "./raw-socket";

const SESSION_ENDED_CLOSE = 4401;
const CHAT_CLOSE_FORBIDDEN = 4403;
/** Long enough for anything a frame set off to be stored and fanned out (a send takes ms). */
const SETTLE_MS = 1500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function member(prefix: string) {
  return new ApiMember(uniqueMember(prefix)).join({
    firstName: prefix[0]!.toUpperCase() + prefix.slice(1),
    interests: ["Hiking"],
  });
}

async function conversation(a: ApiMember, b: ApiMember): Promise<string> {
  const started = await a.expect("POST", "/chat/conversations", 201, { user_id: b.id });
  return (started.conversation as { id: string }).id;
}

async function texts(viewer: ApiSession, id: string): Promise<string[]> {
  const res = await viewer.expect("GET", `/chat/conversations/${id}/messages`, 200);
  return (res.messages as { message: string }[]).map((m) => m.message);
}

const open: RawSocket[] = [];
async function raw(session: ApiSession, socketPath: string): Promise<RawSocket> {
  const socket = await openRawSocket(baseUrl(), socketPath, session.cookieHeader());
  open.push(socket);
  return socket;
}

/** What the stale socket sends once its session ended: messages, typing, a receipt, a watch set. */
function keepSending(
  chat: RawSocket,
  label: string,
  others: { presence?: RawSocket; me?: RawSocket; watch?: string } = {},
) {
  for (let i = 1; i <= 6; i += 1) {
    chat.sendJson({ type: "send", message: `${label} ${i}`, client_id: crypto.randomUUID() });
    chat.sendJson({ type: "typing" });
    chat.sendJson({ type: "read" });
    if (others.presence && others.watch) {
      others.presence.sendJson({ type: "watch", user_ids: [others.watch] });
    }
    others.me?.sendJson({ type: "hello" });
  }
}

describe("a socket whose session ended, with a client that ignores the close frame", () => {
  let alice: ApiMember;
  let bob: ApiMember;
  let aliceAndBob = "";

  beforeAll(async () => {
    [alice, bob] = await Promise.all([member("alice"), member("bob")]);
  });

  afterAll(() => {
    for (const socket of open) socket.destroy();
  });

  it("after sign-out: nothing it sends acts, nothing reaches it, on chat, presence and the member channel", async () => {
    const id = await conversation(alice, bob);
    aliceAndBob = id;
    const chat = await raw(alice, `/ws/chat/${id}`);
    const me = await raw(alice, "/ws/me");
    const presence = await raw(alice, "/ws/presence");
    const bobChat = await raw(bob, `/ws/chat/${id}`);

    // The raw client works: before sign-out its send is stored and delivered.
    chat.sendJson({ type: "send", message: "before sign-out", client_id: crypto.randomUUID() });
    await expect
      .poll(() => bobChat.frames.some((f) => f.type === "message"), { timeout: 5000 })
      .toBe(true);
    await expect
      .poll(() => presence.frames.some((f) => f.type === "here"), { timeout: 5000 })
      .toBe(true);

    await alice.expect("POST", "/logout", 204);
    expect(await chat.closed()).toBe(SESSION_ENDED_CLOSE);
    expect(await me.closed()).toBe(SESSION_ENDED_CLOSE);
    expect(await presence.closed()).toBe(SESSION_ENDED_CLOSE);
    const heard = {
      chat: chat.frames.length,
      me: me.frames.length,
      presence: presence.frames.length,
    };
    const bobHeard = bobChat.frames.length;

    keepSending(chat, "after sign-out", { presence, me, watch: bob.id });
    await sleep(SETTLE_MS);
    // Bob writes: the stale socket and the stale channel hear nothing of it.
    await bob.expect("POST", `/chat/conversations/${id}/messages`, 201, {
      message: "for Alice's live pages",
    });
    await expect
      .poll(
        () =>
          bobChat.frames.some(
            (f) =>
              f.type === "message" &&
              (f.message as { message: string }).message === "for Alice's live pages",
          ),
        { timeout: 5000 },
      )
      .toBe(true);
    await sleep(300);

    expect(await texts(bob, id)).toEqual(["before sign-out", "for Alice's live pages"]);
    // Bob's socket heard his own message (and his own read receipt), nothing of Alice's.
    expect(
      bobChat.frames.slice(bobHeard).filter((f) => f.user_id === alice.id || f.type === "typing"),
    ).toEqual([]);
    expect(bobChat.frames.slice(bobHeard).filter((f) => f.type === "message")).toHaveLength(1);
    expect(chat.frames.length).toBe(heard.chat);
    expect(me.frames.length).toBe(heard.me);
    expect(presence.frames.length).toBe(heard.presence);
  });

  it("after a password change from another session: the old session's socket is not heard", async () => {
    const laptop = new ApiSession(baseUrl());
    await laptop.signIn(alice.details.email, alice.details.password);
    const phone = new ApiSession(baseUrl());
    await phone.signIn(alice.details.email, alice.details.password);
    const id = aliceAndBob;
    const chat = await raw(laptop, `/ws/chat/${id}`);
    const bobChat = await raw(bob, `/ws/chat/${id}`);
    const before = await texts(bob, id);

    const password = "an-entirely-new-passphrase-77";
    await phone.expect("PUT", "/settings/password", 200, {
      current_password: alice.details.password,
      password,
      password_confirmation: password,
    });
    alice.details.password = password;
    expect(await chat.closed()).toBe(SESSION_ENDED_CLOSE);
    const bobHeard = bobChat.frames.length;
    keepSending(chat, "after the password change");
    await sleep(SETTLE_MS);

    expect(await texts(bob, id)).toEqual(before);
    expect(bobChat.frames.slice(bobHeard)).toEqual([]);
  });

  it("after a block: the blocked conversation's socket is not heard", async () => {
    const carol = await member("carol");
    const dave = await member("dave");
    const id = await conversation(carol, dave);
    const chat = await raw(carol, `/ws/chat/${id}`);
    const daveChat = await raw(dave, `/ws/chat/${id}`);
    await dave.expect("POST", "/my/block", 200, { user_id: carol.id, reason_type: "spam" });
    expect(await chat.closed()).toBe(CHAT_CLOSE_FORBIDDEN);
    expect(await daveChat.closed()).toBe(CHAT_CLOSE_FORBIDDEN);
    const daveHeard = daveChat.frames.length;
    keepSending(chat, "after the block");
    await sleep(SETTLE_MS);
    // Dave's own socket ignored the close as well: the stale one still reaches nobody.
    expect(daveChat.frames.slice(daveHeard)).toEqual([]);
  });

  it("after a suspension: nothing the suspended member's socket sends acts", async () => {
    const erin = await member("erin");
    const frank = await member("frank");
    // The suite's moderator (tests/e2e/global-setup.ts), signed in by their session.
    const mod = new ApiSession(baseUrl());
    mod.cookies.set("heartline_session", inject("e2eModerator").session);
    await mod.refreshToken();
    const id = await conversation(erin, frank);
    const chat = await raw(erin, `/ws/chat/${id}`);
    const me = await raw(erin, "/ws/me");
    const frankChat = await raw(frank, `/ws/chat/${id}`);
    await mod.expect("POST", `/moderation/members/${erin.id}/suspend`, 200);
    expect([SESSION_ENDED_CLOSE, CHAT_CLOSE_FORBIDDEN]).toContain(await chat.closed());
    expect(await me.closed()).toBe(SESSION_ENDED_CLOSE);
    const frankHeard = frankChat.frames.length;
    keepSending(chat, "after the suspension", { me });
    await sleep(SETTLE_MS);
    expect(frankChat.frames.slice(frankHeard)).toEqual([]);
    // Whatever Frank can still read of the conversation holds none of the stale socket's sends.
    const res = await frank.call("GET", `/chat/conversations/${id}/messages`);
    const stored = res.status === 200 ? (res.json?.messages as { message: string }[]) : [];
    expect(stored.filter((m) => m.message.startsWith("after the suspension"))).toEqual([]);
  });
});
