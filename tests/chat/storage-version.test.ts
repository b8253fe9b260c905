import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ConversationRoom } from "../../durable-objects/conversation/room";
import type { MemberHub } from "../../durable-objects/member-hub";
import { hasColumn, storageVersion } from "../../durable-objects/storage-version";
import { restartObject } from "../helpers/restart";
import { imageBytes } from "../profile/fixtures";
import { conversationPair, matchedPair, page, roomMessages, sendFile, sent } from "./helpers";

/**
 * Durable Object storage written by earlier code (docs/decisions/037): a room opened by this code
 * brings it up to date once, and keeps what was in it; storage a newer release left is used as it
 * is. Aborting a room restarts it on the same storage, as a deploy does.
 */

const roomOf = (id: string) => env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(id));
const hubOf = (id: string) => env.MEMBER_HUB.get(env.MEMBER_HUB.idFromName(id));

/** Runs `change` on a room's storage, then restarts the room, as a deploy does. */
async function rewriteAndRestart(id: string, change: (sql: SqlStorage) => void) {
  await runInDurableObject(roomOf(id), (_room: ConversationRoom, state) =>
    change(state.storage.sql),
  );
  await restartObject(roomOf(id));
}

/** The room's storage version this code writes. */
const CURRENT = 4;

/** What version 4 added: photos, voice notes and calls. */
function dropVersion4(sql: SqlStorage) {
  sql.exec("ALTER TABLE messages DROP COLUMN attachment");
  sql.exec("ALTER TABLE messages DROP COLUMN call");
  sql.exec("DROP TABLE calls");
}

const roomVersion = (id: string) =>
  runInDurableObject(roomOf(id), (_room: ConversationRoom, state) =>
    storageVersion(state.storage.sql),
  );

describe("a room's storage across releases", () => {
  it("opens a room written before versions and before a message's safety kind, and keeps its messages", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(alice.client, id, "written by the old code");
    // The room as the code before safety kinds and storage versions left it.
    await rewriteAndRestart(id, (sql) => {
      sql.exec("DROP TABLE storage_version");
      sql.exec("ALTER TABLE messages DROP COLUMN safety");
      sql.exec("ALTER TABLE messages DROP COLUMN delivered_at");
      sql.exec("DROP TABLE reactions");
      dropVersion4(sql);
    });

    await sent(bob.client, id, "written by this code");
    expect((await roomMessages(id)).map((m) => m.message)).toEqual([
      "written by the old code",
      "written by this code",
    ]);
    expect(await roomVersion(id)).toBe(CURRENT);
    await runInDurableObject(roomOf(id), (_room: ConversationRoom, state) => {
      expect(hasColumn(state.storage.sql, "messages", "safety")).toBe(true);
    });
  });

  it("records its version on a room that already had every step, running none again", async () => {
    const { alice, id } = await conversationPair();
    await sent(alice.client, id, "hello");
    // Written by the code just before versions: the safety column there, no version kept.
    await rewriteAndRestart(id, (sql) => sql.exec("DROP TABLE storage_version"));
    await sent(alice.client, id, "again");
    expect(await roomVersion(id)).toBe(CURRENT);
    expect(await roomMessages(id)).toHaveLength(2);
  });

  it("brings a room of the release before delivery and reactions up to date", async () => {
    const { alice, bob, id } = await conversationPair();
    const before = await sent(alice.client, id, "before delivery times");
    await rewriteAndRestart(id, (sql) => {
      sql.exec("ALTER TABLE messages DROP COLUMN delivered_at");
      sql.exec("DROP TABLE reactions");
      dropVersion4(sql);
      sql.exec("UPDATE storage_version SET version = 2");
    });
    const res = await bob.client.json("PUT", `/chat/messages/${before.id}/reaction`, {
      emoji: "❤️",
    });
    expect(res.status).toBe(200);
    expect(await roomVersion(id)).toBe(CURRENT);
    const [message] = await roomMessages(id);
    expect(message).toMatchObject({ message: "before delivery times", delivered_at: null });
    expect((await page(bob.client, id, "after=0")).body.messages[0]!.reactions).toEqual([
      { user_id: bob.id, emoji: "❤️" },
    ]);
  });

  it("brings a room of the release before photos and calls up to date", async () => {
    const { alice, bob, id } = await matchedPair();
    await rewriteAndRestart(id, (sql) => {
      dropVersion4(sql);
      sql.exec("UPDATE storage_version SET version = 3");
    });
    const photo = await sendFile(alice.client, id, imageBytes("png", 2048));
    expect(photo.status).toBe(201);
    expect(await roomVersion(id)).toBe(CURRENT);
    const shown = (await page(bob.client, id)).body.messages.at(-1)!;
    expect(shown.attachment).toMatchObject({ kind: "photo", view_once: false });
    expect((await roomMessages(id)).map((m) => m.message)).toEqual([
      "Hi Bob!",
      "Hi Alice",
      "📷 Photo",
    ]);
  });

  it("uses storage a newer release left as it is (a rollback), without a step run", async () => {
    const { alice, id } = await conversationPair();
    await sent(alice.client, id, "hello");
    await rewriteAndRestart(id, (sql) => sql.exec("UPDATE storage_version SET version = 99"));
    await sent(alice.client, id, "after the rollback");
    expect(await roomMessages(id)).toHaveLength(2);
    expect(await roomVersion(id)).toBe(99);
  });

  it("keeps a member hub's version", async () => {
    const { alice } = await conversationPair();
    await runInDurableObject(hubOf(alice.id), (_hub: MemberHub, state) => {
      expect(storageVersion(state.storage.sql)).toBe(1);
    });
  });
});
