/**
 * What a block means, endpoint by endpoint: one row per route the Worker mounts (Hono: the JSON
 * API, sockets and webhooks) and per Remix page, each saying what a member sees of another member
 * on the other side of a block, in both directions ("I blocked them", "they blocked me"). A row
 * either checks the outcome or says why the route involves no other member.
 *
 * The first test fails when a route or page has no row (or a row names a route that no longer
 * exists), so a new endpoint cannot ship without deciding what a block means for it.
 */
import { env } from "cloudflare:test";
import type { ServerBuild } from "@remix-run/cloudflare";
import { beforeAll, describe, expect, it } from "vitest";
// @ts-ignore -- the Remix server build exists once `npm run build` has run (as for the Worker).
import * as remixBuild from "../../build/server/index.js";
import { createApp } from "../../worker/app";
import { verifiedMember } from "../helpers/members";
import { TestClient } from "../helpers/client";
import { openSocket, type TestSocket } from "../helpers/sockets";
import { like, roomMessages, sendFile } from "../chat/helpers";
import { imageBytes } from "../profile/fixtures";
import { eventually } from "../../scripts/lib/wait";
import { block, converse, countRows, memberWithPhoto, page, type Member } from "./helpers";

const roomMessageCount = async (conversationId: string) =>
  (await roomMessages(conversationId)).length;

const build = remixBuild as unknown as ServerBuild;

// ---------------------------------------------------------------------------------------------
// The routes that exist

/** Hono entries registered with `use` (or `all`) that are middleware, not endpoints. */
const MIDDLEWARE = new Set([
  "ALL /*",
  "ALL /ws/*",
  "ALL /dev/*",
  "ALL /my/block",
  "ALL /my/block/*",
  "ALL /my/blocked-users",
  "ALL /my/travel",
]);

/** `METHOD /path` of every Hono endpoint, plus the `ALL` entries (which must be known middleware). */
function honoRoutes(): { endpoints: string[]; unknownAll: string[] } {
  const app = createApp(build);
  const keys = new Set(app.routes.map((r) => `${r.method} ${r.path}`));
  const endpoints = [...keys].filter((k) => !k.startsWith("ALL "));
  const unknownAll = [...keys].filter((k) => k.startsWith("ALL ") && !MIDDLEWARE.has(k));
  return { endpoints, unknownAll };
}

/** `PAGE /path` of every Remix route module that renders (layouts included, the root excepted). */
function remixPages(): string[] {
  const routes = build.routes;
  const fullPath = (id: string): string => {
    const route = routes[id];
    if (!route) return "";
    const parent = route.parentId ? fullPath(route.parentId) : "";
    const own = route.path ?? "";
    return [parent, own].filter(Boolean).join("/");
  };
  return Object.values(routes)
    .filter((r) => r.id !== "root")
    .map((r) => `PAGE /${fullPath(r.id)}${r.index ? " (index)" : ""}`);
}

// ---------------------------------------------------------------------------------------------
// The world each direction runs in

type Direction = "I blocked them" | "they blocked me";

interface World {
  direction: Direction;
  /** The member making the requests. */
  me: Member & { photoId: string };
  /** The member on the other side of the block. */
  other: Member & { photoId: string };
  /** A member nobody blocked: lists must still show them (so "absent" is not "broken"). */
  carol: Member;
  conversationId: string;
  myMessageId: string;
  otherMessageId: string;
  /** My notifications that named the other member before the block. */
  notificationsAboutOther: string[];
  sockets: {
    myChat: TrackedSocket;
    otherChat: TrackedSocket;
    myPresence: TrackedSocket;
    otherPresence: TrackedSocket;
    /** My own channel (/ws/me) and how many frames it had when the block happened. */
    myOwn: TrackedSocket;
    myOwnFramesAtBlock: number;
  };
}

interface TrackedSocket extends TestSocket {
  closed: Promise<number>;
}

async function socket(member: Member, path: string): Promise<TrackedSocket> {
  const { status, socket } = await openSocket(member.client, path);
  if (status !== 101 || !socket) throw new Error(`${path} answered ${status}`);
  const closed = new Promise<number>((resolve) =>
    socket.ws.addEventListener("close", (event) => resolve(event.code)),
  );
  return Object.assign(socket, { closed });
}

/** The member ids a presence socket's frames add up to. */
function onlineSeenBy(s: TestSocket): Set<string> {
  const online = new Set<string>();
  for (const f of s.frames) {
    if (f.type === "here") {
      online.clear();
      for (const id of f.users as string[]) online.add(id);
    }
    if (f.type === "joining") online.add(f.user_id as string);
    if (f.type === "leaving") online.delete(f.user_id as string);
  }
  return online;
}

/** Whether a JSON value or a page names the member (by id or username). */
function names(value: unknown, member: Member): boolean {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.includes(member.id) || text.includes(member.details.username);
}

