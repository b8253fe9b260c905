import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { publishToMember } from "~/server/member-channel.server";
import { TestClient } from "../helpers/client";
import { registerMember, verifiedMember } from "../helpers/members";
import { openSocket } from "../helpers/sockets";
import { watch } from "./presence-helpers";

describe("websocket upgrades", () => {
  it("refuses a visitor (401), an unverified member (403) and a cross-site origin (403)", async () => {
    expect((await openSocket(new TestClient(), "/ws/me")).status).toBe(401);
    const unverified = await registerMember();
    expect((await openSocket(unverified.client, "/ws/me")).status).toBe(403);
    const member = await verifiedMember();
    const cross = await openSocket(member.client, "/ws/me", { Origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    const same = await openSocket(member.client, "/ws/me", { Origin: "http://localhost" });
    expect(same.status).toBe(101);
    same.socket!.close();
  });
});

describe("the member channel", () => {
  it("delivers a published frame to every open page of that member and nobody else", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const tab1 = (await openSocket(alice.client, "/ws/me")).socket!;
    const tab2 = (await openSocket(alice.client, "/ws/me")).socket!;
    const bobs = (await openSocket(bob.client, "/ws/me")).socket!;
    await publishToMember(env, alice.id, {
      type: "conversation",
      conversation_id: "c1",
      last_message: "hello",
      last_message_time: new Date().toISOString(),
      unread_count: 1,
    });
    for (const tab of [tab1, tab2]) {
      expect(await tab.next((f) => f.type === "conversation")).toMatchObject({
        last_message: "hello",
      });
    }
    expect(bobs.frames.filter((f) => f.type === "conversation")).toHaveLength(0);
    for (const s of [tab1, tab2, bobs]) s.close();
  });
});

describe("the presence room", () => {
  it("says here, joining once per member across tabs, and leaving when the last tab closes", async () => {
    const alice = await verifiedMember();
    const bob = await verifiedMember();
    const a = (await openSocket(alice.client, "/ws/presence")).socket!;
    await a.next((f) => f.type === "here");
    expect(await watch(a, [bob.id])).toEqual([]);
    const b1 = (await openSocket(bob.client, "/ws/presence")).socket!;
    await b1.next((f) => f.type === "here");
    expect(await watch(b1, [alice.id])).toEqual([alice.id]);
    await a.next((f) => f.type === "joining" && f.user_id === bob.id);
    const b2 = (await openSocket(bob.client, "/ws/presence")).socket!;
    await b2.next((f) => f.type === "here");
    b1.close();
    b2.close();
    await a.next((f) => f.type === "leaving" && f.user_id === bob.id);
    expect(a.frames.filter((f) => f.type === "joining" && f.user_id === bob.id)).toHaveLength(1);
    expect(a.frames.filter((f) => f.type === "leaving" && f.user_id === bob.id)).toHaveLength(1);
    a.close();
  });
});
