import type { MemberServerFrame } from "./member";

/** How long a reopened member channel waits for its `hello` before loading the bell anyway. */
export const HELLO_WAIT_MS = 2_000;

/**
 * Whether a (re)opened member channel must load the notifications again (docs/decisions/047): the
 * hub's `hello` says how many times the bell changed; the page counts the changes it heard since
 * its last load. Equal, nothing was missed while the socket was down, and the reload (a session
 * read, the count and the list) is skipped: after a deploy, most members' pages ask for nothing.
 * The first opening always loads; so does one whose hello does not come.
 */
export function bellSync(reload: () => void, waitMs = HELLO_WAIT_MS) {
  let expected: number | null = null;
  let waiting: ReturnType<typeof setTimeout> | null = null;
  const stopWaiting = () => {
    if (waiting !== null) clearTimeout(waiting);
    waiting = null;
  };
  return {
    opened() {
      stopWaiting();
      waiting = setTimeout(() => {
        waiting = null;
        expected = null;
        reload();
      }, waitMs);
    },
    frame(frame: MemberServerFrame) {
      if (frame.type === "hello") {
        // Came after the wait: the bell was loaded then, since this socket opened.
        const loaded = waiting === null;
        stopWaiting();
        const missed = expected === null || frame.bell !== expected;
        expected = frame.bell;
        if (missed && !loaded) reload();
        return;
      }
      if (
        expected !== null &&
        (frame.type === "notification" || frame.type === "notifications_read")
      ) {
        expected += 1;
      }
    },
    stop: stopWaiting,
  };
}