async function buildWorld(direction: Direction): Promise<World> {
  const [me, other, carol] = await Promise.all([
    memberWithPhoto(),
    memberWithPhoto(),
    verifiedMember(),
  ]);

  // Profile views both ways (and one from carol), a conversation with messages both ways.
  await other.client.json("GET", `/members/${me.details.username}`);
  await carol.client.json("GET", `/members/${me.details.username}`);
  await me.client.json("GET", `/members/${other.details.username}`);
  const { conversationId } = await converse(other, me, "Hello from the other side");
  const mine = await me.client.json<{ message: { id: string } }>(
    "POST",
    `/chat/conversations/${conversationId}/messages`,
    { message: "Hello back" },
  );
  const theirs = await other.client.json<{ message: { id: string } }>(
    "POST",
    `/chat/conversations/${conversationId}/messages`,
    { message: "Are you there?" },
  );
  if (mine.status !== 201 || theirs.status !== 201) throw new Error("messages were not sent");
  // A gift each way, paid with credits bought through the test provider.
  for (const [from, pack] of [
    [me, "starter"],
    [other, "starter"],
  ] as const) {
    const bought = await from.client.json("POST", "/my/credits/purchase", { pack_id: pack });
    const gift = await from.client.json("POST", `/chat/conversations/${conversationId}/messages`, {
      message: "",
      gift_id: "rose",
    });
    if (bought.status !== 200 || gift.status !== 201) throw new Error("gifts were not sent");
  }

  // A match (likes both ways), and a like from carol.
  for (const [from, to] of [
    [me, other],
    [other, me],
    [carol, me],
  ] as const) {
    const liked = await from.client.json("POST", "/my/likes", { user_id: to.id });
    if (liked.status !== 201) throw new Error(`like failed: ${liked.status}`);
  }
  const matched = await me.client.json("GET", "/my/matches");
  if (!names(matched.body, other)) throw new Error("the two members do not match");

  const myChat = await socket(me, `/ws/chat/${conversationId}`);
  const otherChat = await socket(other, `/ws/chat/${conversationId}`);
  const myPresence = await socket(me, "/ws/presence");
  const otherPresence = await socket(other, "/ws/presence");
  const myOwn = await socket(me, "/ws/me");
  await eventually(
    () => onlineSeenBy(myPresence).has(other.id) && onlineSeenBy(otherPresence).has(me.id),
    { what: "both members to see each other online" },
  );

  const before = await me.client.json<{ notifications: { id: string }[] }>("GET", "/notifications");
  const notificationsAboutOther = before.body.notifications
    .filter((n) => names(n, other))
    .map((n) => n.id);
  const unreadBefore = await me.client.json<{ unread_count: number }>("GET", "/chat/unread");
  if (notificationsAboutOther.length === 0 || unreadBefore.body.unread_count === 0) {
    throw new Error("the world has no notification or unread message from the other member");
  }

  const myOwnFramesAtBlock = myOwn.frames.length;
  if (direction === "I blocked them") await block(me, other);
  else await block(other, me);

  return {
    direction,
    me,
    other,
    carol,
    conversationId,
    myMessageId: mine.body.message.id,
    otherMessageId: theirs.body.message.id,
    notificationsAboutOther,
    sockets: { myChat, otherChat, myPresence, otherPresence, myOwn, myOwnFramesAtBlock },
  };
}

// ---------------------------------------------------------------------------------------------
// The rows

interface Row {
  /** What a block means here, in words (for both directions unless the check says otherwise). */
  outcome: string;
  /** Checks the outcome; without it the row states that the route involves no other member. */
  check?: (w: World) => Promise<void>;
  /** Changes the world (blocks, unblocks): runs after every other row. */
  last?: boolean;
}

const unrelated = (why: string): Row => ({ outcome: `not member-to-member: ${why}` });

async function expectProfileHidden(w: World) {
  const json = await w.me.client.json("GET", `/members/${w.other.details.username}`);
  expect(json.status, "GET /members/{username} as JSON").toBe(404);
}

async function expectChatRefused(w: World, path: string, method = "GET", body?: unknown) {
  const res = await w.me.client.json(method, path, body);
  expect(res.status, `${method} ${path}`).toBe(403);
}

/** A search by username finds carol and never the other member (either side's search). */
async function expectSearchHides(w: World, method: "GET" | "POST", endpoint: string) {
  const search = (who: Member, keywords: string) =>
    method === "POST"
      ? who.client.json<{ results: { id: string }[] }>("POST", endpoint, { keywords, filters: {} })
      : who.client.json<{ results: { id: string }[] }>(
          "GET",
          `${endpoint}?keywords=${encodeURIComponent(keywords)}`,
        );
  const control = await search(w.me, w.carol.details.username);
  expect(control.status, `${method} ${endpoint}`).toBe(200);
  expect(control.body.results.map((r) => r.id)).toEqual([w.carol.id]);
  const mine = await search(w.me, w.other.details.username);
  expect(mine.body.results).toEqual([]);
  const theirs = await search(w.other, w.me.details.username);
  expect(theirs.body.results).toEqual([]);
}

/** No like either way is stored between the two members. */
async function expectNoLikes(w: World) {
  expect(
    await countRows(
      "likes",
      "(liker_id = ?1 AND liked_id = ?2) OR (liker_id = ?2 AND liked_id = ?1)",
      w.me.id,
      w.other.id,
    ),
  ).toBe(0);
}

/**
 * A search page for the other member's username (which the page echoes in its search field)
 * links to carol for her name and never to the other member, nor carries their id.
 */
