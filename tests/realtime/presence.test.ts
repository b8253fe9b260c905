import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { presenceConfig, shardOf } from "~/realtime/presence-shards";
import { verifiedMember } from "../helpers/members";
import { openSocket } from "../helpers/sockets";
import { countEvents, joinPresence, mentionedBy, onlineOf, until, watch } from "./presence-helpers";

type Member = Awaited<ReturnType<typeof verifiedMember>>;

async function block(me: Member, other: Member) {
  const res = await me.client.json("POST", "/my/block", { user_id: other.id, reason_type: "spam" });
  expect(res.status).toBe(200);
}

async function unblock(me: Member, other: Member) {
  expect((await me.client.json("DELETE", `/my/block/${other.id}`)).status).toBe(200);
}

async function hideOnline(member: Member, hide: boolean) {
  const res = await member.client.json("PUT", "/my/privacy", { hide_online: hide });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ hide_online: hide });
}

describe("the presence room: here, joining, leaving", () => {
  it("gives the watched members online, then announces each arrival and departure once", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const a = await joinPresence(alice.client, [bob.id]);
    expect(onlineOf(a).size).toBe(0);

    const b = await joinPresence(bob.client);
    expect(await watch(b, [alice.id])).toEqual([alice.id]);
    await until(a, (online) => online.has(bob.id), "alice to see bob join");

    b.close();
    await until(a, (online) => !online.has(bob.id), "alice to see bob leave");
    expect(countEvents(a, "joining", bob.id)).toBe(1);
    expect(countEvents(a, "leaving", bob.id)).toBe(1);
    // Nobody is told about themself.
    expect(countEvents(a, "joining", alice.id)).toBe(0);
    a.close();
  });

  it("counts a member with several tabs once and lets them leave when the last one closes", async () => {
    const watcher = await verifiedMember();
    const tabs = await verifiedMember();
    const control = await verifiedMember();
    const w = await joinPresence(watcher.client, [tabs.id, control.id]);
    const t1 = await joinPresence(tabs.client);
    const c = await joinPresence(control.client);
    await until(w, (online) => online.has(tabs.id) && online.has(control.id), "the first joins");
    const t2 = await joinPresence(tabs.client);
    const t3 = await joinPresence(tabs.client, [watcher.id]);
    expect(onlineOf(t3).has(watcher.id)).toBe(true);

    // Another member closes their only tab at the same time: once their leave is heard (a grace
    // period later), one for the closed tabs would have been too.
    t1.close();
    t2.close();
    c.close();
    await until(w, (online) => !online.has(control.id), "the other member to leave");
    expect(onlineOf(w).has(tabs.id)).toBe(true);
    t3.close();
    await until(w, (online) => !online.has(tabs.id), "the last tab to leave");
    expect(countEvents(w, "joining", tabs.id)).toBe(1);
    expect(countEvents(w, "leaving", tabs.id)).toBe(1);
    w.close();
  });

  it("does not flicker when a member reloads within the grace period", async () => {
    const watcher = await verifiedMember();
    const reloader = await verifiedMember();
    const control = await verifiedMember();
    const w = await joinPresence(watcher.client, [reloader.id, control.id]);
    const before = await joinPresence(reloader.client);
    const c = await joinPresence(control.client);
    await until(w, (online) => online.has(reloader.id) && online.has(control.id), "both to join");

    // Another member closes their tab at the same time and does not come back: once their leave
    // is heard (a grace period later), a leave of the reloader would have been too.
    before.close();
    c.close();
    const after = await joinPresence(reloader.client);
    await until(w, (online) => !online.has(control.id), "the other member to leave");
    expect(countEvents(w, "leaving", reloader.id)).toBe(0);
    expect(countEvents(w, "joining", reloader.id)).toBe(1);

    after.close();
    await until(w, (online) => !online.has(reloader.id), "the member to leave after the grace");
    w.close();
  });

  it("sees watched members of every shard, and several arrivals at once", async () => {
    const { shards } = presenceConfig(env);
    expect(shards).toBeGreaterThan(1);
    const watcher = await verifiedMember();
    const others = await Promise.all(Array.from({ length: 6 }, () => verifiedMember()));
    const ids = others.map((m) => m.id);
    const spread = new Set(others.map((m) => shardOf(m.id, shards)));
    expect(spread.size).toBeGreaterThan(1);
    const w = await joinPresence(watcher.client, ids);

    const sockets = await Promise.all(others.map((m) => joinPresence(m.client)));
    await until(w, (online) => ids.every((id) => online.has(id)), "every arrival");
    // A late joiner's `here` has them all, whatever their shards.
    const late = await verifiedMember();
    const l = await joinPresence(late.client);
    expect(new Set(await watch(l, ids))).toEqual(new Set(ids));

    for (const s of sockets) s.close();
    await until(w, (online) => ids.every((id) => !online.has(id)), "every departure");
    await until(l, (online) => ids.every((id) => !online.has(id)), "every departure (late)");
    for (const id of ids) expect(countEvents(w, "leaving", id)).toBe(1);
    w.close();
    l.close();
  });

  it("answers the keepalive ping with a pong", async () => {
    const member = await verifiedMember();
    const s = await joinPresence(member.client);
    s.ws.send('{"type":"ping"}');
    await s.next((f) => f.type === "pong");
    s.close();
  });

  it("refuses a socket from another origin before the upgrade", async () => {
    const member = await verifiedMember();
    const cross = await openSocket(member.client, "/ws/presence", {
      Origin: "https://evil.example",
    });
    expect(cross.status).toBe(403);
  });
});

