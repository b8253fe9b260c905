import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { issueChannelToken } from "~/server/broadcasting.server";
import { sessionRowOf } from "../helpers/auth";
import { HEARTBEAT_WRITE_AFTER_MS } from "~/lib/online";
import { TestClient } from "../helpers/client";
import { registerMember, verifiedMember } from "../helpers/members";
import { openSocket } from "../helpers/sockets";
import { watch } from "./presence-helpers";

/** The session a signed-in browser holds, as a channel token names it. */
async function sessionOf(client: TestClient) {
  const row = await sessionRowOf(client);
  if (!row) throw new Error("not signed in");
  return { userId: row.user_id, idHash: row.id_hash };
}

async function lastSeen(id: string) {
  const row = await env.DB.prepare("SELECT last_seen_at FROM users WHERE id = ?1")
    .bind(id)
    .first<{ last_seen_at: string | null }>();
  return row?.last_seen_at ?? null;
}

async function setLastSeen(id: string, value: string | null) {
  await env.DB.prepare("UPDATE users SET last_seen_at = ?2 WHERE id = ?1").bind(id, value).run();
}

describe("POST /me/heartbeat", () => {
  it("answers 204 and keeps last_seen_at fresh, writing only when the shards have not", async () => {
    const member = await verifiedMember();
    await setLastSeen(member.id, null);
    const first = await member.client.json("POST", "/me/heartbeat");
    expect(first.status).toBe(204);
    const written = await lastSeen(member.id);
    expect(written).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.now() - Date.parse(written!)).toBeLessThan(10_000);

    // Fresh (what a presence shard keeps for a member with a socket): answered, not written.
    const again = await member.client.json("POST", "/me/heartbeat");
    expect(again.status).toBe(204);
    expect(await lastSeen(member.id)).toBe(written);
    const recent = new Date(Date.now() - HEARTBEAT_WRITE_AFTER_MS + 5_000).toISOString();
    await setLastSeen(member.id, recent);
    await member.client.json("POST", "/me/heartbeat");
    expect(await lastSeen(member.id)).toBe(recent);

    // Older than that (no socket keeps it fresh): written again.
    const old = new Date(Date.now() - HEARTBEAT_WRITE_AFTER_MS - 1_000).toISOString();
    await setLastSeen(member.id, old);
    expect((await member.client.json("POST", "/me/heartbeat")).status).toBe(204);
    expect(Date.parse((await lastSeen(member.id))!)).toBeGreaterThan(Date.parse(old));
  });

  it("answers 419 when the page's CSRF token is stale or missing, and changes nothing", async () => {
    const member = await verifiedMember();
    await setLastSeen(member.id, null);
    const stale = await member.client.json("POST", "/me/heartbeat", undefined, { csrf: "stale" });
    expect(stale.status).toBe(419);
    expect(stale.body).toEqual({ message: "CSRF token mismatch." });
    const missing = await member.client.json("POST", "/me/heartbeat", undefined, { csrf: null });
    expect(missing.status).toBe(419);
    expect(await lastSeen(member.id)).toBeNull();
  });

  it("needs a signed-in member with a verified email", async () => {
    const visitor = new TestClient();
    await visitor.loadCsrfFromPage();
    expect((await visitor.json("POST", "/me/heartbeat")).status).toBe(401);
    const unverified = await registerMember();
    expect((await unverified.client.json("POST", "/me/heartbeat")).status).toBe(403);
  });
});

