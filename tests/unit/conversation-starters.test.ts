import { describe, expect, it } from "vitest";
import { conversationStarters, STARTERS_MAX } from "~/lib/conversation-starters";

describe("conversation starters", () => {
  it("opens with an interest both members share, then one of theirs", () => {
    const starters = conversationStarters({
      name: "Maya",
      theirInterests: ["Jazz", "Hiking", "Pottery"],
      myInterests: ["hiking", "Chess"],
    });
    expect(starters).toEqual([
      "Hi Maya! I'm into hiking too. How did you get started?",
      "Hi Maya! What do you love most about jazz?",
      "Hi Maya! What's the best thing that happened to you this week?",
    ]);
  });

  it("asks about their interests when nothing is shared", () => {
    const starters = conversationStarters({
      name: "Noor",
      theirInterests: ["Cooking", "Travel", "Yoga"],
      myInterests: [],
    });
    expect(starters.slice(0, 2)).toEqual([
      "Hi Noor! What do you love most about cooking?",
      "Hi Noor! What do you love most about travel?",
    ]);
    expect(starters).toHaveLength(STARTERS_MAX);
  });

  it("still offers open questions to a profile without interests", () => {
    const starters = conversationStarters({
      name: "Sam",
      theirInterests: [],
      myInterests: ["Art"],
    });
    expect(starters).toHaveLength(2);
    expect(starters.every((s) => s.startsWith("Hi Sam"))).toBe(true);
  });
});
