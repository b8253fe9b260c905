import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatMessageView } from "~/realtime/chat";
import { LINKS_NOT_YET, SAFETY_NOTES } from "~/server/message-safety.server";
import { verifiedMember } from "../helpers/members";
import { openSocket } from "../helpers/sockets";
import { page, roomMessages, send, start, type Member } from "../chat/helpers";

type Frame = Record<string, unknown>;

/** Makes a member's account `days` old (before any room has read it). */
async function ageAccount(m: Member, days: number) {
  const createdAt = new Date(Date.now() - days * 86_400_000).toISOString();
  await env.DB.prepare("UPDATE users SET created_at = ?1 WHERE id = ?2")
    .bind(createdAt, m.id)
    .run();
}

/** Two members with accounts older than a day, and the conversation the first started. */
async function pair() {
  const alice = await verifiedMember();
  const bob = await verifiedMember();
  await ageAccount(alice, 3);
  await ageAccount(bob, 3);
  const res = await start(alice, bob);
  expect(res.status).toBe(201);
  return { alice, bob, id: res.body.conversation.id };
}

const messageFrame = (text: string) => (f: Frame) =>
  f.type === "message" && (f.message as ChatMessageView).message === text;

describe("message safety in the conversation room", () => {
  it("gives the recipient a note on money, off-platform and link messages, never the sender", async () => {
    const { alice, bob, id } = await pair();
    // Bob writes first (so Alice is not held to the unanswered-messages limit).
    expect((await send(bob.client, id, "Hello Alice!")).status).toBe(201);
    const alices = (await openSocket(alice.client, `/ws/chat/${id}`)).socket!;
    const bobs = (await openSocket(bob.client, `/ws/chat/${id}`)).socket!;
    const cases = [
      ["Could you send me $300 for the customs fee? I will pay you back", "money"],
      ["Let's move to WhatsApp, my number is +44 7700 900123", "off_platform"],
      ["my photos are at https://example.com/anna", "link"],
    ] as const;
    for (const [text, kind] of cases) {
      const res = await send(alice.client, id, text);
      expect(res.status).toBe(201);
      // The sender's own answer carries no note.
      expect(res.body.message.safety).toBeUndefined();
      const live = (await bobs.next(messageFrame(text))).message as ChatMessageView;
      expect(live.safety).toEqual({ kind, note: SAFETY_NOTES[kind] });
      const own = (await alices.next(messageFrame(text))).message as ChatMessageView;
      expect(own.safety).toBeUndefined();
    }
    // An innocent message carries nothing.
    expect((await send(alice.client, id, "I'm paying for dinner on Friday!")).status).toBe(201);

    const bobsPage = (await page(bob.client, id)).body.messages;
    expect(bobsPage.map((m) => m.safety?.kind ?? null)).toEqual([
      null,
      "money",
      "off_platform",
      "link",
      null,
    ]);
    const alicesPage = (await page(alice.client, id)).body.messages;
    expect(alicesPage.every((m) => m.safety === undefined)).toBe(true);
    alices.close();
    bobs.close();

    // The one-tap report carries the message id, and the moderators get its text.
    const flagged = bobsPage[1]!;
    const report = await bob.client.json("POST", "/reports", {
      user_id: alice.id,
      reason_type: "scam",
      message_id: flagged.id,
    });
    expect(report.status).toBeLessThan(300);
    const row = await env.DB.prepare(
      "SELECT message_id, message_text FROM reports WHERE reporter_id = ?1",
    )
      .bind(bob.id)
      .first<{ message_id: string; message_text: string }>();
    expect(row).toEqual({ message_id: flagged.id, message_text: flagged.message });
  });

  it("asks the sender 'Are you sure?' (409) before harassment, and stores it once confirmed", async () => {
    const { alice, bob, id } = await pair();
    const text = "you're so ugly, nobody will ever love you";
    const asked = await alice.client.json<{ message: string; safety: unknown }>(
      "POST",
      `/chat/conversations/${id}/messages`,
      { message: text, client_id: "harsh-1" },
    );
    expect(asked.status).toBe(409);
    expect(asked.body).toEqual({
      message: SAFETY_NOTES.harassment,
      safety: { kind: "harassment", note: SAFETY_NOTES.harassment },
    });
    expect(await roomMessages(id)).toEqual([]);

    // Over the socket, the same question comes back as the send's error.
    const alices = (await openSocket(alice.client, `/ws/chat/${id}`)).socket!;
    alices.ws.send(JSON.stringify({ type: "send", client_id: "harsh-2", message: text }));
    const error = await alices.next((f) => f.type === "send_error");
    expect(error).toMatchObject({
      client_id: "harsh-2",
      status: 409,
      safety: { kind: "harassment", note: SAFETY_NOTES.harassment },
    });
    alices.close();
    expect(await roomMessages(id)).toEqual([]);

    const confirmed = await send(alice.client, id, text, { client_id: "harsh-1", confirm: true });
    expect(confirmed.status).toBe(201);
    expect((await page(bob.client, id)).body.messages.map((m) => m.message)).toEqual([text]);
    // Ordinary banter is never asked about.
    expect((await send(alice.client, id, "You're killing it with that playlist")).status).toBe(201);
  });

  it("refuses links from an account younger than a day (422), and takes them a day later", async () => {
    const newcomer = await verifiedMember();
    const bob = await verifiedMember();
    await ageAccount(bob, 3);
    const res = await start(newcomer, bob);
    const id = res.body.conversation.id;
    const link = await send(newcomer.client, id, "check out www.cheap-dates.xyz/deal");
    expect(link.status).toBe(422);
    expect(link.body.errors).toEqual({ message: [LINKS_NOT_YET] });
    expect(await roomMessages(id)).toEqual([]);
    // Text without a link goes.
    expect((await send(newcomer.client, id, "Hi Bob, nice profile!")).status).toBe(201);
    // The older member may send links (with a note for the newcomer).
    expect((await send(bob.client, id, "see https://example.com/trails")).status).toBe(201);

    // A day later (a new room reads the account's age again), the newcomer's links go too.
    const later = await verifiedMember();
    await ageAccount(later, 1.01);
    const other = await start(later, bob);
    const sentLater = await send(later.client, other.body.conversation.id, "www.cheap-dates.xyz");
    expect(sentLater.status).toBe(201);
  });
});
