import { parsePresenceServerFrame } from "~/realtime/presence";
import type { TestClient } from "../helpers/client";
import { openSocket, type TestSocket } from "../helpers/sockets";

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
    else if (frame.type === "presence") {
      for (const id of frame.joining) online.add(id);
      for (const id of frame.leaving) online.delete(id);
    }
  }
  return online;
}

/** Every id a socket's frames ever named (to show a member never appeared). */
export function mentionedBy(socket: TestSocket): Set<string> {
  const ids = new Set<string>();
  for (const f of socket.frames) {
    if (Array.isArray(f.users)) for (const id of f.users as string[]) ids.add(id);
    if (typeof f.user_id === "string") ids.add(f.user_id);
    for (const key of ["joining", "leaving"] as const) {
      if (Array.isArray(f[key])) for (const id of f[key] as string[]) ids.add(id);
    }
  }
  return ids;
}

/** How often a socket heard that `id` joined (or left), single frames and batches alike. */
export function countEvents(socket: TestSocket, kind: "joining" | "leaving", id: string): number {
  let n = 0;
  for (const f of socket.frames) {
    if (f.type === kind && f.user_id === id) n += 1;
    if (f.type === "presence" && (f[kind] as string[]).includes(id)) n += 1;
  }
  return n;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the socket's view satisfies `predicate`. */
export async function until(
  socket: TestSocket,
  predicate: (online: Set<string>) => boolean,
  what = "presence condition",
  timeoutMs = 4000,
): Promise<Set<string>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const online = onlineOf(socket);
    if (predicate(online)) return online;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(socket.frames)}`);
    }
    await sleep(20);
  }
}

/** Opens /ws/presence for a member and waits for its `here`. */
export async function joinPresence(client: TestClient, path = "/ws/presence"): Promise<TestSocket> {
  const { status, socket } = await openSocket(client, path);
  if (status !== 101 || !socket) throw new Error(`presence upgrade answered ${status}`);
  await socket.next((f) => f.type === "here");
  return socket;
}

/** Longer than the test grace (300 ms, vitest.config.ts) plus two fan-out windows. */
export const SETTLE_MS = 1200;
