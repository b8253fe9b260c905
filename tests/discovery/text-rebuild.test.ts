import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { rebuildSearchText, searchTextRebuildJob } from "~/server/search/text-rebuild.server";
import worker from "../../worker/index";
import { verifiedMember } from "../helpers/members";
import { foundIds, seedMember } from "./fixtures";

/**
 * The full-text rows written again in batches by housekeeping, where migrations 0017, 0019 and
 * 0020 used to rewrite every row in one statement (docs/decisions/050).
 */

beforeEach(() => {
  vi.spyOn(console, "info").mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
});

const mark = () =>
  env.DB.prepare("SELECT after FROM search_text_rebuild WHERE id = 1").first<{ after: number }>();
/** What a migration leaves on a database with members. */
const markRebuild = () =>
  env.DB.prepare(
    `INSERT INTO search_text_rebuild (id, after, started_at) VALUES (1, 0, ?)
     ON CONFLICT (id) DO UPDATE SET after = 0`,
  )
    .bind(new Date().toISOString())
    .run();
const indexed = async () =>
  (await env.DB.prepare("SELECT count(*) AS n FROM member_search_fts").first<{ n: number }>())!.n;
const searchRows = async () =>
  (await env.DB.prepare(
    `SELECT count(*) AS n FROM member_search s JOIN member_search_source v ON v.user_id = s.user_id`,
  ).first<{ n: number }>())!.n;

async function runCron() {
  const controller = createScheduledController({ scheduledTime: Date.now(), cron: "*/15 * * * *" });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("the full-text rebuild", () => {
  it("is not wanted on a database migrated empty", async () => {
    expect(await mark()).toBeNull();
    expect(await rebuildSearchText(env)).toEqual({ rows: 0, done: true });
  });

  it("writes an emptied index again in batches across runs, and keyword search finds everyone", async () => {
    const me = await verifiedMember();
    const word = `lighthouse${Math.random().toString(36).slice(2, 8)}`;
    const members = [];
    for (let i = 0; i < 7; i += 1) members.push((await seedMember({ bio: `I keep a ${word}` })).id);
    expect((await foundIds(me.client, { keywords: word })).sort()).toEqual([...members].sort());

    // As after 0019, which recreates the index empty, on a database with members.
    await env.DB.prepare("DELETE FROM member_search_fts").run();
    await markRebuild();
    expect(await foundIds(me.client, { keywords: word })).toEqual([]);

    // Three rows a batch, one batch a run: the walk resumes where the last run stopped.
    const job = searchTextRebuildJob(3);
    const limits = { batchSize: 500, maxBatches: 1 };
    const total = await searchRows();
    const progress: number[] = [];
    for (let run = 0; run < 20; run += 1) {
      const result = await job.run(env, Date.now(), limits);
      if (result.done) break;
      expect(result.deleted).toBeLessThanOrEqual(3);
      progress.push((await mark())!.after);
    }
    expect(progress.length).toBe(Math.ceil(total / 3));
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(await mark()).toBeNull();
    expect(await indexed()).toBe(total);
    expect((await foundIds(me.client, { keywords: word })).sort()).toEqual([...members].sort());
  });

  it("replaces rows holding old text, and keeps a member who changed meanwhile", async () => {
    const me = await verifiedMember();
    const word = `harbour${Math.random().toString(36).slice(2, 8)}`;
    const first = await seedMember({ bio: `A ${word} walk` });
    const second = await seedMember({ bio: `Another ${word} walk` });
    // As after 0017 or 0020: every row still holds what the index held before.
    const keys = await env.DB.prepare("SELECT sort_key FROM member_search WHERE user_id IN (?, ?)")
      .bind(first.id, second.id)
      .all<{ sort_key: number }>();
    for (const { sort_key } of keys.results) {
      await env.DB.batch([
        env.DB.prepare("DELETE FROM member_search_fts WHERE rowid = ?").bind(sort_key),
        env.DB.prepare(
          `INSERT INTO member_search_fts (rowid, username, first_name, bio, interests, tags)
           VALUES (?, 'old', '', 'old text', '', '')`,
        ).bind(sort_key),
      ]);
    }
    expect(await foundIds(me.client, { keywords: word })).toEqual([]);
    await markRebuild();

    // One batch, then the second member writes a new bio, then the rest.
    await rebuildSearchText(env, 1);
    const renamed = `quay${Math.random().toString(36).slice(2, 8)}`;
    await env.DB.prepare("UPDATE profiles SET bio = ? WHERE user_id = ?")
      .bind(`Now a ${renamed} walk`, second.id)
      .run();
    while (!(await rebuildSearchText(env, 1)).done);

    expect(await foundIds(me.client, { keywords: "old" })).toEqual([]);
    expect(await foundIds(me.client, { keywords: renamed })).toEqual([second.id]);
    expect(await foundIds(me.client, { keywords: word })).toEqual([first.id]);
    expect(await indexed()).toBe(await searchRows());
  });

  it("runs with housekeeping's cron until the mark is gone", async () => {
    const me = await verifiedMember();
    const word = `meadow${Math.random().toString(36).slice(2, 8)}`;
    const member = await seedMember({ bio: `A ${word}` });
    await env.DB.prepare("DELETE FROM member_search_fts").run();
    await markRebuild();
    await runCron();
    expect(await mark()).toBeNull();
    expect(await foundIds(me.client, { keywords: word })).toEqual([member.id]);
  });
});