describe("POST /broadcasting/auth and ?auth=", () => {
  it("issues a token for the presence channel that opens the room without the cookie", async () => {
    const member = await verifiedMember();
    const res = await member.client.json<{ auth: string }>("POST", "/broadcasting/auth", {
      channel_name: "presence-global",
    });
    expect(res.status).toBe(200);
    expect(res.body.auth).toMatch(/^[\w-]+\.[\w-]+$/);

    const stranger = new TestClient();
    const opened = await openSocket(
      stranger,
      `/ws/presence?auth=${encodeURIComponent(res.body.auth)}`,
    );
    expect(opened.status).toBe(101);
    await opened.socket!.next((f) => f.type === "here");
    // It is the member's socket: watching themself, they are online.
    expect(await watch(opened.socket!, [member.id])).toEqual([member.id]);
    opened.socket!.close();
  });

  it("issues a member's own channel to that member only", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const own = await alice.client.json<{ auth: string }>("POST", "/broadcasting/auth", {
      channel_name: `private-member.${alice.id}`,
    });
    expect(own.status).toBe(200);
    const opened = await openSocket(new TestClient(), `/ws/me?auth=${own.body.auth}`);
    expect(opened.status).toBe(101);
    opened.socket!.close();

    const other = await alice.client.json("POST", "/broadcasting/auth", {
      channel_name: `private-member.${bob.id}`,
    });
    expect(other.status).toBe(403);
  });

  it("issues a conversation's channel to its members only", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const carol = await verifiedMember();
    const started = await alice.client.json<{ conversation: { id: string } }>(
      "POST",
      "/chat/conversations",
      { user_id: bob.id, message: "hello" },
    );
    expect(started.status).toBe(201);
    const channel = `private-chat.${started.body.conversation.id}`;
    expect(
      (await alice.client.json("POST", "/broadcasting/auth", { channel_name: channel })).status,
    ).toBe(200);
    expect(
      (await bob.client.json("POST", "/broadcasting/auth", { channel_name: channel })).status,
    ).toBe(200);
    expect(
      (await carol.client.json("POST", "/broadcasting/auth", { channel_name: channel })).status,
    ).toBe(403);
    const unknown = await alice.client.json("POST", "/broadcasting/auth", {
      channel_name: "private-chat.nosuchconversation",
    });
    expect(unknown.status).toBe(404);
  });

  it("refuses a token for another channel (403), a forged or expired one (401)", async () => {
    const member = await verifiedMember();
    const presence = await issueChannelToken(
      env,
      await sessionOf(member.client),
      "presence-global",
    );
    expect((await openSocket(new TestClient(), `/ws/me?auth=${presence}`)).status).toBe(403);

    const [payload, mac] = presence.split(".");
    const forged = `${payload}.${mac!.slice(0, -2)}AA`;
    expect((await openSocket(new TestClient(), `/ws/presence?auth=${forged}`)).status).toBe(401);
    expect((await openSocket(new TestClient(), "/ws/presence?auth=garbage")).status).toBe(401);

    const expired = await issueChannelToken(
      env,
      await sessionOf(member.client),
      "presence-global",
      Date.now() - 6 * 60_000,
    );
    expect((await openSocket(new TestClient(), `/ws/presence?auth=${expired}`)).status).toBe(401);
  });

  it("validates the channel name and needs a verified member and the CSRF token", async () => {
    const member = await verifiedMember();
    const bad = await member.client.json("POST", "/broadcasting/auth", { channel_name: "global" });
    expect(bad.status).toBe(422);
    const missing = await member.client.json("POST", "/broadcasting/auth", {});
    expect(missing.status).toBe(422);
    const noCsrf = await member.client.json(
      "POST",
      "/broadcasting/auth",
      { channel_name: "presence-global" },
      { csrf: null },
    );
    expect(noCsrf.status).toBe(419);
    const unverified = await registerMember();
    const refused = await unverified.client.json("POST", "/broadcasting/auth", {
      channel_name: "presence-global",
    });
    expect(refused.status).toBe(403);
  });

  it("lets a token open nothing for a member who was suspended since", async () => {
    const member = await verifiedMember();
    const token = await issueChannelToken(env, await sessionOf(member.client), "presence-global");
    await env.DB.prepare("UPDATE users SET status = 'suspended' WHERE id = ?1")
      .bind(member.id)
      .run();
    expect((await openSocket(new TestClient(), `/ws/presence?auth=${token}`)).status).toBe(401);
  });
});