describe("members who hide their online status", () => {
  it("never appear to those who watch them, yet see everyone else", async () => {
    const watcher = await verifiedMember();
    const shy = await verifiedMember();
    const visible = await verifiedMember();
    const control = await verifiedMember();
    await hideOnline(shy, true);
    const c = await joinPresence(control.client);
    const w = await joinPresence(watcher.client, [shy.id, control.id]);
    const s = await joinPresence(shy.client, [watcher.id, visible.id, shy.id]);
    expect(onlineOf(s).has(watcher.id)).toBe(true);
    expect(onlineOf(s).has(shy.id)).toBe(false);

    const v = await joinPresence(visible.client, [shy.id, control.id]);
    await until(s, (online) => online.has(visible.id), "the hidden member to see an arrival");
    expect(onlineOf(v).has(shy.id)).toBe(false);

    // A visible member leaves at the same time: once both watchers heard that, a leave of the
    // hidden member would have reached them too.
    s.close();
    c.close();
    for (const socket of [w, v]) {
      await until(socket, (online) => !online.has(control.id), "the visible member to leave");
    }
    for (const socket of [w, v]) expect(mentionedBy(socket).has(shy.id)).toBe(false);
    w.close();
    v.close();
  });

  it("disappear and reappear at once when they switch the setting with pages open", async () => {
    const watcher = await verifiedMember();
    const member = await verifiedMember();
    const w = await joinPresence(watcher.client, [member.id]);
    const m = await joinPresence(member.client);
    await until(w, (online) => online.has(member.id), "the member to join");

    await hideOnline(member, true);
    await until(w, (online) => !online.has(member.id), "the member to disappear");
    // A page opened now does not list them either.
    const late = await verifiedMember();
    const l = await joinPresence(late.client, [member.id]);
    expect(onlineOf(l).has(member.id)).toBe(false);

    await hideOnline(member, false);
    await until(w, (online) => online.has(member.id), "the member to reappear");
    await until(l, (online) => online.has(member.id), "the member to reappear (late)");
    for (const s of [w, m, l]) s.close();
  });

  it("keeps the setting for the member cards too", async () => {
    const member = await verifiedMember();
    expect((await member.client.json("GET", "/my/privacy")).body).toEqual({ hide_online: false });
    await hideOnline(member, true);
    expect((await member.client.json("GET", "/my/privacy")).body).toEqual({ hide_online: true });
    const row = await env.DB.prepare("SELECT hide_online FROM users WHERE id = ?1")
      .bind(member.id)
      .first<{ hide_online: number }>();
    expect(row?.hide_online).toBe(1);
    const bad = await member.client.json("PUT", "/my/privacy", { hide_online: "yes" });
    expect(bad.status).toBe(422);
  });
});

