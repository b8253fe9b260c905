import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LAST_SEEN_REFRESH_MS } from "~/lib/online";
import { presenceShardFor } from "~/server/presence.server";
import { foundIds, searcher, setUser } from "../discovery/fixtures";
import { joinPresence, SETTLE_MS } from "./presence-helpers";
import { sleep } from "../../scripts/lib/wait";

async function lastSeen(id: string) {
  const row = await env.DB.prepare("SELECT last_seen_at FROM users WHERE id = ?1")
    .bind(id)
    .first<{ last_seen_at: string | null }>();
  return row?.last_seen_at ?? null;
}

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

/** What a shard's periodic alarm does: write last_seen_at of its members in one batch. */
const writeLastSeenOf = (memberId: string) => presenceShardFor(env, memberId).room.writeLastSeen();

describe("last_seen_at written in bulk by the presence shards", () => {
  it("keeps members with a socket in search's online now, without a heartbeat", async () => {
    const me = await searcher();
    const online = await searcher();
    const gone = await searcher();
    const s = await joinPresence(online.client);
    const g = await joinPresence(gone.client);
    for (const m of [online, gone]) await setUser(m.id, { last_seen_at: minutesAgo(30) });
    expect(await foundIds(me.client, { filters: { online_only: true } })).not.toContain(online.id);

    const closedAt = Date.now();
    g.close();
    await sleep(SETTLE_MS);
    await writeLastSeenOf(online.id);
    await writeLastSeenOf(gone.id);

    const seen = Date.parse((await lastSeen(online.id))!);
    expect(Date.now() - seen).toBeLessThan(10_000);
    expect(await foundIds(me.client, { filters: { online_only: true } })).toContain(online.id);
    // The member who left: the time they closed their last tab, not the time of the write.
    const left = Date.parse((await lastSeen(gone.id))!);
    expect(Math.abs(left - closedAt)).toBeLessThan(1000);

    // A fresh value is not written again (the search index triggers stay quiet).
    const before = await lastSeen(online.id);
    await writeLastSeenOf(online.id);
    expect(await lastSeen(online.id)).toBe(before);
    // Once older than the refresh age, it is.
    await setUser(online.id, {
      last_seen_at: new Date(Date.now() - LAST_SEEN_REFRESH_MS - 1000).toISOString(),
    });
    await writeLastSeenOf(online.id);
    expect(Date.now() - Date.parse((await lastSeen(online.id))!)).toBeLessThan(10_000);
    s.close();
  });

  it("writes each shard's members in one batch, however many there are", async () => {
    const members = await Promise.all(Array.from({ length: 6 }, () => searcher()));
    const sockets = await Promise.all(members.map((m) => joinPresence(m.client)));
    for (const m of members) await setUser(m.id, { last_seen_at: minutesAgo(30) });
    const shards = new Map<number, string>();
    for (const m of members) shards.set(presenceShardFor(env, m.id).shard, m.id);
    // One write per shard covers every member of it.
    for (const id of shards.values()) await writeLastSeenOf(id);
    for (const m of members) {
      expect(Date.now() - Date.parse((await lastSeen(m.id))!)).toBeLessThan(10_000);
    }
    for (const s of sockets) s.close();
  });
});
