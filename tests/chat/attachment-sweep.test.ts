import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatMessageView } from "~/realtime/chat";
import { ORPHAN_AGE_MS } from "~/server/chat-attachments.server";
import { runCron } from "../helpers/cron";
import { imageBytes } from "../profile/fixtures";
import { matchedPair, sendFile } from "./helpers";

/**
 * The housekeeping's sweep of chat attachments (docs/decisions/045): an object under `chat/` that
 * no message carries is deleted once older than ORPHAN_AGE_MS, and every object of a conversation
 * that no longer exists goes; what a message carries stays. The Cron Trigger runs with its time
 * as the clock, so a run "two hours later" sees every object put now as old.
 */

const LATER = () => Date.now() + ORPHAN_AGE_MS + 3600_000;

const keysOf = async (prefix: string) =>
  (await env.PHOTOS.list({ prefix })).objects.map((o) => o.key).sort();

/** A conversation with one photo sent in it, and that photo's R2 key. */
async function conversationWithPhoto() {
  const pair = await matchedPair();
  const res = await sendFile(pair.alice.client, pair.id, imageBytes("jpeg"));
  if (res.status !== 201) throw new Error(`send failed: ${res.status}`);
  const message = res.body.message as ChatMessageView;
  expect(message.attachment).not.toBeNull();
  const [key] = await keysOf(`chat/${pair.id}/`);
  return { ...pair, key: key!, message };
}

/** An object put straight into R2, as a send that failed after its upload leaves it. */
const orphan = async (key: string) => env.PHOTOS.put(key, imageBytes("jpeg"));

describe("the sweep of chat attachments", () => {
  it("deletes an orphan once old enough, keeps a fresh one until then, and keeps what a message carries", async () => {
    const { id, key, message } = await conversationWithPhoto();
    await orphan(`chat/${id}/orphan-old`);

    // Right now, nothing is old enough: everything stays.
    await runCron(Date.now());
    expect(await keysOf(`chat/${id}/`)).toEqual([key, `chat/${id}/orphan-old`].sort());

    // Later: the orphan goes, the photo its message carries stays.
    await runCron(LATER());
    expect(await keysOf(`chat/${id}/`)).toEqual([key]);

    // A fresh orphan is kept by a run that comes before it is old enough, and goes after.
    await orphan(`chat/${id}/orphan-fresh`);
    await runCron(Date.now() + ORPHAN_AGE_MS / 2);
    expect(await keysOf(`chat/${id}/`)).toContain(`chat/${id}/orphan-fresh`);
    await runCron(LATER());
    expect(await keysOf(`chat/${id}/`)).toEqual([key]);

    // The photo its message carries is whole (read from R2: runs this much later also ended the
    // members' idle sessions).
    expect((await env.PHOTOS.head(key))?.size).toBe(message.attachment!.size);
  });

  it("deletes every object of a conversation that no longer exists, whatever its age", async () => {
    const { id, key } = await conversationWithPhoto();
    // The conversation's row is gone (an erasure whose deletes in R2 failed): its objects are
    // reached by no one.
    await env.DB.prepare("DELETE FROM conversations WHERE id = ?").bind(id).run();
    const never = `chat/${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}/x`;
    await orphan(never);

    await runCron(Date.now());
    expect(await keysOf(`chat/${id}/`)).toEqual([]);
    expect(await keysOf(never)).toEqual([]);
    expect(key).toMatch(new RegExp(`^chat/${id}/`));
  });

  it("resumes where the last run stopped when a run lists only part of the objects", async () => {
    const { id, key } = await conversationWithPhoto();
    const orphans = ["a", "b", "c", "d", "e"].map((n) => `chat/${id}/orphan-${n}`);
    for (const k of orphans) await orphan(k);

    // Two keys a list, one list a run.
    const small = { HOUSEKEEPING_BATCH: "2/1" };
    await runCron(LATER(), small);
    const afterOne = await keysOf(`chat/${id}/`);
    expect(afterOne.length).toBeGreaterThan(1);

    let runs = 1;
    while ((await keysOf(`chat/${id}/`)).length > 1 && runs < 20) {
      await runCron(LATER(), small);
      runs += 1;
    }
    expect(await keysOf(`chat/${id}/`)).toEqual([key]);
    expect(runs).toBeGreaterThan(1);
  });
});
