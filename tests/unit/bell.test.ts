import { afterEach, describe, expect, it, vi } from "vitest";
import { bellSync, HELLO_WAIT_MS } from "~/realtime/bell";
import type { MemberServerFrame } from "~/realtime/member";

const hello = (bell: number): MemberServerFrame => ({ type: "hello", bell });
const notification: MemberServerFrame = {
  type: "notification",
  notification: {
    id: "n1",
    type: "like",
    data: {},
    read_at: null,
    created_at: "2026-11-29T00:00:00.000Z",
  },
  unread_count: 1,
};
const read: MemberServerFrame = { type: "notifications_read", ids: null, unread_count: 0 };

afterEach(() => {
  vi.useRealTimers();
});

describe("the bell after a member channel reopens (app/realtime/bell.ts)", () => {
  it("loads on the first opening, then only when the hub counted changes the page did not hear", () => {
    const reload = vi.fn();
    const bell = bellSync(reload);
    bell.opened();
    bell.frame(hello(7));
    expect(reload).toHaveBeenCalledTimes(1);

    // Heard while open: a notification and a read. Down and back, nothing missed: no load.
    bell.frame(notification);
    bell.frame(read);
    bell.opened();
    bell.frame(hello(9));
    expect(reload).toHaveBeenCalledTimes(1);

    // A notification while the socket was down: the hub counted 10, the page 9.
    bell.opened();
    bell.frame(hello(10));
    expect(reload).toHaveBeenCalledTimes(2);
  });

  it("loads anyway when no hello comes, and not twice when it comes late", () => {
    vi.useFakeTimers();
    const reload = vi.fn();
    const bell = bellSync(reload);
    bell.opened();
    bell.frame(hello(1));
    bell.opened();
    vi.advanceTimersByTime(HELLO_WAIT_MS);
    expect(reload).toHaveBeenCalledTimes(2);
    bell.frame(hello(5));
    expect(reload).toHaveBeenCalledTimes(2);
    // Counting again from the late hello.
    bell.opened();
    bell.frame(hello(5));
    expect(reload).toHaveBeenCalledTimes(2);
    bell.stop();
  });
});
