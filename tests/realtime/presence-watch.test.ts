import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PRESENCE_ERRORS, PRESENCE_WATCH_LIMIT } from "~/realtime/presence";
import { presenceShardFor } from "~/server/presence.server";
import type { PresenceRoom } from "../../durable-objects/presence/room";
import { verifiedMember } from "../helpers/members";
import type { TestSocket } from "../helpers/sockets";
import {
  countEvents,
  inOneShard,
  inTwoShards,
  joinPresence,
  memberInShardOf,
  mentionedBy,
  nextAfter,
  onlineOf,
  sendBad,
  restartHome,
  until,
  watch,
  watchedAcrossShards,
} from "./presence-helpers";
import { eventually, sleep } from "../../scripts/lib/wait";

type Member = Awaited<ReturnType<typeof verifiedMember>>;

/** The shards registered with a member's home for that member. */
async function registeredFor(member: Member): Promise<number[]> {
  const { room } = presenceShardFor(env, member.id);
  return runInDurableObject(room, async (_instance: PresenceRoom, state) => {
    return (await state.storage.get<number[]>(`peer:${member.id}`)) ?? [];
  });
}

function heardSince(socket: TestSocket, from: number) {
  return mentionedBy({ ...socket, frames: socket.frames.slice(from) });
}

describe("watch sets", () => {
  it("start as the member's contacts: matches and conversation partners", async () => {
    const me = await verifiedMember();
    const match = await verifiedMember();
    const partner = await verifiedMember();
    const stranger = await verifiedMember();
    for (const [from, to] of [
      [me, match],
      [match, me],
    ] as const) {
      expect((await from.client.json("POST", "/my/likes", { user_id: to.id })).status).toBe(201);
    }
    const started = await partner.client.json("POST", "/chat/conversations", { user_id: me.id });
    expect(started.status).toBe(201);
    const others = await Promise.all([match, partner, stranger].map((m) => joinPresence(m.client)));

    const s = await joinPresence(me.client);
    const here = s.frames.find((f) => f.type === "here")!;
    expect(new Set(here.users as string[])).toEqual(new Set([match.id, partner.id]));
    // The stranger leaves first: once both contacts' leaves are heard, theirs would have been.
    for (const o of [...others].reverse()) o.close();
    await until(s, (online) => online.size === 0, "both contacts to leave");
    expect(mentionedBy(s).has(stranger.id)).toBe(false);
    s.close();
  });

  it("are replaced by each watch, with a here after every one", async () => {
    // b's home is the watcher's shard: whatever b's arrival sends the watcher's page is sent
    // before that page's next watch is answered.
    const [watcher, b] = await inOneShard();
    const [a, control] = await Promise.all([verifiedMember(), verifiedMember()]);
    const sa = await joinPresence(a.client);
    const sb = await joinPresence(b.client);
    const w = await joinPresence(watcher.client);
    expect(await watch(w, [a.id])).toEqual([a.id]);
    expect(await watch(w, [b.id])).toEqual([b.id]);
    expect(await watch(w, [b.id])).toEqual([b.id]);
    const from = w.frames.length;

    // The member no longer watched leaves first, then the watched one; a watched control member
    // leaves after both have gone: once that is heard (a grace period later), a leave of the
    // member no longer watched and a second leave of the watched one would have been too.
    sa.close();
    sb.close();
    await until(w, (online) => !online.has(b.id), "the watched member to leave");
    const c = await joinPresence(control.client);
    expect(await watch(w, [b.id, control.id])).toEqual([control.id]);
    c.close();
    await until(w, (online) => !online.has(control.id), "the control member to leave");
    // The member no longer watched is not heard of.
    expect(heardSince(w, from).has(a.id)).toBe(false);
    expect(countEvents(w, "leaving", b.id)).toBe(1);
    // An empty set: nothing more is heard; the answer to the next watch is the only frame.
    expect(await watch(w, [])).toEqual([]);
    const quiet = w.frames.length;
    const sb2 = await joinPresence(b.client);
    const answer = await watch(w, []);
    expect(w.frames.slice(quiet).map((f) => f.type)).toEqual(["here"]);
    expect(answer).toEqual([]);
    for (const s of [w, sb2]) s.close();
  });

  it(`take at most ${PRESENCE_WATCH_LIMIT} members; a larger watch is refused and changes nothing`, async () => {
    const watcher = await verifiedMember();
    const target = await verifiedMember();
    const t = await joinPresence(target.client);
    const w = await joinPresence(watcher.client);
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `nobody${i}`);

    expect(await watch(w, [target.id, ...filler(PRESENCE_WATCH_LIMIT - 1)])).toEqual([target.id]);
    // The same id twice counts once.
    expect(await watch(w, [target.id, target.id, ...filler(PRESENCE_WATCH_LIMIT - 1)])).toEqual([
      target.id,
    ]);
    expect(await sendBad(w, JSON.stringify({ type: "watch", user_ids: filler(501) }))).toBe(
      PRESENCE_ERRORS.tooMany,
    );
    // Still the earlier set: the target's departure is heard.
    t.close();
    await until(w, (online) => !online.has(target.id), "the target to leave");
    w.close();
  });

  it("answer a frame that breaks the rules with an error, and change nothing", async () => {
    const watcher = await verifiedMember();
    const target = await verifiedMember();
    const t = await joinPresence(target.client);
    const w = await joinPresence(watcher.client, [target.id]);
    expect(onlineOf(w).has(target.id)).toBe(true);
    const heres = w.frames.filter((f) => f.type === "here").length;

    expect(await sendBad(w, "not json")).toBe(PRESENCE_ERRORS.malformed);
    expect(await sendBad(w, '{"type":"subscribe","channel":"all"}')).toBe(
      PRESENCE_ERRORS.malformed,
    );
    expect(await sendBad(w, '{"type":"watch","user_ids":"everyone"}')).toBe(PRESENCE_ERRORS.watch);
    expect(await sendBad(w, '{"type":"watch","user_ids":[1,2]}')).toBe(PRESENCE_ERRORS.watch);
    expect(await sendBad(w, '{"type":"watch"}')).toBe(PRESENCE_ERRORS.watch);
    // No `here` answered any of them, the socket is open, and the set is the one before.
    expect(w.frames.filter((f) => f.type === "here")).toHaveLength(heres);
    expect(w.ws.readyState).toBe(WebSocket.OPEN);
    // A ping written differently from the keepalive's text still gets its pong.
    w.ws.send('{ "type": "ping" }');
    await nextAfter(w, 0, (f) => f.type === "pong");
    t.close();
    await until(w, (online) => !online.has(target.id), "the target to leave");
    w.close();
  });

  it("tell the online count on joining, counting the members of the joiner's own shard at once", async () => {
    const [member, other] = await inOneShard();
    const o = await joinPresence(other.client);
    const s = await joinPresence(member.client);
    const count = await s.next((f) => f.type === "online_count");
    expect(count.count).toBeGreaterThanOrEqual(2);
    for (const x of [o, s]) x.close();
  });

  it("tell the online count on joining, with the members of other shards as their shards reported them", async () => {
    const [member, other] = await inTwoShards();
    // Fresh rooms: a shard reports its count to shard 0 when its first socket joins, and then
    // every 30 s (a shard that already knows the total does not ask again on each join).
    await abortAllDurableObjects();
    const o = await joinPresence(other.client);
    // The other shard has reported once its socket heard the total.
    expect((await o.next((f) => f.type === "online_count")).count).toBeGreaterThanOrEqual(1);
    const s = await joinPresence(member.client);
    const count = await s.next((f) => f.type === "online_count");
    expect(count.count).toBeGreaterThanOrEqual(2);
    for (const x of [o, s]) x.close();
  });
});

