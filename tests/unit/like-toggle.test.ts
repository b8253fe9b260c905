import { describe, expect, it } from "vitest";
import {
  likeConfirmed,
  likeFailed,
  likePressed,
  likeSynced,
  likeToggleInitial,
} from "~/state/like-toggle";

describe("optimistic like button", () => {
  it("shows the like at once and keeps it when the server agrees", () => {
    const pressed = likePressed(likeToggleInitial(false));
    expect(pressed).toEqual({ liked: true, before: false, error: null });
    expect(likeConfirmed(pressed)).toEqual({ liked: true, before: null, error: null });
  });

  it("rolls back with the server's message when the like fails", () => {
    const pressed = likePressed(likeToggleInitial(false));
    const failed = likeFailed(pressed, "You have reached your daily like limit.");
    expect(failed).toEqual({
      liked: false,
      before: null,
      error: "You have reached your daily like limit.",
    });
    // A new press clears the message and tries again.
    expect(likePressed(failed)).toEqual({ liked: true, before: false, error: null });
  });

  it("rolls an unlike back too", () => {
    const pressed = likePressed(likeToggleInitial(true));
    expect(pressed.liked).toBe(false);
    expect(likeFailed(pressed, "Failed to unlike this member").liked).toBe(true);
  });

  it("ignores a second press while the first waits, and follows the page only when idle", () => {
    const pressed = likePressed(likeToggleInitial(false));
    expect(likePressed(pressed)).toBe(pressed);
    expect(likeSynced(pressed, false)).toBe(pressed);
    const idle = likeConfirmed(pressed);
    expect(likeSynced(idle, false).liked).toBe(false);
    // A failure with nothing in flight changes nothing.
    expect(likeFailed(idle, "x")).toBe(idle);
  });
});