describe("presence across a block", () => {
  it("never shows either member to the other, whoever blocked", async () => {
    const blocker = await verifiedMember();
    const blocked = await verifiedMember();
    const bystander = await verifiedMember();
    const control = await verifiedMember();
    await block(blocker, blocked);

    // Each watches everyone: the block still keeps the pair apart.
    const all = [blocker.id, blocked.id, bystander.id, control.id];
    const c = await joinPresence(control.client);
    const y = await joinPresence(blocked.client, all);
    const x = await joinPresence(blocker.client, all);
    const z = await joinPresence(bystander.client, all);
    await until(z, (online) => online.has(blocker.id) && online.has(blocked.id), "the bystander");
    await until(x, (online) => online.has(bystander.id), "the blocker to see the bystander");
    await until(y, (online) => online.has(bystander.id), "the blocked to see the bystander");

    // Tabs and reloads do not leak either. The control member leaves after the blocked member's
    // tabs close: once the blocker heard that (a grace period later), the blocked member's leave
    // would have been heard too.
    const y2 = await joinPresence(blocked.client, all);
    y.close();
    y2.close();
    c.close();
    await until(x, (online) => !online.has(control.id), "the blocker to hear the control leave");
    expect(mentionedBy(x).has(blocked.id)).toBe(false);
    const x2 = await joinPresence(blocker.client, all);
    const y3 = await joinPresence(blocked.client, all);
    // The control member comes back after both: once every page heard that, the other side of
    // the block would have been heard too.
    const c2 = await joinPresence(control.client);
    for (const s of [x, x2, y3]) await until(s, (online) => online.has(control.id), "the control");
    expect(mentionedBy(y3).has(blocker.id)).toBe(false);
    for (const s of [x, x2]) expect(mentionedBy(s).has(blocked.id)).toBe(false);
    for (const s of [x, x2, y3, z, c2]) s.close();
  });

  it("hides members from each other as soon as one blocks, and shows them again on unblock", async () => {
    const a = await verifiedMember();
    const b = await verifiedMember();
    const control = await verifiedMember();
    const c = await joinPresence(control.client);
    const sa = await joinPresence(a.client, [b.id]);
    const sb = await joinPresence(b.client, [a.id, control.id]);
    await until(sa, (online) => online.has(b.id), "a to see b");
    await until(sb, (online) => online.has(a.id) && online.has(control.id), "b to see a");

    await block(b, a);
    await until(sa, (online) => !online.has(b.id), "a to lose b");
    await until(sb, (online) => !online.has(a.id), "b to lose a");

    // While blocked, departures and arrivals of the other stay unseen. Each time the control
    // member does the same just after a: once b heard the control, a would have been heard too.
    const before = sb.frames.length;
    sa.close();
    c.close();
    await until(sb, (online) => !online.has(control.id), "b to hear the control leave");
    const sa2 = await joinPresence(a.client, [b.id]);
    const c2 = await joinPresence(control.client);
    await until(sb, (online) => online.has(control.id), "b to hear the control come back");
    expect(mentionedBy({ ...sb, frames: sb.frames.slice(before) }).has(a.id)).toBe(false);

    await unblock(b, a);
    await until(sa2, (online) => online.has(b.id), "a to see b again");
    await until(sb, (online) => online.has(a.id), "b to see a again");
    for (const s of [sa2, sb, c2]) s.close();
  });

  it("keeps them apart while the other side's block remains", async () => {
    const a = await verifiedMember();
    const b = await verifiedMember();
    const control = await verifiedMember();
    await block(a, b);
    await block(b, a);
    const sa = await joinPresence(a.client, [b.id, control.id]);
    const sb = await joinPresence(b.client, [a.id, control.id]);
    await unblock(a, b);
    // The control member arrives after the unblock: once both heard that, a joining of the other
    // would have been heard too.
    const c = await joinPresence(control.client);
    for (const s of [sa, sb]) await until(s, (online) => online.has(control.id), "the control");
    expect(mentionedBy(sa).has(b.id)).toBe(false);
    expect(mentionedBy(sb).has(a.id)).toBe(false);
    for (const s of [sa, sb, c]) s.close();
  });
});
