import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  NOTIFICATION_TYPES,
  type NotificationPreferences,
  type NotificationView,
} from "~/schemas/notifications";
import { notify } from "~/server/notifications.server";
import { verifiedMember, registerMember } from "../helpers/members";
import { openSocket, type TestSocket } from "../helpers/sockets";

type Member = Awaited<ReturnType<typeof verifiedMember>>;

interface ListBody {
  notifications: NotificationView[];
  unread_count: number;
  meta: { page: number; per_page: number; has_more: boolean };
}

async function list(member: Member, query = "") {
  const res = await member.client.json<ListBody>("GET", `/notifications${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

async function memberChannel(member: Member): Promise<TestSocket> {
  const { status, socket } = await openSocket(member.client, "/ws/me");
  expect(status).toBe(101);
  return socket!;
}

async function setPreferences(member: Member, changes: Record<string, unknown>) {
  const res = await member.client.json<{ preferences: NotificationPreferences }>(
    "PUT",
    "/my/notification-preferences",
    changes,
  );
  expect(res.status).toBe(200);
  return res.body.preferences;
}

const notificationFrames = (socket: TestSocket) =>
  socket.frames.filter((f) => f.type === "notification");

describe("notifications are stored and pushed", () => {
  it("every member channel socket starts with hello: how often the bell changed, kept across a restart", async () => {
    const member = await verifiedMember();
    const viewer = await verifiedMember();
    const helloOf = async () => {
      const channel = await memberChannel(member);
      const hello = await channel.next(() => true);
      channel.close();
      expect(hello.type).toBe("hello");
      return hello.bell as number;
    };
    const start = await helloOf();

    // A notification heard while connected, then one while no page is open, then all read.
    const channel = await memberChannel(member);
    await viewer.client.json("GET", `/members/${member.details.username}`);
    await channel.next((f) => f.type === "notification");
    channel.close();
    expect(await helloOf()).toBe(start + 1);
    const another = await verifiedMember();
    await another.client.json("GET", `/members/${member.details.username}`);
    expect(await helloOf()).toBe(start + 2);
    expect((await member.client.json("POST", "/notifications/read-all")).status).toBeLessThan(300);
    expect(await helloOf()).toBe(start + 3);
    // The hub restarting (a deploy) keeps the count.
    await runInDurableObject(
      env.MEMBER_HUB.get(env.MEMBER_HUB.idFromName(member.id)),
      (_hub: unknown, state) => state.abort("restarted"),
    ).catch(() => {});
    expect(await helloOf()).toBe(start + 3);
  });

  it("a profile view: at most one a day per viewer, live on the member channel", async () => {
    const viewed = await verifiedMember();
    const viewer = await verifiedMember();
    const channel = await memberChannel(viewed);

    const visit = await viewer.client.json("GET", `/members/${viewed.details.username}`);
    expect(visit.status).toBe(200);
    const frame = await channel.next((f) => f.type === "notification");
    const pushed = frame.notification as NotificationView;
    expect(pushed).toMatchObject({ type: "profile_view", read_at: null });
    expect(pushed.created_at).toMatch(/Z$/);
    expect((pushed.data.actor as { id: string }).id).toBe(viewer.id);
    expect(frame.unread_count).toBe(1);

    const stored = await list(viewed);
    expect(stored.unread_count).toBe(1);
    expect(stored.notifications).toHaveLength(1);
    expect(stored.notifications[0]).toEqual(pushed);

    // The same viewer again today: no second notification. Another viewer's, which follows it,
    // proves that one would have arrived by then.
    await viewer.client.json("GET", `/members/${viewed.details.username}`);
    const another = await verifiedMember();
    await another.client.json("GET", `/members/${viewed.details.username}`);
    const actorOf = (n: NotificationView) => (n.data.actor as { id: string }).id;
    await channel.next(
      (f) =>
        f.type === "notification" && actorOf(f.notification as NotificationView) === another.id,
    );
    expect(
      notificationFrames(channel).map((f) => actorOf(f.notification as NotificationView)),
    ).toEqual([viewer.id, another.id]);
    expect((await list(viewed)).notifications.map(actorOf)).toEqual([another.id, viewer.id]);
    channel.close();
  });

  it("likes, matches and gifts from the modules that make them, to every open page", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    const tab1 = await memberChannel(me);
    const tab2 = await memberChannel(me);
    await notify(env, { to: me.id, type: "like", actorId: other.id });
    await notify(env, { to: me.id, type: "match", actorId: other.id });
    await notify(env, {
      to: me.id,
      type: "gift",
      actorId: other.id,
      data: { conversation_id: "c1", gift: { name: "Rose", icon: "🌹" } },
    });
    for (const tab of [tab1, tab2]) {
      await tab.next((f) => (f.notification as NotificationView | undefined)?.type === "gift");
      expect(notificationFrames(tab).map((f) => (f.notification as NotificationView).type)).toEqual(
        ["like", "match", "gift"],
      );
      expect(notificationFrames(tab).map((f) => f.unread_count)).toEqual([1, 2, 3]);
    }
    const stored = await list(me);
    expect(stored.notifications.map((n) => n.type)).toEqual(["gift", "match", "like"]);
    expect(stored.notifications[0]!.data).toMatchObject({
      conversation_id: "c1",
      gift: { name: "Rose" },
      actor: { id: other.id, username: other.details.username },
    });
    for (const tab of [tab1, tab2]) tab.close();
  });

  it("a new message in a conversation (from the chat module)", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    const channel = await memberChannel(me);
    const started = await other.client.json("POST", "/chat/conversations", {
      user_id: me.id,
      message: "Hi there!",
    });
    expect(started.status).toBe(201);
    const frame = await channel.next((f) => f.type === "notification", 4000);
    expect(frame.notification).toMatchObject({ type: "message", data: { preview: "Hi there!" } });
    expect((await list(me)).notifications[0]?.type).toBe("message");
    channel.close();
  });

  it("nothing for one's own action, and nothing across a block", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    expect(await notify(env, { to: me.id, type: "like", actorId: me.id })).toBeNull();
    await notify(env, { to: me.id, type: "like", actorId: other.id });
    expect((await list(me)).unread_count).toBe(1);

    const blocked = await me.client.json("POST", "/my/block", {
      user_id: other.id,
      reason_type: "spam",
    });
    expect(blocked.status).toBe(200);
    expect(await notify(env, { to: me.id, type: "match", actorId: other.id })).toBeNull();
    // What they caused before the block is gone from the list and the count too.
    const after = await list(me);
    expect(after.notifications).toHaveLength(0);
    expect(after.unread_count).toBe(0);
  });
});

describe("hidden actors", () => {
  it("drops what a member caused once their account is suspended", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    await notify(env, { to: me.id, type: "like", actorId: other.id });
    expect((await list(me)).unread_count).toBe(1);
    await env.DB.prepare("UPDATE users SET status = 'suspended' WHERE id = ?1")
      .bind(other.id)
      .run();
    const after = await list(me);
    expect(after.notifications).toHaveLength(0);
    expect(after.unread_count).toBe(0);
  });
});

describe("each kind has its own switch", () => {
  it("starts with every kind on in the app, pushes and emails as the defaults say, and validates changes", async () => {
    const member = await verifiedMember();
    const res = await member.client.json("GET", "/my/notification-preferences");
    expect(res.body).toEqual({
      preferences: {
        message: { in_app: true, push: true, email: true },
        like: { in_app: true, push: true, email: true },
        match: { in_app: true, push: true, email: true },
        gift: { in_app: true, push: true, email: false },
        profile_view: { in_app: true, push: false, email: false },
      },
      quiet_hours: null,
      preview: false,
    });
    const refused = [
      { like: "no" },
      { pokes: false },
      { preferences: { like: { sms: true } } },
      { preferences: { like: { push: "yes" } } },
      { quiet_hours: { start: "22:00", end: "8:00", time_zone: "Europe/Paris" } },
      { quiet_hours: { start: "22:00", end: "22:00", time_zone: "Europe/Paris" } },
      { quiet_hours: { start: "22:00", end: "08:00", time_zone: "Mars/Olympus_Mons" } },
      { quiet_hours: { start: "22:00", end: "08:00" } },
      { preview: "on" },
    ];
    for (const body of refused) {
      const bad = await member.client.json("PUT", "/my/notification-preferences", body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
    }
    expect((await member.client.json("GET", "/my/notification-preferences")).body).toEqual(
      res.body,
    );
  });

  it("merges any part of the shape: one channel, a bare boolean for in-app, quiet hours, preview", async () => {
    const member = await verifiedMember();
    await setPreferences(member, { preferences: { like: { push: false } } });
    await setPreferences(member, { match: false, gift: { email: true } });
    const res = await member.client.json("PUT", "/my/notification-preferences", {
      quiet_hours: { start: "22:00", end: "07:30", time_zone: "Europe/Paris" },
      preview: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      preferences: {
        message: { in_app: true, push: true, email: true },
        like: { in_app: true, push: false, email: true },
        match: { in_app: false, push: true, email: true },
        gift: { in_app: true, push: true, email: true },
        profile_view: { in_app: true, push: false, email: false },
      },
      quiet_hours: { start: "22:00", end: "07:30", time_zone: "Europe/Paris" },
      preview: true,
    });
    // Only what a change names moves: the preview alone keeps the quiet hours, and null ends them.
    const preview = await member.client.json<{ quiet_hours: unknown; preview: boolean }>(
      "PUT",
      "/my/notification-preferences",
      { preview: false },
    );
    expect(preview.body.quiet_hours).toEqual({
      start: "22:00",
      end: "07:30",
      time_zone: "Europe/Paris",
    });
    const ended = await member.client.json<{ quiet_hours: unknown; preview: boolean }>(
      "PUT",
      "/my/notification-preferences",
      { quiet_hours: null },
    );
    expect(ended.body).toMatchObject({ quiet_hours: null, preview: false });
  });

  for (const kind of NOTIFICATION_TYPES) {
    it(`${kind}: off stores and pushes nothing of that kind, the others still arrive`, async () => {
      const me = await verifiedMember();
      const other = await verifiedMember();
      const preferences = await setPreferences(me, { [kind]: false });
      expect(preferences[kind].in_app).toBe(false);
      expect(Object.values(preferences).filter((channels) => !channels.in_app)).toHaveLength(1);
      const channel = await memberChannel(me);

      expect(await notify(env, { to: me.id, type: kind, actorId: other.id })).toBeNull();
      const another = NOTIFICATION_TYPES.find((t) => t !== kind)!;
      await notify(env, { to: me.id, type: another, actorId: other.id });
      // notify() has pushed before it returns: once the second is here, the first would be too.
      await channel.next(
        (f) => f.type === "notification" && (f.notification as NotificationView).type === another,
      );
      expect(
        notificationFrames(channel).map((f) => (f.notification as NotificationView).type),
      ).toEqual([another]);
      expect((await list(me)).notifications.map((n) => n.type)).toEqual([another]);

      await setPreferences(me, { [kind]: true });
      expect(await notify(env, { to: me.id, type: kind, actorId: other.id })).not.toBeNull();
      expect((await list(me)).notifications.map((n) => n.type)).toEqual([kind, another]);
      channel.close();
    });
  }

  it("profile views switched off: a visit records the view but notifies nobody", async () => {
    const viewed = await verifiedMember();
    const viewer = await verifiedMember();
    await setPreferences(viewed, { profile_view: false });
    await viewer.client.json("GET", `/members/${viewed.details.username}`);
    expect((await list(viewed)).notifications).toHaveLength(0);
    const views = await viewed.client.json<{ total_count: number }>("GET", "/my/profile-viewers");
    expect(views.body.total_count).toBe(1);
  });

  it("the settings page saves every switch, the quiet hours and the preview from a plain form", async () => {
    const member = await verifiedMember();
    const page = await member.client.fetch("/settings/notifications", {
      headers: { Accept: "text/html" },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<title>Notification Settings - Heartline</title>");
    for (const kind of NOTIFICATION_TYPES) {
      for (const channel of ["in_app", "push", "email"]) {
        expect(html).toContain(`name="${kind}.${channel}"`);
      }
    }
    expect(html).toContain('<option value="Europe/Paris">Europe/Paris</option>');

    await member.client.loadCsrfFromPage("/settings/notifications");
    // As the browser sends it: every switch, the unchecked ones as their hidden "off".
    const form: Record<string, string> = {};
    for (const kind of NOTIFICATION_TYPES) {
      form[`${kind}.in_app`] = kind === "match" ? "off" : "on";
      form[`${kind}.push`] = kind === "message" ? "off" : "on";
      form[`${kind}.email`] = "off";
    }
    const saved = await member.client.form("/settings/notifications", {
      ...form,
      quiet: "on",
      quiet_start: "23:00",
      quiet_end: "07:00",
      time_zone: "America/New_York",
      preview: "off",
    });
    expect(saved.status).toBe(200);
    const res = await member.client.json<{
      preferences: NotificationPreferences;
      quiet_hours: unknown;
      preview: boolean;
    }>("GET", "/my/notification-preferences");
    expect(res.body.preferences.match).toEqual({ in_app: false, push: true, email: false });
    expect(res.body.preferences.message).toEqual({ in_app: true, push: false, email: false });
    expect(res.body.quiet_hours).toEqual({
      start: "23:00",
      end: "07:00",
      time_zone: "America/New_York",
    });
    expect(res.body.preview).toBe(false);

    // A body without the switches (an empty form, JSON of anything else) or with quiet hours that
    // are not times is refused and changes nothing: it never reads as "everything off".
    const partial: Record<string, string>[] = [
      {},
      { "like.in_app": "on" },
      {
        ...form,
        quiet: "on",
        quiet_start: "late",
        quiet_end: "07:00",
        time_zone: "UTC",
        preview: "off",
      },
      { ...form, quiet: "maybe", preview: "off" },
    ];
    for (const body of partial) {
      const refused = await member.client.form("/settings/notifications", body);
      expect(refused.status).toBe(422);
    }
    expect((await member.client.json("GET", "/my/notification-preferences")).body).toEqual(
      res.body,
    );
  });
});

describe("reading notifications", () => {
  it("pages newest first and marks one or all read, telling the member's other pages", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    for (let i = 0; i < 25; i++) {
      await notify(env, { to: me.id, type: "like", actorId: other.id, data: { n: i } });
    }
    const first = await list(me);
    expect(first.unread_count).toBe(25);
    expect(first.meta).toEqual({ page: 1, per_page: 20, has_more: true });
    expect(first.notifications.map((n) => n.data.n)).toEqual(
      Array.from({ length: 20 }, (_, i) => 24 - i),
    );
    const second = await list(me, "?page=2");
    expect(second.meta).toEqual({ page: 2, per_page: 20, has_more: false });
    expect(second.notifications.map((n) => n.data.n)).toEqual([4, 3, 2, 1, 0]);
    expect((await list(me, "?per_page=5")).notifications).toHaveLength(5);

    const otherTab = await memberChannel(me);
    const target = first.notifications[3]!;
    const read = await me.client.json<{ notification: NotificationView; unread_count: number }>(
      "POST",
      `/notifications/${target.id}/read`,
    );
    expect(read.status).toBe(200);
    expect(read.body.unread_count).toBe(24);
    expect(read.body.notification.read_at).toMatch(/Z$/);
    const frame = await otherTab.next((f) => f.type === "notifications_read");
    // 25 likes are one row on the page, so one by the bell.
    expect(frame).toEqual({
      type: "notifications_read",
      ids: [target.id],
      unread_count: 24,
      unread_groups: 1,
    });
    // Reading it again changes nothing.
    const again = await me.client.json("POST", `/notifications/${target.id}/read`);
    expect(again.body).toMatchObject({ unread_count: 24 });

    const all = await me.client.json("POST", "/notifications/read-all");
    expect(all.body).toEqual({ unread_count: 0, unread_groups: 0 });
    await otherTab.next((f) => f.type === "notifications_read" && f.ids === null);
    const after = await list(me);
    expect(after.unread_count).toBe(0);
    expect(after.notifications.every((n) => n.read_at !== null)).toBe(true);
    otherTab.close();
  });

  it("counts the rows the page makes of the unread ones, for the bell: per conversation, likes and views as one each, a match and a gift each", async () => {
    const me = await verifiedMember();
    const others = await Promise.all([verifiedMember(), verifiedMember(), verifiedMember()]);
    const tab = await memberChannel(me);
    const [a, b, c] = others.map((o) => o.id) as [string, string, string];
    const sent: [string, Parameters<typeof notify>[1]][] = [
      ["likes: 1", { to: me.id, type: "like", actorId: a }],
      ["likes", { to: me.id, type: "like", actorId: b }],
      ["views: 2", { to: me.id, type: "profile_view", actorId: c }],
      ["views", { to: me.id, type: "profile_view", actorId: a }],
      [
        "conversation one: 3",
        { to: me.id, type: "message", actorId: a, data: { conversation_id: "c1" } },
      ],
      [
        "conversation one",
        { to: me.id, type: "message", actorId: a, data: { conversation_id: "c1" } },
      ],
      [
        "conversation two: 4",
        { to: me.id, type: "message", actorId: b, data: { conversation_id: "c2" } },
      ],
      ["a match: 5", { to: me.id, type: "match", actorId: c }],
      ["another match: 6", { to: me.id, type: "match", actorId: b }],
      ["a gift: 7", { to: me.id, type: "gift", actorId: c, data: { conversation_id: "c3" } }],
    ];
    for (const [, input] of sent) await notify(env, input);
    await tab.next(() => notificationFrames(tab).length === sent.length);
    const frames = notificationFrames(tab);
    expect(frames.map((f) => [f.unread_count, f.unread_groups])).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
      [4, 2],
      [5, 3],
      [6, 3],
      [7, 4],
      [8, 5],
      [9, 6],
      [10, 7],
    ]);
    const listed = (
      await me.client.json<ListBody & { unread_groups: number }>("GET", "/notifications")
    ).body;
    expect([listed.unread_count, listed.unread_groups]).toEqual([10, 7]);
    // Reading a conversation's row (both its messages) takes one off the bell.
    const convo = listed.notifications
      .filter((n) => n.data.conversation_id === "c1")
      .map((n) => n.id);
    for (const id of convo) await me.client.json("POST", `/notifications/${id}/read`);
    const after = (
      await me.client.json<ListBody & { unread_groups: number }>("GET", "/notifications")
    ).body;
    expect([after.unread_count, after.unread_groups]).toEqual([8, 6]);
    tab.close();
  });

  it("keeps each member's notifications to themselves", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    const mine = await notify(env, { to: me.id, type: "like", actorId: other.id });
    const res = await other.client.json("POST", `/notifications/${mine!.id}/read`);
    expect(res.status).toBe(404);
    expect((await list(other)).notifications).toHaveLength(0);
    expect((await list(me)).unread_count).toBe(1);
  });

  it("is a page for a browser and JSON when asked; members only", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    await notify(env, { to: me.id, type: "like", actorId: other.id });
    const page = await me.client.fetch("/notifications", { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<title>Notifications - Heartline</title>");
    expect(html).toContain("liked you");

    const visitor = await registerMember();
    const json = await visitor.client.json("GET", "/notifications");
    expect(json.status).toBe(403);
    const anonymous = await visitor.client.fetch("/notifications", {
      headers: { Accept: "text/html" },
    });
    expect([302, 303]).toContain(anonymous.status);
  });

  it("marks read from the page's plain forms", async () => {
    const me = await verifiedMember();
    const other = await verifiedMember();
    const one = await notify(env, { to: me.id, type: "like", actorId: other.id });
    await notify(env, { to: me.id, type: "match", actorId: other.id });
    await me.client.loadCsrfFromPage("/notifications");
    const read = await me.client.form("/notifications", { intent: "read", ids: one!.id });
    expect(read.status).toBe(200);
    expect((await list(me)).unread_count).toBe(1);
    await me.client.form("/notifications", { intent: "read-all" });
    expect((await list(me)).unread_count).toBe(0);
  });

  it("marks a grouped row read in one go, and only the member's own notifications", async () => {
    const me = await verifiedMember();
    const maya = await verifiedMember();
    const tom = await verifiedMember();
    const likes = [
      await notify(env, { to: me.id, type: "like", actorId: maya.id }),
      await notify(env, { to: me.id, type: "like", actorId: tom.id }),
    ];
    const theirs = await notify(env, { to: maya.id, type: "like", actorId: tom.id });
    await notify(env, { to: me.id, type: "match", actorId: maya.id });
    await me.client.loadCsrfFromPage("/notifications");
    const ids = [...likes.map((n) => n!.id), theirs!.id].join(",");
    const read = await me.client.form("/notifications", { intent: "read", ids });
    expect(read.status).toBe(200);
    expect((await list(me)).unread_count).toBe(1);
    // Maya's notification, named among mine, stays unread.
    expect((await list(maya)).unread_count).toBe(1);
    // A form without ids changes nothing and says why.
    const empty = await me.client.form("/notifications", { intent: "read", ids: "" });
    expect(empty.status).toBe(422);
    expect((await list(me)).unread_count).toBe(1);
  });

  it("a row marked read takes its notifications the page had not loaded with it, and nothing else", async () => {
    const me = await verifiedMember();
    const others = await Promise.all([verifiedMember(), verifiedMember()]);
    // 25 likes: the page loads 20, the row's form names those.
    const likes = [];
    for (let i = 0; i < 25; i++) {
      likes.push(await notify(env, { to: me.id, type: "like", actorId: others[i % 2]!.id }));
    }
    const say = (conversation_id: string) =>
      notify(env, {
        to: me.id,
        type: "message",
        actorId: others[0]!.id,
        data: { conversation_id },
      });
    const c1 = [await say("c1"), await say("c1")];
    await say("c2");
    const theirs = await notify(env, { to: others[0]!.id, type: "like", actorId: others[1]!.id });
    await me.client.loadCsrfFromPage("/notifications");
    const loaded = likes.slice(5).map((n) => n!.id);
    const read = await me.client.form("/notifications", {
      intent: "read",
      ids: loaded.join(","),
      group: "like",
    });
    expect(read.status).toBe(200);
    let now = await me.client.json<ListBody & { unread_groups: number }>("GET", "/notifications");
    // Every like is read, the two conversations are not.
    expect([now.body.unread_groups, now.body.unread_count]).toEqual([2, 3]);
    // A conversation's row: its own messages only.
    await me.client.form("/notifications", {
      intent: "read",
      ids: c1[0]!.id,
      group: "conversation:c1",
    });
    now = await me.client.json<ListBody & { unread_groups: number }>("GET", "/notifications");
    expect([now.body.unread_groups, now.body.unread_count]).toEqual([1, 1]);
    // Another member's likes are never touched; a group that is not a row is refused.
    expect((await list(others[0]!)).unread_count).toBe(1);
    expect(theirs).not.toBeNull();
    const odd = await me.client.form("/notifications", {
      intent: "read",
      ids: c1[1]!.id,
      group: "match",
    });
    expect(odd.status).toBe(422);
  });
});
