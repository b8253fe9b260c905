import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { migrateConversations } from "~/server/chat-migration.server";
import { listGiftHistory } from "~/server/gifts.server";
import { verifiedMember } from "../helpers/members";
import { archived, conversations, page, roomMessages, type Member } from "./helpers";

/**
 * The move of D1's messages into the rooms (docs/decisions/012-chat-in-rooms.md "Migration").
 * Each test first puts back the schema as it was before 0015 (tests/upgrade covers the whole
 * upgrade from each release), fills it the way the code before the rooms did, then applies 0015,
 * which keeps those rows in the legacy tables that today's code moves into the rooms.
 */
async function restoreLegacySchema() {
  await env.DB.batch(
    [
      "DROP TABLE legacy_messages",
      "DROP TABLE legacy_conversation_members",
      "DROP INDEX conversation_members_user",
      "ALTER TABLE conversation_members ADD COLUMN listed integer DEFAULT false NOT NULL",
      "ALTER TABLE conversation_members ADD COLUMN archived_at text",
      "ALTER TABLE conversation_members ADD COLUMN last_read_seq integer DEFAULT 0 NOT NULL",
      "CREATE INDEX conversation_members_list ON conversation_members (user_id, archived_at, last_activity_at)",
      `CREATE TABLE messages (
         id text PRIMARY KEY NOT NULL, conversation_id text NOT NULL REFERENCES conversations(id) ON DELETE cascade,
         seq integer NOT NULL, sender_id text NOT NULL REFERENCES users(id) ON DELETE cascade,
         client_id text, message text NOT NULL, gift_id text REFERENCES gifts(id), sent_at text NOT NULL,
         read_at text, deleted_at text)`,
      "CREATE UNIQUE INDEX messages_conversation_seq ON messages (conversation_id, seq)",
      "CREATE UNIQUE INDEX messages_sender_client_id ON messages (sender_id, client_id)",
    ].map((q) => env.DB.prepare(q)),
  );
}

/** Today's 0015 over the legacy schema. */
async function applyMigration0015() {
  const keep = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0015"))!;
  await env.DB.batch(keep.queries.map((q) => env.DB.prepare(q)));
}

interface LegacyRow {
  id: string;
  seq: number;
  sender_id: string;
  client_id: string | null;
  message: string;
  gift_id: string | null;
  sent_at: string;
  read_at: string | null;
  deleted_at: string | null;
}

let counter = 0;
const legacyId = () => `legacy${String(++counter).padStart(12, "0")}`;
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();

/**
 * A conversation as the code before the rooms stored it: the pair, both members' list state and
 * `count` messages alternating from `a`, a few deleted, one a gift, read by each member up to
 * `readUpTo` of the other's messages.
 */
