import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CHAT_CLOSE_FORBIDDEN } from "~/realtime/chat";
import { CANNOT_MESSAGE } from "~/server/chat-rules.server";
import { MATCH_NOT_FOUND } from "~/server/likes.server";
import { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { openSocket } from "../helpers/sockets";
import {
  block,
  conversations,
  archived,
  page,
  roomMessages,
  send,
  sent,
  start,
  type Member,
} from "../chat/helpers";

const like = async (from: Member, to: Member) => {
  const res = await from.client.json<{ is_match: boolean }>("POST", "/my/likes", {
    user_id: to.id,
  });
  expect(res.status).toBe(201);
  return res.body.is_match;
};
const unmatch = (by: Member, other: Member) =>
  by.client.json<{ message?: string }>("DELETE", `/my/matches/${other.id}`);
const matchIds = async (m: Member) =>
  (
    await m.client.json<{ matches: { id: string }[] }>("GET", "/my/likes?list=matches")
  ).body.matches.map((c) => c.id);

function closed(ws: WebSocket): Promise<{ code: number }> {
  return new Promise((resolve) => ws.addEventListener("close", (e) => resolve({ code: e.code })));
}

/** Two members who match and talk in one conversation. */
async function matchedPair() {
  const alice = await verifiedMember();
  const bob = await verifiedMember();
  await like(alice, bob);
  expect(await like(bob, alice)).toBe(true);
  const started = await start(alice, bob, { message: "Hi Bob!" });
  expect(started.status).toBe(201);
  const id = started.body.conversation.id;
  await sent(bob.client, id, "Hi Alice");
  return { alice, bob, id };
}

describe("DELETE /my/matches/{userId}", () => {
  for (const who of ["alice", "bob"] as const) {
    it(`ends the match and the conversation for both when ${who} unmatches`, async () => {
      const pair = await matchedPair();
      const { alice, bob, id } = pair;
      const by = pair[who];
      const other = who === "alice" ? bob : alice;
      const aliceSocket = (await openSocket(alice.client, `/ws/chat/${id}`)).socket!;
      const bobSocket = (await openSocket(bob.client, `/ws/chat/${id}`)).socket!;
      const aliceClosed = closed(aliceSocket.ws);
      const bobClosed = closed(bobSocket.ws);

      expect((await unmatch(by, other)).status).toBe(204);

      // Sockets close for good, and cannot open again.
      expect((await aliceClosed).code).toBe(CHAT_CLOSE_FORBIDDEN);
      expect((await bobClosed).code).toBe(CHAT_CLOSE_FORBIDDEN);
      for (const m of [alice, bob]) {
        expect((await openSocket(m.client, `/ws/chat/${id}`)).status).toBe(403);
        // The match is gone from both lists of matches, and the conversation from both lists.
        expect(await matchIds(m)).toEqual([]);
        expect((await conversations(m.client)).body.conversations).toEqual([]);
        expect((await archived(m.client)).body.archived_conversations).toEqual([]);
        // Neither may write or read it any more.
        const refused = await send(m.client, id, "still there?");
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ message: CANNOT_MESSAGE });
        expect((await page(m.client, id)).status).toBe(403);
        // Nor start a new conversation with the other.
        const again = await start(m, m === alice ? bob : alice, { message: "hello again" });
        expect(again.status).toBe(403);
      }
      // Nothing was stored by the refused sends; what was written stays in the room.
      expect((await roomMessages(id)).map((m) => m.message)).toEqual(["Hi Bob!", "Hi Alice"]);
    });
  }

  it("lets the two talk again after both like each other again, in a new conversation", async () => {
    const { alice, bob, id } = await matchedPair();
    expect((await unmatch(bob, alice)).status).toBe(204);
    // Unmatching again is harmless.
    expect((await unmatch(bob, alice)).status).toBe(204);

    // One like is not enough.
    expect(await like(alice, bob)).toBe(false);
    expect((await start(alice, bob, { message: "please?" })).status).toBe(403);

    expect(await like(bob, alice)).toBe(true);
    const restarted = await start(alice, bob, { message: "Second chance" });
    expect(restarted.status).toBe(201);
    const newId = restarted.body.conversation.id;
    expect(newId).not.toBe(id);
    // The new conversation holds none of the old messages; the old one stays closed.
    expect((await page(bob.client, newId)).body.messages.map((m) => m.message)).toEqual([
      "Second chance",
    ]);
    expect((await sent(bob.client, newId, "Welcome back")).message).toBe("Welcome back");
    expect((await send(bob.client, id, "old one")).status).toBe(403);
    for (const m of [alice, bob]) {
      expect((await conversations(m.client)).body.conversations.map((c) => c.id)).toEqual([newId]);
    }
    expect(await matchIds(alice)).toEqual([bob.id]);
  });

  it("is 404 for a member with no match or conversation, oneself, a stranger and across a block", async () => {
    const alice = await verifiedMember();
    const carol = await verifiedMember();
    const res = await unmatch(alice, carol);
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(MATCH_NOT_FOUND);
    expect((await unmatch(alice, alice)).status).toBe(404);
    expect((await alice.client.json("DELETE", "/my/matches/no-such-member")).status).toBe(404);

    const { alice: a2, bob: b2 } = await matchedPair();
    await block(b2, a2);
    expect((await unmatch(a2, b2)).status).toBe(404);
    const { results } = await env.DB.prepare("SELECT * FROM unmatches WHERE user_low IN (?1, ?2)")
      .bind(a2.id, b2.id)
      .all();
    expect(results).toEqual([]);
  });

  it("needs a signed-in member with a CSRF token", async () => {
    const { alice, bob } = await matchedPair();
    const stranger = new TestClient();
    expect((await stranger.json("DELETE", `/my/matches/${bob.id}`)).status).toBe(401);
    const res = await alice.client.fetch(`/my/matches/${bob.id}`, {
      method: "DELETE",
      headers: { Accept: "application/json" },
    });
    expect(res.status).toBe(419);
    expect(await matchIds(alice)).toEqual([bob.id]);
  });
});
