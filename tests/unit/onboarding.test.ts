import { describe, expect, it } from "vitest";
import {
  doneCount,
  firstOpenStep,
  isComplete,
  isOnboardingView,
  stepAfter,
  stepBefore,
  stepsDone,
} from "~/lib/onboarding";

const empty = { photos: [], bio: "", interests: [], preferences: [] };

describe("onboarding progress", () => {
  it("reads each step from the profile", () => {
    expect(stepsDone(empty)).toEqual({
      photos: false,
      about: false,
      interests: false,
      "looking-for": false,
    });
    const done = stepsDone({ photos: [{}], bio: " Hi ", interests: ["Jazz"], preferences: [] });
    expect(done).toEqual({ photos: true, about: true, interests: true, "looking-for": false });
    expect(doneCount(done)).toBe(3);
    expect(isComplete(done)).toBe(false);
    expect(stepsDone({ ...empty, bio: "   " }).about).toBe(false);
    expect(
      isComplete(stepsDone({ photos: [1], bio: "x", interests: ["a"], preferences: ["b"] })),
    ).toBe(true);
  });

  it("starts at the first open step and walks the steps in order, then the review", () => {
    expect(firstOpenStep(stepsDone(empty))).toBe("photos");
    expect(firstOpenStep(stepsDone({ ...empty, photos: [1], bio: "x" }))).toBe("interests");
    expect(
      firstOpenStep(stepsDone({ photos: [1], bio: "x", interests: ["a"], preferences: ["b"] })),
    ).toBe("review");
    expect(stepAfter("photos")).toBe("about");
    expect(stepAfter("looking-for")).toBe("review");
    expect(stepBefore("photos")).toBeNull();
    expect(stepBefore("about")).toBe("photos");
    expect(stepBefore("review")).toBe("looking-for");
    expect(isOnboardingView("interests")).toBe(true);
    expect(isOnboardingView("review")).toBe(true);
    expect(isOnboardingView("username")).toBe(false);
    expect(isOnboardingView(null)).toBe(false);
  });
});