async function expectSearchPageHides(w: World, path: string) {
  const control = await page(w.me.client, `${path}?keywords=${w.carol.details.username}`);
  expect(control.status, `GET ${path}`).toBe(200);
  expect(await control.text()).toContain(`/members/${w.carol.details.username}`);
  const res = await page(w.me.client, `${path}?keywords=${w.other.details.username}`);
  const html = await res.text();
  expect(html).not.toContain(`/members/${w.other.details.username}`);
  expect(html).not.toContain(w.other.id);
}

/** A page renders for me and never names the other member. */
async function expectPageWithout(w: World, path: string) {
  const res = await page(w.me.client, path);
  expect(res.status, `GET ${path}`).toBe(200);
  const html = await res.text();
  expect(names(html, w.other), `${path} names the other member`).toBe(false);
}

const ROWS: Record<string, Row> = {
  // Authentication and the member's own account
  "POST /register": unrelated("signing up"),
  "POST /login": unrelated("signing in"),
  "POST /logout": unrelated("signing out"),
  "POST /forgot-password": unrelated("password reset email"),
  "POST /reset-password": unrelated("password reset"),
  "POST /confirm-password": unrelated("password confirmation"),
  "PUT /settings/password": unrelated("the member's own password"),
  "GET /verify-email/:id/:hash": unrelated("email verification"),
  "POST /email/verification-notification": unrelated("verification email"),
  "GET /csrf-token": unrelated("the page's CSRF token"),
  "GET /my/profile": unrelated("the member's own profile"),
  "PUT /my/profile": unrelated("the member's own profile"),
  "POST /my/photos": unrelated("the member's own photos"),
  "PUT /my/photos/order": unrelated("the member's own photos"),
  "DELETE /my/photos/:id": unrelated("the member's own photos"),
  "GET /my/export": unrelated("the member's own data (it lists their own blocks)"),
  "DELETE /my/account": unrelated("the member's own account"),
  "GET /my/notification-preferences": unrelated("the member's own switches"),
  "PUT /my/notification-preferences": unrelated("the member's own switches"),
  "GET /my/push/key": unrelated("the server's public key, the same for everyone"),
  "POST /my/push/subscriptions": unrelated("the member's own browser"),
  "DELETE /my/push/subscriptions": unrelated("the member's own browser"),
  "POST /my/push/test": unrelated("a push to the member's own browsers"),
  "POST /email/unsubscribe": unrelated("the member's own digest, from a signed link"),
  "GET /my/privacy": unrelated("the member's own online-status switch"),
  "PUT /my/privacy": unrelated("the member's own online-status switch"),
  "POST /me/heartbeat": unrelated("the member's own last_seen_at"),
  "POST /notifications/read-all": unrelated("marks the member's own notifications read"),
  "GET /chat/gifts": unrelated("the gift catalogue and the member's balance"),
  "GET /my/credits/status": unrelated("the member's own balance and ledger"),
  "GET /my/credits/packs": unrelated("the packs on sale"),
  "POST /my/credits/purchase": unrelated("the member's own purchase"),
  "GET /my/subscription/status": unrelated("the member's own subscription and the plans"),
  "GET /my/travel": unrelated("the member's own travel place"),
  "GET /profile/prompts": unrelated("the catalogue of prompts"),
  "PUT /my/travel": unrelated("the member's own travel place (who finds them there: search)"),
  "DELETE /my/travel": unrelated("the member's own travel place"),
  "POST /my/subscription": unrelated("the member's own subscription"),
  "POST /my/billing/portal": unrelated("the member's own billing portal"),
  "GET /my/payments": unrelated("the member's own receipts"),
  "GET /healthz": unrelated("the service's health, no member data"),
  "DELETE /my/subscription": unrelated("the member's own subscription"),
  "PUT /my/subscription": unrelated("the member's own subscription"),
  "POST /webhooks/stripe": unrelated("Stripe's signed events, no member session"),
  "GET /moderation/reports": unrelated("moderators only; reports are kept across blocks"),
  "GET /moderation/reviews": unrelated("moderators only; new accounts of returning addresses"),
  "POST /moderation/reviews/:id/clear": unrelated("moderators only"),
  "GET /moderation/reports/:id/conversation": unrelated(
    "moderators only; the reported conversation",
  ),
  "GET /moderation/reports/:id/photos": unrelated(
    "moderators only; the reported member's photos as they stood at the report",
  ),
  "GET /moderation/reports/:id/photos/:photoId": unrelated("moderators only"),
  "GET /moderation/evidence": unrelated(
    "moderators only; what deleted members left, kept for them",
  ),
  "POST /moderation/reports/:id/dismiss": unrelated("moderators only"),
  "POST /moderation/members/:id/suspend": unrelated("moderators only"),
  "GET /my/verification": unrelated("the member's own photo verification and pose"),
  "POST /my/verification": unrelated("the member's own selfie, seen by moderators only"),
  "GET /moderation/verifications": unrelated("moderators only; selfies beside the member's photos"),
  "GET /moderation/verifications/:id/selfie": unrelated("moderators only"),
  "POST /moderation/verifications/:id/approve": unrelated("moderators only"),
  "POST /moderation/verifications/:id/reject": unrelated("moderators only"),
  "GET /my/appeal": unrelated("the member's own standing: never who reported them"),
  "POST /my/appeal": unrelated("the member's own appeal"),
  "GET /moderation/appeals": unrelated("moderators only; appeals beside the reports"),
  "POST /moderation/appeals/:id/grant": unrelated("moderators only"),
  "POST /moderation/appeals/:id/deny": unrelated("moderators only"),
  "POST /admin/chat/migrate": unrelated(
    "moderators only: the move of D1's messages into the rooms",
  ),
  "GET /dev/mailbox": unrelated("local development only"),

  // Profiles and photos
  "GET /members/:username": {
    outcome: "404 both ways (as JSON; the page is its own row)",
    check: expectProfileHidden,
  },
  "GET /photos/:id": {
    outcome: "404 for the other member's photo both ways; my own photo still loads",
    async check(w) {
      expect((await w.me.client.fetch(`/photos/${w.other.photoId}`)).status).toBe(404);
      expect((await w.other.client.fetch(`/photos/${w.me.photoId}`)).status).toBe(404);
      expect((await w.me.client.fetch(`/photos/${w.me.photoId}`)).status).toBe(200);
    },
  },
  "GET /my/profile-viewers": {
    outcome: "the other member is never listed (nor counted); others still are",
    async check(w) {
      const res = await w.me.client.json<{ viewers: { id: string }[]; total_count: number }>(
        "GET",
        "/my/profile-viewers",
      );
      expect(res.body.viewers.map((v) => v.id)).toEqual([w.carol.id]);
      expect(res.body.total_count).toBe(1);
      const theirs = await w.other.client.json("GET", "/my/profile-viewers");
      expect(names(theirs.body, w.me)).toBe(false);
    },
  },

  // Blocking itself
  "GET /my/blocked-users": {
    outcome: "lists the other member only when I blocked them (without photo or presence)",
    async check(w) {
      const res = await w.me.client.json<{ blocked_users: Record<string, unknown>[] }>(
        "GET",
        "/my/blocked-users",
      );
      if (w.direction === "I blocked them") {
        expect(res.body.blocked_users).toEqual([
          expect.objectContaining({
            id: w.other.id,
            photo_url: null,
            photo_urls: null,
            online: false,
          }),
        ]);
      } else {
        expect(res.body.blocked_users).toEqual([]);
      }
    },
  },
  "GET /my/block/check/:userId": {
    outcome: "is_blocked when I blocked them, is_blocked_by when they blocked me",
    async check(w) {
      const mine = w.direction === "I blocked them";
      const res = await w.me.client.json("GET", `/my/block/check/${w.other.id}`);
      expect(res.body).toEqual({
        is_blocked: mine,
        is_blocked_by: !mine,
        has_mutual_block: false,
      });
    },
  },
  "DELETE /my/block/:userId": {
    outcome:
      "lifts only my own block: after it, visible again if I was the blocker (likes stay gone); " +
      "still hidden if they blocked me",
    last: true,
    async check(w) {
      const res = await w.me.client.json("DELETE", `/my/block/${w.other.id}`);
      expect(res).toMatchObject({
        status: 200,
        body: { message: "User has been unblocked successfully." },
      });
      const profile = await w.me.client.json("GET", `/members/${w.other.details.username}`);
      if (w.direction === "I blocked them") {
        expect(profile.status).toBe(200);
        const likes = await w.me.client.json("GET", "/my/likes");
        expect(names(likes.body, w.other)).toBe(false);
        await expectNoLikes(w);
        await block(w.me, w.other);
      } else {
        expect(profile.status).toBe(404);
      }
    },
  },
  "POST /my/block": {
    outcome: "200 both ways; blocking back makes the block mutual, blocking twice is harmless",
    last: true,
    async check(w) {
      const res = await w.me.client.json("POST", "/my/block", {
        user_id: w.other.id,
        reason_type: "spam",
      });
      expect(res).toMatchObject({
        status: 200,
        body: { message: "User has been blocked successfully." },
      });
      const status = await w.me.client.json("GET", `/my/block/check/${w.other.id}`);
      expect(status.body).toMatchObject({
        is_blocked: true,
        has_mutual_block: w.direction === "they blocked me",
      });
      await expectProfileHidden(w);
    },
  },

  // Reports
  "POST /reports": {
    outcome: "201 both ways: a member can block and report together",
    async check(w) {
      const res = await w.me.client.json("POST", "/reports", {
        user_id: w.other.id,
        reason_type: "harassment",
        message_id: w.otherMessageId,
      });
      expect(res.status).toBe(201);
    },
  },

  // Discovery, likes and matches
  "POST /my/matches/search": {
    outcome: "never finds the other member, either side's search",
    check: (w) => expectSearchHides(w, "POST", "/my/matches/search"),
  },
  "GET /my/matches/search": {
    outcome: "never finds the other member, either side's search",
    check: (w) => expectSearchHides(w, "GET", "/my/matches/search"),
  },
  "POST /dashboard/search": {
    outcome: "never finds the other member, either side's search",
    check: (w) => expectSearchHides(w, "POST", "/dashboard/search"),
  },
  "GET /dashboard/search": {
    outcome: "never finds the other member, either side's search",
    check: (w) => expectSearchHides(w, "GET", "/dashboard/search"),
  },
  "GET /my/matches": {
    outcome: "the match is gone: the block deleted the likes both ways",
    async check(w) {
      const res = await w.me.client.json("GET", "/my/matches");
      expect(res.status).toBe(200);
      expect(names(res.body, w.other)).toBe(false);
      await expectNoLikes(w);
    },
  },
  "GET /my/likes": {
    outcome: "the other member is in none of received, sent, matches; carol still is",
    async check(w) {
      const res = await w.me.client.json<{ received: { id: string }[] }>("GET", "/my/likes");
      expect(res.body.received.map((m) => m.id)).toEqual([w.carol.id]);
      expect(names(res.body, w.other)).toBe(false);
      const theirs = await w.other.client.json("GET", "/my/likes");
      expect(names(theirs.body, w.me)).toBe(false);
    },
  },
  "POST /my/likes": {
    outcome: "404 both ways (the member is hidden); no like is stored",
    async check(w) {
      expect((await w.me.client.json("POST", "/my/likes", { user_id: w.other.id })).status).toBe(
        404,
      );
      expect((await w.other.client.json("POST", "/my/likes", { user_id: w.me.id })).status).toBe(
        404,
      );
      await expectNoLikes(w);
    },
  },
  "DELETE /my/likes/:userId": {
    outcome: "204, harmless: there is no like left to take back",
    async check(w) {
      expect((await w.me.client.json("DELETE", `/my/likes/${w.other.id}`)).status).toBe(204);
      await expectNoLikes(w);
    },
  },
  "DELETE /my/matches/:userId": {
    outcome:
      "404 like a stranger: the unmatch neither reveals the other member nor changes a thing",
    async check(w) {
      const res = await w.me.client.json("DELETE", `/my/matches/${w.other.id}`);
      expect(res.status).toBe(404);
      const pair = "(user_low = ?1 AND user_high = ?2) OR (user_low = ?2 AND user_high = ?1)";
      expect(await countRows("unmatches", pair, w.me.id, w.other.id)).toBe(0);
      expect(
        await countRows("conversations", "id = ?1 AND ended_at IS NOT NULL", w.conversationId),
      ).toBe(0);
      // Their conversation is not ended by it (the block already closed it to both).
      await expectChatRefused(w, `/chat/conversations/${w.conversationId}/messages`);
    },
  },
  "GET /dashboard": {
    outcome: "new likes, matches and unread conversations never show the other member",
    async check(w) {
      const res = await w.me.client.json("GET", "/dashboard");
      expect(res.status).toBe(200);
      expect(names(res.body, w.other)).toBe(false);
    },
  },

  // Notifications and activities
  "GET /notifications": {
    outcome: "no notification names the other member, old ones included",
    async check(w) {
      const res = await w.me.client.json<{ notifications: { id: string }[] }>(
        "GET",
        "/notifications",
      );
      expect(res.status).toBe(200);
      expect(names(res.body.notifications, w.other)).toBe(false);
    },
  },
  "POST /notifications/:id/read": {
    outcome: "404 for a notification about the other member",
    async check(w) {
      for (const id of w.notificationsAboutOther) {
        expect((await w.me.client.json("POST", `/notifications/${id}/read`)).status).toBe(404);
      }
    },
  },
  "GET /my/activities": {
    outcome: "no activity shows the other member",
    async check(w) {
      const res = await w.me.client.json("GET", "/my/activities");
      expect(res.status).toBe(200);
      expect(names(res.body, w.other)).toBe(false);
    },
  },

  // Chat
  "GET /chat/conversations": {
    outcome: "the shared conversation is not listed (for either member)",
    async check(w) {
      for (const [who, them] of [
        [w.me, w.other],
        [w.other, w.me],
      ] as const) {
        const res = await who.client.json<{ conversations: { id: string }[] }>(
          "GET",
          "/chat/conversations",
        );
        expect(res.body.conversations.map((c) => c.id)).not.toContain(w.conversationId);
        expect(names(res.body, them)).toBe(false);
      }
    },
  },
  "GET /chat/conversations/archived": {
    outcome: "the shared conversation is not listed",
    async check(w) {
      const res = await w.me.client.json("GET", "/chat/conversations/archived");
      expect(res.status).toBe(200);
      expect(names(res.body, w.other)).toBe(false);
    },
  },
  "POST /chat/conversations": {
    outcome: "403: no conversation starts and no message is stored",
    async check(w) {
      const before = await roomMessageCount(w.conversationId);
      await expectChatRefused(w, "/chat/conversations", "POST", {
        user_id: w.other.id,
        message: "Let me in",
      });
      const res = await w.other.client.json("POST", "/chat/conversations", { user_id: w.me.id });
      expect(res.status).toBe(403);
      expect(await roomMessageCount(w.conversationId)).toBe(before);
    },
  },
  "GET /chat/conversations/:id/messages": {
    outcome: "403 for both members",
    async check(w) {
      await expectChatRefused(w, `/chat/conversations/${w.conversationId}/messages`);
      const theirs = await w.other.client.json(
        "GET",
        `/chat/conversations/${w.conversationId}/messages`,
      );
      expect(theirs.status).toBe(403);
    },
  },
  "POST /chat/conversations/:id/messages": {
    outcome: "403 both ways; nothing stored, nothing reaches a socket",
    async check(w) {
      const before = await roomMessageCount(w.conversationId);
      await expectChatRefused(w, `/chat/conversations/${w.conversationId}/messages`, "POST", {
        message: "Still there?",
      });
      const theirs = await w.other.client.json(
        "POST",
        `/chat/conversations/${w.conversationId}/messages`,
        { message: "Still there?" },
      );
      expect(theirs.status).toBe(403);
      expect(await roomMessageCount(w.conversationId)).toBe(before);
    },
  },
  "POST /chat/conversations/:id/archive": {
    outcome: "allowed (my own list), and the conversation stays hidden from both lists",
    async check(w) {
      const res = await w.me.client.json("POST", `/chat/conversations/${w.conversationId}/archive`);
      expect(res.status).toBe(200);
      const archived = await w.me.client.json("GET", "/chat/conversations/archived");
      expect(names(archived.body, w.other)).toBe(false);
    },
  },
  "POST /chat/conversations/:id/unarchive": {
    outcome: "allowed (my own list), and the conversation stays hidden from both lists",
    async check(w) {
      const res = await w.me.client.json(
        "POST",
        `/chat/conversations/${w.conversationId}/unarchive`,
      );
      expect(res.status).toBe(200);
      const active = await w.me.client.json("GET", "/chat/conversations");
      expect(names(active.body, w.other)).toBe(false);
    },
  },
  "POST /chat/conversations/:id/read": {
    outcome: "403: no read receipt crosses a block",
    async check(w) {
      await expectChatRefused(w, `/chat/conversations/${w.conversationId}/read`, "POST");
    },
  },
  "GET /chat/unread": {
    outcome: "the other member's unread messages are not counted",
    async check(w) {
      const res = await w.me.client.json("GET", "/chat/unread");
      expect(res.body).toEqual({ unread_count: 0 });
    },
  },
  "DELETE /chat/messages/:id": {
    outcome: "my own message can still be deleted (204); the other member's cannot (refused, kept)",
    async check(w) {
      const theirs = await w.me.client.json("DELETE", `/chat/messages/${w.otherMessageId}`);
      expect([403, 404]).toContain(theirs.status);
      expect(
        (await roomMessages(w.conversationId)).filter(
          (m) => m.id === w.otherMessageId && m.deleted_at === null,
        ),
      ).toHaveLength(1);
      const mine = await w.me.client.json("DELETE", `/chat/messages/${w.myMessageId}`);
      expect(mine.status).toBe(204);
    },
  },

  "PUT /chat/messages/:id/reaction": {
    outcome: "refused (403); no reaction is stored",
    async check(w) {
      const res = await w.me.client.json("PUT", `/chat/messages/${w.otherMessageId}/reaction`, {
        emoji: "❤️",
      });
      expect(res.status).toBe(403);
      const stored = await roomMessages(w.conversationId);
      expect(stored.flatMap((m) => m.reactions)).toEqual([]);
    },
  },
  "POST /chat/conversations/:id/attachments": {
    outcome: "refused (403); nothing is stored, in R2 or the room",
    async check(w) {
      const before = (await roomMessages(w.conversationId)).length;
      const res = await sendFile(w.me.client, w.conversationId, imageBytes("png", 2048));
      expect(res.status).toBe(403);
      expect(await roomMessages(w.conversationId)).toHaveLength(before);
      const stored = await env.PHOTOS.list({ prefix: `chat/${w.conversationId}/` });
      expect(stored.objects).toHaveLength(0);
    },
  },
  "GET /chat/attachments/:messageId": {
    outcome: "a photo sent before the block opens for neither member any more (404)",
    async check(w) {
      // A pair of its own that matched and shared a photo, then one blocked the other as here.
      const [x, y] = [await verifiedMember(), await verifiedMember()];
      await like(x, y);
      await like(y, x);
      const started = await x.client.json<{ conversation: { id: string } }>(
        "POST",
        "/chat/conversations",
        { user_id: y.id, message: "hi" },
      );
      const id = started.body.conversation.id;
      const sentPhoto = await sendFile(y.client, id, imageBytes("png", 2048));
      expect(sentPhoto.status).toBe(201);
      const url = (sentPhoto.body.message as { attachment: { url: string } }).attachment.url;
      expect((await x.client.fetch(url)).status).toBe(200);
      const [blocker, blocked] = w.direction === "I blocked them" ? [x, y] : [y, x];
      const res = await blocker.client.json("POST", "/my/block", {
        user_id: blocked.id,
        reason_type: "spam",
      });
      expect(res.status).toBe(200);
      for (const m of [x, y]) expect((await m.client.fetch(url)).status).toBe(404);
    },
  },
  "GET /chat/ice-servers": {
    outcome: "unchanged: the same configured servers for every member, nothing about anyone",
    async check(w) {
      const res = await w.me.client.json("GET", "/chat/ice-servers");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ice_servers: [], ice_transport_policy: "all" });
    },
  },
  "DELETE /chat/messages/:id/reaction": {
    outcome: "refused (403): nothing there changes",
    async check(w) {
      const res = await w.me.client.json("DELETE", `/chat/messages/${w.otherMessageId}/reaction`);
      expect(res.status).toBe(403);
    },
  },

  // Sockets
  "GET /ws/chat/:conversationId": {
    outcome:
      "open sockets of the conversation were closed by the block; a new one is refused (403)",
    async check(w) {
      await expect(w.sockets.myChat.closed).resolves.toBeTypeOf("number");
      await expect(w.sockets.otherChat.closed).resolves.toBeTypeOf("number");
      for (const who of [w.me, w.other]) {
        const { status } = await openSocket(who.client, `/ws/chat/${w.conversationId}`);
        expect(status).toBe(403);
      }
    },
  },
  "GET /ws/presence": {
    outcome: "hidden both ways: open pages saw the other leave, a new socket never lists them",
    async check(w) {
      await eventually(
        () =>
          !onlineSeenBy(w.sockets.myPresence).has(w.other.id) &&
          !onlineSeenBy(w.sockets.otherPresence).has(w.me.id),
        { what: "the block to take both members out of each other's presence" },
      );
      const fresh = await socket(w.me, "/ws/presence");
      const contacts = await fresh.next((f) => f.type === "here");
      // Asked by name, the room still answers without them (the other member is online).
      fresh.ws.send(JSON.stringify({ type: "watch", user_ids: [w.other.id] }));
      const watched = await fresh.next((f) => f.type === "here" && f !== contacts);
      expect(watched.users).toEqual([]);
      expect(onlineSeenBy(fresh).has(w.other.id)).toBe(false);
      fresh.close();
    },
  },
  "GET /ws/me": {
    outcome: "my own channel: nothing about the other member arrives after the block",
    async check(w) {
      // The other member tries what would reach my channel: a message and a profile view.
      await w.other.client.json("POST", `/chat/conversations/${w.conversationId}/messages`, {
        message: "Knock knock",
      });
      await w.other.client.json("GET", `/members/${w.me.details.username}`);
      // Then someone else views my profile: once that notification is here, anything the other
      // member's tries sent my channel would be too.
      const later = await verifiedMember();
      await later.client.json("GET", `/members/${w.me.details.username}`);
      await w.sockets.myOwn.next((f) => f.type === "notification" && names(f, later));
      const after = w.sockets.myOwn.frames.slice(w.sockets.myOwnFramesAtBlock);
      expect(after.filter((f) => names(f, w.other))).toEqual([]);
    },
  },
  "POST /my/socket-ticket": {
    outcome:
      "the ticket names the member only; it opens no socket of the blocked conversation (403)",
    async check(w) {
      for (const who of [w.me, w.other]) {
        const res = await who.client.json<{ ticket: string }>("POST", "/my/socket-ticket");
        expect(res.status).toBe(200);
        const ticket = encodeURIComponent(res.body.ticket);
        const path = `/ws/chat/${w.conversationId}?ticket=${ticket}`;
        expect((await openSocket(new TestClient(), path)).status).toBe(403);
      }
    },
  },
  "POST /broadcasting/auth": {
    outcome: "403 for the shared conversation's channel; the global presence channel stays open",
    async check(w) {
      const chat = await w.me.client.json("POST", "/broadcasting/auth", {
        channel_name: `private-chat.${w.conversationId}`,
      });
      expect(chat.status).toBe(403);
      const presence = await w.me.client.json("POST", "/broadcasting/auth", {
        channel_name: "presence-global",
      });
      expect(presence.status).toBe(200);
    },
  },

  // Pages (Remix)
  "PAGE /members/:username": {
    outcome: "404 both ways",
    async check(w) {
      expect((await page(w.me.client, `/members/${w.other.details.username}`)).status).toBe(404);
      expect((await page(w.other.client, `/members/${w.me.details.username}`)).status).toBe(404);
    },
  },
  "PAGE /dashboard": {
    outcome: "never shows the other member",
    check: (w) => expectPageWithout(w, "/dashboard"),
  },
  "PAGE /dashboard/search": {
    outcome: "a search for the other member's name shows nothing of them",
    check: (w) => expectSearchPageHides(w, "/dashboard/search"),
  },
  "PAGE /my/matches": {
    outcome: "never shows the other member",
    check: (w) => expectPageWithout(w, "/my/matches"),
  },
  "PAGE /my/matches/search": {
    outcome: "a search for the other member's name shows nothing of them",
    check: (w) => expectSearchPageHides(w, "/my/matches/search"),
  },
  "PAGE /my/likes": {
    outcome: "never shows the other member",
    check: (w) => expectPageWithout(w, "/my/likes"),
  },
  "PAGE /my/profile": {
    outcome: "the viewers list never shows the other member",
    check: (w) => expectPageWithout(w, "/my/profile"),
  },
  "PAGE /notifications": {
    outcome: "never shows the other member",
    check: (w) => expectPageWithout(w, "/notifications"),
  },
  "PAGE /my/activities": {
    outcome: "never shows the other member",
    check: (w) => expectPageWithout(w, "/my/activities"),
  },
  "PAGE /chat": {
    outcome: "the conversation list never shows the other member",
    check: (w) => expectPageWithout(w, "/chat"),
  },
  "PAGE /chat/starters/:username": {
    outcome: "404 both ways (no first lines for a member on the other side of a block)",
    async check(w) {
      const mine = await page(w.me.client, `/chat/starters/${w.other.details.username}`);
      expect(mine.status).toBe(404);
      const theirs = await page(w.other.client, `/chat/starters/${w.me.details.username}`);
      expect(theirs.status).toBe(404);
      const control = await page(w.me.client, `/chat/starters/${w.carol.details.username}`);
      expect(control.status).toBe(200);
    },
  },
  "PAGE /chat/:conversationId": {
    outcome: "only a redirect to the chat page with that conversation, which decides as PAGE /chat",
    async check(w) {
      const res = await page(w.me.client, "/chat/some-conversation");
      expect(res.status).toBe(302);
      expect(res.headers.get("Location")).toBe("/chat?conversation=some-conversation");
    },
  },
  "PAGE /settings/blocked": {
    outcome: "shows the other member only when I blocked them",
    async check(w) {
      const html = await (await page(w.me.client, "/settings/blocked")).text();
      expect(html.includes(w.other.details.username)).toBe(w.direction === "I blocked them");
    },
  },
  "PAGE /my/gifts": {
    outcome: "gifts stay listed (their credits were spent) but never name the other member",
    async check(w) {
      for (const list of ["received", "sent"]) {
        const html = await (await page(w.me.client, `/my/gifts?list=${list}`)).text();
        expect(html).toContain("Rose");
        expect(html.includes(w.other.details.username)).toBe(false);
      }
    },
  },
  "PAGE /my/credits": unrelated("the member's own balance and packs"),
  "PAGE /my/payments": unrelated("the member's own receipts"),
  "PAGE /my/verification": unrelated("the member's own photo verification"),
  "PAGE /my/appeal": unrelated("the member's own standing and appeal"),
  "PAGE /my/credits/success": unrelated("the member's own payment"),
  "PAGE /my/credits/cancel": unrelated("a checkout the member left"),
  "PAGE /my/subscription": unrelated("the member's own subscription"),
  "PAGE /my/subscription/success": unrelated("the member's own subscription"),
  "PAGE /my/subscription/cancel": unrelated("a checkout the member left"),
  "PAGE /settings": unrelated("the settings layout"),
  "PAGE /settings (index)": unrelated("redirects to the profile settings"),
  "PAGE /settings/profile": unrelated("the member's own profile form"),
  "PAGE /onboarding": unrelated("the member's own first profile steps"),
  "PAGE /settings/password": unrelated("the member's own password"),
  "PAGE /settings/appearance": unrelated("the member's own theme"),
  "PAGE /settings/notifications": unrelated("the member's own switches"),
  "PAGE /settings/privacy": unrelated("the member's own online-status switch"),
  "PAGE /settings/account": unrelated("the member's own export and deletion"),
  "PAGE / (index)": unrelated("the welcome page"),
  "PAGE /login": unrelated("signing in"),
  "PAGE /logout": unrelated("signing out"),
  "PAGE /register": unrelated("signing up"),
  "PAGE /forgot-password": unrelated("password reset"),
  "PAGE /reset-password/:token": unrelated("password reset"),
  "PAGE /verify-email": unrelated("email verification"),
  "PAGE /confirm-password": unrelated("password confirmation"),
  "PAGE /account-deleted": unrelated("after deleting one's own account"),
  "PAGE /moderation": unrelated("moderators only"),
  "PAGE /moderation/reports/:id": unrelated(
    "moderators only; the reported member's photos at the report, and the conversation",
  ),
  "PAGE /dev/mailbox": unrelated("local development only"),
  "PAGE /email/unsubscribe": unrelated("the member's own digest, from a signed link"),
  "PAGE /terms": unrelated("the terms of use"),
  "PAGE /privacy": unrelated("the privacy policy"),
  "PAGE /safety": unrelated("the safety advice"),
  "PAGE /contact": unrelated("how to reach the team"),
  "PAGE /*": unrelated("the not-found page"),
};

