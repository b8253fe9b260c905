import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ReceivedBatch, RECEIVED_EVERY_MS } from "~/realtime/received-batch";

describe("acknowledging received messages", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("sends the first at once, then at most one frame a second with what came meanwhile", () => {
    const sent: string[][] = [];
    const batch = new ReceivedBatch(
      (ids) => (sent.push(ids), true),
      RECEIVED_EVERY_MS,
      () => Date.now(),
    );
    batch.add("m1");
    expect(sent).toEqual([["m1"]]);
    for (const id of ["m2", "m3", "m3", "m4"]) {
      vi.advanceTimersByTime(200);
      batch.add(id);
    }
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(RECEIVED_EVERY_MS);
    expect(sent).toEqual([["m1"], ["m2", "m3", "m4"]]);
    // A quiet second later, the next goes at once again.
    vi.advanceTimersByTime(RECEIVED_EVERY_MS);
    batch.add("m5");
    expect(sent.at(-1)).toEqual(["m5"]);
  });

  it("keeps what the socket could not take for the next try, and sends 100 ids a frame", () => {
    let open = false;
    const sent: string[][] = [];
    const batch = new ReceivedBatch((ids) => (open ? (sent.push(ids), true) : false));
    batch.add("a");
    expect(batch.waiting).toEqual(["a"]);
    open = true;
    batch.flush();
    expect(sent).toEqual([["a"]]);
    for (let i = 0; i < 150; i++) batch.add(`x${i}`);
    vi.advanceTimersByTime(RECEIVED_EVERY_MS);
    expect(sent.at(-1)).toHaveLength(100);
    vi.advanceTimersByTime(RECEIVED_EVERY_MS);
    expect(sent.at(-1)).toHaveLength(50);
    expect(batch.waiting).toEqual([]);
    batch.stop();
  });
});