async function legacyConversation(
  a: Member,
  b: Member,
  count: number,
  { readUpTo = 0, archivedFor = null as string | null, listedForB = count > 0 } = {},
) {
  const id = legacyId();
  const [low, high] = a.id < b.id ? [a.id, b.id] : [b.id, a.id];
  const statements = [
    env.DB.prepare(
      "INSERT INTO conversations (id, user_low, user_high, created_by, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    ).bind(id, low, high, a.id, at(0)),
    env.DB.prepare(
      `INSERT INTO conversation_members (conversation_id, user_id, listed, archived_at, last_activity_at, last_read_seq)
       VALUES (?1, ?2, 1, ?3, ?4, ?5), (?1, ?6, ?7, ?8, ?4, ?5)`,
    ).bind(
      id,
      a.id,
      archivedFor === a.id ? at(59) : null,
      at(count),
      readUpTo,
      b.id,
      listedForB ? 1 : 0,
      archivedFor === b.id ? at(59) : null,
    ),
  ];
  for (let seq = 1; seq <= count; seq++) {
    const sender = seq % 2 ? a : b;
    const deleted = seq % 17 === 0;
    const gift = seq === 5;
    statements.push(
      env.DB.prepare(
        `INSERT INTO messages (id, conversation_id, seq, sender_id, client_id, message, gift_id, sent_at, read_at, deleted_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
      ).bind(
        legacyId(),
        id,
        seq,
        sender.id,
        seq % 3 ? `legacy-${id}-${seq}` : null,
        deleted ? "" : `${sender.details.username} says ${seq}`,
        gift ? "rose" : null,
        at(seq % 60),
        seq <= readUpTo ? at(59) : null,
        deleted ? at(59) : null,
      ),
    );
  }
  await env.DB.batch(statements);
  return id;
}

async function legacyRows(conversationId: string) {
  const { results } = await env.DB.prepare(
    `SELECT id, seq, sender_id, client_id, message, gift_id, sent_at, read_at, deleted_at
     FROM legacy_messages WHERE conversation_id = ?1 ORDER BY seq`,
  )
    .bind(conversationId)
    .all<LegacyRow>();
  return results;
}

/** Every message of the conversation, in the room and in D1: the same, field by field. */
async function expectMoved(conversationId: string) {
  const d1 = await legacyRows(conversationId);
  const room = await roomMessages(conversationId);
  expect(
    room.map((m) => ({
      id: m.id,
      seq: m.seq,
      sender_id: m.sender_id,
      client_id: m.client_id,
      message: m.message,
      gift_id: m.gift?.id ?? null,
      sent_at: m.sent_at,
      read_at: m.read_at,
      deleted_at: m.deleted_at,
    })),
  ).toEqual(d1);
  return d1.length;
}

describe("moving D1's messages into the rooms", () => {
  it("keeps D1's messages through 0015, then migrates every conversation in resumable batches and reruns without change", async () => {
    await restoreLegacySchema();
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const carol = await verifiedMember();
    const ids = [
      await legacyConversation(alice, bob, 130, { readUpTo: 100 }),
      await legacyConversation(bob, carol, 4, { archivedFor: bob.id }),
      await legacyConversation(carol, alice, 0, { listedForB: false }),
    ];

    // 0015 applies with the messages not moved yet, and keeps every one of them.
    await applyMigration0015();
    expect(
      await env.DB.prepare("SELECT name FROM sqlite_master WHERE name = 'messages'").first(),
    ).toBeNull();
    expect(await legacyRows(ids[0]!)).toHaveLength(130);
    expect(await legacyRows(ids[1]!)).toHaveLength(4);

    // One conversation a call, resumed from the cursor each time.
    const seen: string[] = [];
    let moved = 0;
    for (let after: string | null = ""; after !== null;) {
      const res: Awaited<ReturnType<typeof migrateConversations>> = await migrateConversations(
        env,
        { after, limit: 1 },
      );
      moved += res.messages;
      after = res.next_cursor;
      if (after) seen.push(after);
    }
    expect(seen.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
    expect(moved).toBe(134);
    for (const id of ids) await expectMoved(id);

    // Run again from the start: nothing changes.
    const again = await migrateConversations(env, { limit: 100 });
    expect(again).toMatchObject({ conversations: 3, messages: 134, next_cursor: null });
    expect(await expectMoved(ids[0]!)).toBe(130);
    expect(await expectMoved(ids[1]!)).toBe(4);
    expect(await expectMoved(ids[2]!)).toBe(0);

    // The lists came along: unread counts from the read positions, archived and listed as they were.
    const alices = (await conversations(alice.client)).body.conversations;
    expect(alices.map((c) => c.id)).toEqual([ids[0]]);
    // Bob's messages after seq 100, not deleted: 102, 104, … 130 without 102 (17 × 6).
    expect(alices[0]).toMatchObject({
      last_message: `${bob.details.username} says 130`,
      unread_count: 14,
    });
    expect((await conversations(bob.client)).body.conversations.map((c) => c.id)).toEqual([ids[0]]);
    expect((await archived(bob.client)).body.archived_conversations.map((c) => c.id)).toEqual([
      ids[1],
    ]);
    expect((await conversations(carol.client)).body.conversations.map((c) => c.id).sort()).toEqual(
      [ids[1], ids[2]].sort(),
    );

    // Old message ids keep working: a page, a deletion, the gifts page.
    const newest = (await page(alice.client, ids[0]!)).body.messages;
    expect(newest.at(-1)!.message).toBe(`${bob.details.username} says 130`);
    const mine = newest.filter((m) => m.sender_id === alice.id).at(-1)!;
    expect((await alice.client.json("DELETE", `/chat/messages/${mine.id}`)).status).toBe(204);
    const gifts = await listGiftHistory(env, alice.id, "sent");
    expect(gifts.gifts).toMatchObject([{ gift: { id: "rose" }, price_credits: 5 }]);

    // A database that dropped its moved messages (0015 before it kept them) has the legacy
    // tables empty (0042): the rooms still hold everything, and the step finds nothing to add.
    await env.DB.batch([
      env.DB.prepare("DELETE FROM legacy_messages"),
      env.DB.prepare("DELETE FROM legacy_conversation_members"),
    ]);
    expect(await migrateConversations(env, { limit: 100 })).toMatchObject({ messages: 134 });
    expect((await roomMessages(ids[0]!)).length).toBe(130);
    expect((await page(bob.client, ids[0]!, "after=0")).body.messages).toHaveLength(50);
  }, 60_000);

  it("a room takes its D1 messages over by itself the first time it is used", async () => {
    await restoreLegacySchema();
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const id = await legacyConversation(alice, bob, 12);
    await applyMigration0015();
    // Never migrated: the first read finds every message, and a new one follows them.
    const first = await page(alice.client, id, "after=0");
    expect(first.body.messages.map((m) => m.seq)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    const res = await alice.client.json<{ message: { seq: number } }>(
      "POST",
      `/chat/conversations/${id}/messages`,
      { message: "After the move" },
    );
    expect(res.body.message.seq).toBe(13);
    expect(await roomMessages(id)).toHaveLength(13);
  });
});