describe("watches across shards", () => {
  it("register with the member's home shard, which relays only to the shards that watch", async () => {
    const [watcher, target] = await inTwoShards();
    const { shard: watcherShard } = presenceShardFor(env, watcher.id);
    const bystander = await verifiedMember();
    const t = await joinPresence(target.client);
    const b = await joinPresence(bystander.client);
    expect(await registeredFor(target)).toEqual([]);

    const w = await joinPresence(watcher.client);
    expect(await watch(w, [target.id])).toEqual([target.id]);
    expect(await registeredFor(target)).toEqual([watcherShard]);
    // Not watched by the watcher's shard: not registered there.
    expect(await registeredFor(bystander)).not.toContain(watcherShard);

    t.close();
    await until(w, (online) => !online.has(target.id), "the target to leave");
    const t2 = await joinPresence(target.client);
    await until(w, (online) => online.has(target.id), "the target to come back");
    expect(countEvents(w, "joining", target.id)).toBe(1);

    // Once nobody there watches the target, the next change the home relays withdraws the
    // registration, and the watcher hears nothing of it.
    expect(await watch(w, [])).toEqual([]);
    const quiet = w.frames.length;
    t2.close();
    await eventually(async () => (await registeredFor(target)).length === 0, {
      timeoutMs: 4000,
      intervalMs: 50,
      what: "the registration to be withdrawn",
    });
    expect(heardSince(w, quiet).has(target.id)).toBe(false);
    // Watching again registers again.
    const t3 = await joinPresence(target.client);
    expect(await watch(w, [target.id])).toEqual([target.id]);
    expect(await registeredFor(target)).toEqual([watcherShard]);
    for (const s of [w, t3, b]) s.close();
  });

  it("count a watcher's tabs once: the registration stays until the last tab stops watching", async () => {
    const [watcher, target] = await inTwoShards();
    const t = await joinPresence(target.client);
    const w1 = await joinPresence(watcher.client, [target.id]);
    const w2 = await joinPresence(watcher.client, [target.id]);
    w1.close();
    await sleep(200);
    t.close();
    await until(w2, (online) => !online.has(target.id), "the other tab to hear the leave");
    w2.close();
  });
});