// ---------------------------------------------------------------------------------------------
// The tests

describe("what a block means, on every endpoint and page", () => {
  it("has a row for every mounted route and page, and no row for one that is gone", () => {
    const { endpoints, unknownAll } = honoRoutes();
    const all = [...endpoints, ...remixPages()];
    expect(unknownAll, "unknown `use`/`all` entries: add a row or list them as middleware").toEqual(
      [],
    );
    expect(
      all.filter((k) => !(k in ROWS)),
      "routes without a row",
    ).toEqual([]);
    expect(
      Object.keys(ROWS).filter((k) => !all.includes(k)),
      "rows without a route",
    ).toEqual([]);
  });

  for (const direction of ["I blocked them", "they blocked me"] as const) {
    describe(direction, () => {
      let world: World;
      beforeAll(async () => {
        world = await buildWorld(direction);
      }, 60_000);

      it("every row's outcome holds", { timeout: 120_000 }, async () => {
        const failures: string[] = [];
        const ordered = Object.entries(ROWS).sort(
          ([, a], [, b]) => Number(a.last ?? false) - Number(b.last ?? false),
        );
        for (const [route, row] of ordered) {
          if (!row.check) continue;
          try {
            await row.check(world);
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            failures.push(`${route} (${row.outcome}): ${message}`);
          }
        }
        expect(failures).toEqual([]);
      });
    });
  }
});
