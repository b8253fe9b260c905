import { describe, expect, it } from "vitest";
import { markedAfter, needsRow } from "../../durable-objects/conversation/outbox";

/** Applies changes (a message's seq, or null) to one member's row; returns which were written. */
function writes(changes: (number | null)[], marked?: boolean): boolean[] {
  return changes.map((seq) => {
    const write = needsRow(marked, seq);
    if (write) marked = markedAfter(marked, seq);
    return write;
  });
}

describe("the outbox's row of a member between two flushes", () => {
  it("is written by the first change only while messages keep coming", () => {
    expect(writes([1, 2, 3, 4, 5])).toEqual([true, false, false, false, false]);
    expect(writes([null, null, null])).toEqual([true, false, false]);
  });

  it("is written again when a message follows a change without one (it must name a message)", () => {
    expect(writes([null, null, 7, null, 8])).toEqual([true, false, true, false, false]);
    expect(writes([7], false)).toEqual([true]);
  });

  it("keeps naming a message once it does", () => {
    expect(markedAfter(true, null)).toBe(true);
    expect(markedAfter(false, null)).toBe(false);
    expect(markedAfter(undefined, 3)).toBe(true);
    expect(writes([null], true)).toEqual([false]);
  });
});