describe("a presence room that restarts", () => {
  it("lets pages reconnect and watch again; members whose sockets died leave after the grace", async () => {
    const { watcher, target, t, w } = await watchedAcrossShards();
    const closed = (s: TestSocket) =>
      new Promise<void>((resolve) => {
        if (s.ws.readyState === WebSocket.CLOSED) resolve();
        s.ws.addEventListener("close", () => resolve());
        s.ws.addEventListener("error", () => resolve());
      });
    const down = Promise.all([closed(t), closed(w)]);
    await abortAllDurableObjects();
    await down;

    // The page reconnects (the client does so by itself) and says what it shows again.
    const w2 = await joinPresence(watcher.client, [target.id]);
    // The target's socket died with the room: they leave once the grace period is over.
    await until(w2, (online) => !online.has(target.id), "the target to leave after the restart");
    const t2 = await joinPresence(target.client);
    await until(w2, (online) => online.has(target.id), "the target to be back");
    t2.close();
    await until(w2, (online) => !online.has(target.id), "the target to leave again");
    w2.close();
  });

  it("keeps relaying to the shards registered with a member's home after that home restarts", async () => {
    const { target, t, w } = await watchedAcrossShards();
    const control = await verifiedMember();
    await restartHome(target.id, t);

    // The target's page reconnects within the grace period: the watcher sees no flicker. A
    // watched control member comes and goes after that: once its leave is heard (a grace period
    // later), a leave of the target would have been too.
    const t2 = await joinPresence(target.client);
    const c = await joinPresence(control.client);
    await watch(w, [target.id, control.id]);
    // The control's home may be another shard: its join reaches the watcher's shard when it does.
    await until(
      w,
      (online) => online.has(target.id) && online.has(control.id),
      "the watcher to see the target and the control member",
    );
    c.close();
    await until(w, (online) => !online.has(control.id), "the control member to leave");
    expect(countEvents(w, "leaving", target.id)).toBe(0);
    expect(onlineOf(w).has(target.id)).toBe(true);
    // The restarted home still knows the watcher's shard: the departure reaches it.
    t2.close();
    await until(w, (online) => !online.has(target.id), "the target to leave");
    w.close();
  });

  it("reaches a restarted home again for members watched after the restart", async () => {
    const { target, t, w } = await watchedAcrossShards();
    // Another member of the target's home: with 16 shards, finding one takes a few sign-ups.
    const neighbour = await memberInShardOf(target.id);
    // The watcher's shard has called the target's home; that home restarts.
    await restartHome(target.id, t);
    const n = await joinPresence(neighbour.client);
    // Watching the neighbour asks the restarted home, which the watcher's shard reaches again.
    await watch(w, [target.id, neighbour.id]);
    await until(w, (online) => online.has(neighbour.id), "the watcher to see the neighbour");
    n.close();
    await until(w, (online) => !online.has(neighbour.id), "the neighbour to leave");
    w.close();
  }, 20_000);
});
