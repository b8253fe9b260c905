import { env, runInDurableObject } from "cloudflare:test";
import { parsePresenceServerFrame } from "~/realtime/presence";
import { presenceConfig, shardOf } from "~/realtime/presence-shards";
import { presenceShardFor } from "~/server/presence.server";
import type { PresenceRoom } from "../../durable-objects/presence/room";
import type { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { openSocket, type TestSocket } from "../helpers/sockets";
import { eventually } from "../../scripts/lib/wait";

/** The online ids a presence socket's frames add up to (a client's view of the room). */
export function onlineOf(socket: TestSocket): Set<string> {
  const online = new Set<string>();
  for (const raw of socket.frames) {
    const frame = parsePresenceServerFrame(JSON.stringify(raw));
    if (!frame) throw new Error(`unexpected presence frame ${JSON.stringify(raw)}`);
    if (frame.type === "here") {
      online.clear();
      for (const id of frame.users) online.add(id);
    } else if (frame.type === "joining") online.add(frame.user_id);
    else if (frame.type === "leaving") online.delete(frame.user_id);
  }
  return online;
}

/** Every id a socket's frames ever named (to show a member never appeared). */
export function mentionedBy(socket: TestSocket): Set<string> {
  const ids = new Set<string>();
  for (const f of socket.frames) {
    if (Array.isArray(f.users)) for (const id of f.users as string[]) ids.add(id);
    if (typeof f.user_id === "string") ids.add(f.user_id);
  }
  return ids;
}

/** How often a socket heard that `id` joined (or left). */
export function countEvents(socket: TestSocket, kind: "joining" | "leaving", id: string): number {
  return socket.frames.filter((f) => f.type === kind && f.user_id === id).length;
}

/** Waits until the socket's view satisfies `predicate`. */
export async function until(
  socket: TestSocket,
  predicate: (online: Set<string>) => boolean,
  what = "presence condition",
  timeoutMs = 4000,
): Promise<Set<string>> {
  return eventually(
    () => {
      const online = onlineOf(socket);
      return predicate(online) && online;
    },
    { timeoutMs, intervalMs: 20, what, detail: () => `frames: ${JSON.stringify(socket.frames)}` },
  );
}

/** Waits for the first frame after the socket's first `from` frames that matches `predicate`. */
export async function nextAfter(
  socket: TestSocket,
  from: number,
  predicate: (f: Record<string, unknown>) => boolean,
  timeoutMs = 4000,
): Promise<Record<string, unknown>> {
  return eventually(() => socket.frames.slice(from).find(predicate), {
    timeoutMs,
    intervalMs: 10,
    what: "a matching frame",
    detail: () => `frames: ${JSON.stringify(socket.frames)}`,
  });
}

/** Sends a watch frame and waits for the `here` that answers it; returns its users. */
export async function watch(socket: TestSocket, ids: string[]): Promise<string[]> {
  const from = socket.frames.length;
  socket.ws.send(JSON.stringify({ type: "watch", user_ids: ids }));
  const here = await nextAfter(socket, from, (f) => f.type === "here");
  return here.users as string[];
}

/** Sends a raw frame and waits for the `error` that answers it; returns its message. */
export async function sendBad(socket: TestSocket, raw: string): Promise<string> {
  const from = socket.frames.length;
  socket.ws.send(raw);
  const error = await nextAfter(socket, from, (f) => f.type === "error");
  return error.message as string;
}

/**
 * Opens /ws/presence for a member and waits for its first `here` (their contacts); with `watching`,
 * then watches those members and waits for that `here` too.
 */
export async function joinPresence(
  client: TestClient,
  watching?: string[],
  path = "/ws/presence",
): Promise<TestSocket> {
  const { status, socket } = await openSocket(client, path);
  if (status !== 101 || !socket) throw new Error(`presence upgrade answered ${status}`);
  await socket.next((f) => f.type === "here");
  if (watching) await watch(socket, watching);
  return socket;
}

/** Longer than the test grace (300 ms, vitest.config.ts), with room for the shards' relays. */
export const SETTLE_MS = 1000;

type Member = Awaited<ReturnType<typeof verifiedMember>>;

/** Two members whose homes are different shards (and a few tries to find them). */
export async function inTwoShards(): Promise<[Member, Member]> {
  const { shards } = presenceConfig(env);
  const first = await verifiedMember();
  for (;;) {
    const second = await verifiedMember();
    if (shardOf(second.id, shards) !== shardOf(first.id, shards)) return [first, second];
  }
}

/** Two members whose homes are the same shard (made a few at a time until two share one). */
export async function inOneShard(): Promise<[Member, Member]> {
  const { shards } = presenceConfig(env);
  const byShard = new Map<number, Member>();
  for (;;) {
    for (const member of await Promise.all(Array.from({ length: 4 }, () => verifiedMember()))) {
      const shard = shardOf(member.id, shards);
      const other = byShard.get(shard);
      if (other) return [other, member];
      byShard.set(shard, member);
    }
  }
}

/** A new verified member whose home is the home of `memberId`. */
export async function memberInShardOf(memberId: string): Promise<Member> {
  const { shards } = presenceConfig(env);
  const home = shardOf(memberId, shards);
  for (;;) {
    for (const member of await Promise.all(Array.from({ length: 8 }, () => verifiedMember()))) {
      if (shardOf(member.id, shards) === home) return member;
    }
  }
}

/**
 * A target online in one shard and a page of a watcher, in another shard, that watches them
 * (and sees them online).
 */
export async function watchedAcrossShards() {
  const [watcher, target] = await inTwoShards();
  const t = await joinPresence(target.client);
  const w = await joinPresence(watcher.client, [target.id]);
  if (!onlineOf(w).has(target.id)) throw new Error("the watcher does not see the target");
  return { watcher, target, t, w };
}

/** Restarts a member's home shard alone (a crash, an eviction) and waits for `socket` to close. */
export async function restartHome(memberId: string, socket: TestSocket) {
  const down = new Promise<void>((resolve) => {
    socket.ws.addEventListener("close", () => resolve());
    socket.ws.addEventListener("error", () => resolve());
  });
  const { room } = presenceShardFor(env, memberId);
  await runInDurableObject(room, (_instance: PresenceRoom, state) => {
    state.abort("restart");
  }).catch(() => undefined);
  await down;
}
