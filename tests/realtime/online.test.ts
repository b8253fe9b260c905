import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ONLINE_WINDOW_MS } from "~/lib/online";
import { presenceShardFor } from "~/server/presence.server";
import { foundIds, searcher, setUser } from "../discovery/fixtures";
import type { TestClient } from "../helpers/client";
import { joinPresence, onlineOf, until } from "./presence-helpers";

/**
 * One definition of "online" (app/lib/online.ts, docs/domain.md "Presence"): for the same member,
 * what presence shows live, what their card says and whether "online now" finds them agree while
 * they are connected, in the window after they leave (presence has let them go, the stored state
 * has not yet: the lag the definition states), and after it; hiding it hides them everywhere.
 */

type Member = Awaited<ReturnType<typeof searcher>>;

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** What a shard's periodic alarm does: write last_seen_at of its members in one batch. */
const writeLastSeenOf = (memberId: string) => presenceShardFor(env, memberId).room.writeLastSeen();

async function card(viewer: TestClient, member: Member) {
  const res = await viewer.json<{ member: { online: boolean; last_seen_at: string | null } }>(
    "GET",
    `/members/${member.details.username}`,
  );
  expect(res.status).toBe(200);
  return res.body.member;
}

/** The stored state, as a card and as the "online now" search show it. */
async function stored(viewer: TestClient, member: Member) {
  const online = (await card(viewer, member)).online;
  const found = await foundIds(viewer, {
    keywords: member.details.username,
    filters: { online_only: true },
  });
  return { card: online, search: found.includes(member.id) };
}

describe("online: presence, cards and search", () => {
  it("agree while connected, in the window after leaving, and after it", async () => {
    const viewer = await searcher();
    const member = await searcher();
    await setUser(member.id, { last_seen_at: ago(30 * 60_000) });
    const watcher = await joinPresence(viewer.client, [member.id]);
    expect(onlineOf(watcher).has(member.id)).toBe(false);
    expect(await stored(viewer.client, member)).toEqual({ card: false, search: false });

    // Connected: online live, and in the stored state from the shard's next write on.
    const socket = await joinPresence(member.client);
    await until(watcher, (online) => online.has(member.id), "the member joined");
    await writeLastSeenOf(member.id);
    expect(await stored(viewer.client, member)).toEqual({ card: true, search: true });

    // Left: presence lets them go after the grace; the card and the search still show them for
    // the rest of the window (the lag), both alike.
    socket.close();
    await until(watcher, (online) => !online.has(member.id), "the member left");
    await writeLastSeenOf(member.id);
    const seen = (await card(viewer.client, member)).last_seen_at;
    expect(Date.now() - Date.parse(seen!)).toBeLessThan(ONLINE_WINDOW_MS);
    expect(await stored(viewer.client, member)).toEqual({ card: true, search: true });

    // After the window (the row as it stands once it has passed): offline everywhere.
    await setUser(member.id, { last_seen_at: ago(ONLINE_WINDOW_MS + 1000) });
    expect(await stored(viewer.client, member)).toEqual({ card: false, search: false });
    expect(onlineOf(watcher).has(member.id)).toBe(false);
    watcher.close();
  });

  it("a member hiding their online state is offline everywhere, connected and freshly seen", async () => {
    const viewer = await searcher();
    const member = await searcher();
    await setUser(member.id, { last_seen_at: ago(30 * 60_000) });
    const watcher = await joinPresence(viewer.client, [member.id]);
    const socket = await joinPresence(member.client);
    await until(watcher, (online) => online.has(member.id), "the member joined");
    await writeLastSeenOf(member.id);
    expect(await stored(viewer.client, member)).toEqual({ card: true, search: true });

    const res = await member.client.json("PUT", "/my/privacy", { hide_online: true });
    expect(res.status).toBe(200);
    await until(watcher, (online) => !online.has(member.id), "the member hid");
    expect(await stored(viewer.client, member)).toEqual({ card: false, search: false });
    expect((await card(viewer.client, member)).last_seen_at).toBeNull();
    socket.close();
    watcher.close();
  });
});
