/**
 * Heartline as the benchmarks that count its D1 statements run it (bench/chat, bench/storm): the
 * Worker of a state with bench/chat/d1-counting-worker.ts as its entry, started with the workerd
 * processes it added (for their CPU alone), and the setup's conversations started through the API.
 */
import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { request } from "undici";
import type { D1Counts } from "../chat/d1-counting-worker";
import type { Member } from "../chat/members";
import { pidsOf, ROOT, startWorker, type BenchState, type BenchWorker } from "./worker";

const COUNTING_ENTRY = path.join("bench", "chat", "d1-counting-worker.ts");

/**
 * The Worker of `s` with its D1 counted: this checkout's counting entry (the same instrument
 * whichever tree `s` is built from) copied into the snapshot and made its `main`; `edit` changes
 * the rest of the config (a rate limit raised for the run).
 */
export async function prepareCountingWorker(
  s: BenchState,
  edit?: (config: { vars?: Record<string, unknown> }) => void,
) {
  await s.prepareWorker((config) => {
    edit?.(config);
    config.main = path.join(s.sourceDir, COUNTING_ENTRY);
  });
  await mkdir(path.dirname(path.join(s.sourceDir, COUNTING_ENTRY)), { recursive: true });
  await copyFile(path.join(ROOT, COUNTING_ENTRY), path.join(s.sourceDir, COUNTING_ENTRY));
}

/** The counting Worker's D1 counts so far (they start again with each start of the Worker). */
export async function d1Counts(base: string): Promise<D1Counts> {
  return (await (await fetch(`${base}/__bench/d1`)).json()) as D1Counts;
}

/** Starts a Worker and returns it with the workerd processes it added (for their CPU alone). */
export async function startOwnWorker(
  benchState: BenchState,
  options: Parameters<typeof startWorker>[1],
): Promise<{ worker: BenchWorker; pids: Set<number> }> {
  const before = new Set(pidsOf("workerd"));
  const worker = await startWorker(benchState, options);
  return { worker, pids: new Set(pidsOf("workerd").filter((pid) => !before.has(pid))) };
}

/** A setup call to Heartline's API as `member`; fails with the answer unless it is a success. */
async function api(base: string, member: Member, pathname: string, body: unknown) {
  const res = await request(`${base}${pathname}`, {
    method: "POST",
    headers: {
      Cookie: member.cookie,
      "X-CSRF-Token": member.csrf,
      Origin: base,
      Accept: "application/json",
      "Content-Type": "application/json",
    },
    body: JSON.stringify(body),
  });
  const json = (await res.body.json()) as Record<string, unknown>;
  if (res.statusCode >= 300) {
    throw new Error(`POST ${pathname}: ${res.statusCode} ${JSON.stringify(json)}`);
  }
  return json;
}

/**
 * Starts a conversation between members 2i and 2i + 1 for i < `count`, through the API (a first
 * message and a reply, so that both have it listed); returns their ids in that order.
 */
export async function startConversations(base: string, members: Member[], count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const a = members[2 * i]!;
    const b = members[2 * i + 1]!;
    const started = await api(base, a, "/chat/conversations", { user_id: b.id, message: "hello" });
    const conversationId = (started.conversation as { id: string }).id;
    await api(base, b, `/chat/conversations/${conversationId}/messages`, { message: "hi!" });
    ids.push(conversationId);
  }
  return ids;
}
