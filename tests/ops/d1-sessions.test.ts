import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import {
  BOOKMARK_COOKIE,
  BOOKMARK_MAX_AGE_SECONDS,
  sessionConstraint,
} from "~/server/d1-sessions.server";
import { verifiedMember } from "../helpers/members";

/**
 * D1's Sessions API (docs/decisions/046): every request reads through one session, reads start at
 * the nearest replica, writes at the primary, and a member's next requests start no older than
 * their last write (the bookmark cookie).
 */

const db = env.DB as unknown as Pick<D1Database, "withSession">;
const { withSession } = db;
const constraints: (string | undefined)[] = [];

/** Records where each session the Worker opens starts. */
function recordSessions() {
  constraints.length = 0;
  db.withSession = function (this: D1Database, constraint?: string) {
    constraints.push(constraint);
    return withSession.call(this, constraint);
  };
}

afterEach(() => {
  db.withSession = withSession;
});

const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

describe("D1 sessions", () => {
  it("start by the method, or at a well-formed bookmark", () => {
    const get = new Request("http://localhost/dashboard");
    const post = new Request("http://localhost/my/block", { method: "POST" });
    const bookmark = "00000000-0000002a-00000000-00000000000000000000000000000000";
    expect(sessionConstraint(get, null)).toBe("first-unconstrained");
    expect(sessionConstraint(post, null)).toBe("first-primary");
    expect(sessionConstraint(get, bookmark)).toBe(bookmark);
    expect(sessionConstraint(post, bookmark)).toBe(bookmark);
    for (const forged of ["first-primary", "x", `${bookmark}0`, "' OR 1=1"]) {
      expect(sessionConstraint(get, forged)).toBe("first-unconstrained");
    }
  });

  it("a write leaves its bookmark with the browser, and the next read starts there", async () => {
    const member = await verifiedMember();
    const other = await verifiedMember();
    // Registering and signing in were writes: minutes later, the browser has dropped their bookmark.
    expect(member.client.cookies.get(BOOKMARK_COOKIE)).toMatch(BOOKMARK);
    member.client.cookies.delete(BOOKMARK_COOKIE);
    recordSessions();
    const page = await member.client.fetch("/my/blocked-users", {
      headers: { Accept: "application/json" },
    });
    expect(page.status).toBe(200);
    expect(page.headers.getSetCookie().some((c) => c.startsWith(`${BOOKMARK_COOKIE}=`))).toBe(
      false,
    );
    expect(constraints).toEqual(["first-unconstrained"]);

    recordSessions();
    const blocked = await member.client.json("POST", "/my/block", {
      user_id: other.id,
      reason_type: "other",
    });
    expect(blocked.status).toBe(200);
    expect(constraints).toEqual(["first-primary"]);
    const cookie = blocked.headers.getSetCookie().find((c) => c.startsWith(`${BOOKMARK_COOKIE}=`));
    expect(cookie).toContain(`Max-Age=${BOOKMARK_MAX_AGE_SECONDS}`);
    expect(cookie).toContain("HttpOnly");
    const bookmark = member.client.cookies.get(BOOKMARK_COOKIE)!;
    expect(bookmark).toMatch(BOOKMARK);

    // The next read starts no older than the write, and sees it.
    recordSessions();
    const list = await member.client.json<{ blocked_users: { id: string }[] }>(
      "GET",
      "/my/blocked-users",
    );
    expect(constraints).toEqual([bookmark]);
    expect(list.body.blocked_users.map((u) => u.id)).toEqual([other.id]);
  });

  it("a socket's upgrade and the signed photos keep the database itself", async () => {
    const member = await verifiedMember();
    recordSessions();
    const res = await member.client.fetch("/ws/me", { headers: { Upgrade: "websocket" } });
    expect(res.status).toBe(101);
    res.webSocket?.accept();
    res.webSocket?.close();
    expect(constraints).toEqual([]);
  });
});
