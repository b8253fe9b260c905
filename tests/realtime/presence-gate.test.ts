import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { retryHint } from "~/realtime/backoff";
import { presenceShardFor } from "~/server/presence.server";
import { JoinGate, PRESENCE_TRY_AGAIN_CLOSE } from "../../durable-objects/presence/join-gate";
import type { PresenceRoom } from "../../durable-objects/presence/room";
import { verifiedMember } from "../helpers/members";
import { openSocket } from "../helpers/sockets";

/** The close a socket gets, or null if it stays open that long. */
function closeOf(ws: WebSocket, timeoutMs = 2000) {
  return new Promise<{ code: number; reason: string } | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), timeoutMs);
    ws.addEventListener("close", (event) => {
      clearTimeout(timer);
      resolve({ code: event.code, reason: event.reason });
    });
  });
}

describe("a presence shard past the joins it takes a second (docs/decisions/047)", () => {
  it("joins up to its rate and tells the rest, at once, when to come back", async () => {
    const member = await verifiedMember();
    // This member's home shard takes 2 sockets a second, as a shard in a deploy's wave would
    // take its hundred.
    const { room } = presenceShardFor(env, member.id);
    await runInDurableObject(room, (instance: PresenceRoom) => {
      (instance as unknown as { gate: JoinGate }).gate = new JoinGate(2);
    });

    const answers = await Promise.all(
      [0, 1, 2, 3].map(() => openSocket(member.client, "/ws/presence")),
    );
    expect(answers.map((a) => a.status)).toEqual([101, 101, 101, 101]);
    const outcomes = await Promise.all(
      answers.map(async ({ socket }) => {
        const closed = closeOf(socket!.ws);
        const here = socket!
          .next((f) => f.type === "here")
          .then(
            () => "here",
            () => null,
          );
        return (await Promise.race([closed, here])) ?? (await closed);
      }),
    );
    const joined = outcomes.filter((o) => o === "here");
    const turnedAway = outcomes.filter((o) => o !== "here") as { code: number; reason: string }[];
    expect(joined).toHaveLength(2);
    expect(turnedAway).toHaveLength(2);
    for (const close of turnedAway) {
      expect(close.code).toBe(PRESENCE_TRY_AGAIN_CLOSE);
      // The clients read the window from the reason and draw their next try from it.
      expect(retryHint(close.code, close.reason)).toBeGreaterThanOrEqual(1000);
    }
    // The sockets turned away left nothing behind: the shard holds the two it joined.
    expect(await room.connectionCount()).toBe(2);
    for (const { socket } of answers) socket!.close();
  });
});
