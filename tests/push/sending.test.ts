import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PushPayload } from "~/schemas/push";
import { pushTopic, sendPush, sendPushTo } from "~/server/push.server";
import { TestClient } from "../helpers/client";
import { registerMember } from "../helpers/members";
import {
  attemptsAt,
  plaintextOf,
  pushesTo,
  pushServiceAnswers,
  subscribeBrowser,
  waitForAttempts,
  type BrowserSubscription,
} from "./browser";

afterEach(() => {
  vi.restoreAllMocks();
});

type Member = Awaited<ReturnType<typeof registerMember>>;

async function subscribed(m: Member, count = 1): Promise<BrowserSubscription[]> {
  const subs: BrowserSubscription[] = [];
  for (let i = 0; i < count; i++) {
    const sub = await subscribeBrowser();
    const res = await m.client.json("POST", "/my/push/subscriptions", {
      endpoint: sub.endpoint,
      keys: sub.keys,
    });
    expect(res.status).toBe(201);
    subs.push(sub);
  }
  return subs;
}

async function stored(endpoint: string): Promise<boolean> {
  const row = await env.DB.prepare("SELECT 1 AS x FROM push_subscriptions WHERE endpoint = ?1")
    .bind(endpoint)
    .first();
  return row !== null;
}

/** Waits (up to 5 s) until `check` holds. */
async function eventually(check: () => Promise<boolean>) {
  const deadline = Date.now() + 5000;
  while (!(await check()) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

const message = (tag: string, body = "Hello"): PushPayload => ({
  type: "message",
  title: "Maya",
  body,
  url: "/chat/c1",
  tag,
});

const failureLines = (spy: { mock: { calls: unknown[][] } }) =>
  spy.mock.calls
    .map((c) => JSON.parse(String(c[0])) as Record<string, unknown>)
    .filter((l) => l.what === "push_send");

describe("POST /my/push/test", () => {
  it("sends one push of type test to each of the member's browsers, encrypted and signed", async () => {
    const m = await registerMember();
    const subs = await subscribed(m, 2);
    const res = await m.client.json("POST", "/my/push/test");
    expect(res.status).toBe(202);

    for (const sub of subs) {
      const attempts = await waitForAttempts(sub);
      expect(attempts).toEqual([{ id: sub.id, status: 201 }]);
      const [push] = await pushesTo(sub);
      // The stand-in decrypted it with this browser's private key (RFC 8291).
      expect(plaintextOf(push!)).toEqual({
        type: "test",
        title: "Heartline",
        body: expect.any(String),
        url: "/settings/notifications",
        tag: "test",
      });
      expect(push!.headers.ttl).toMatch(/^[1-9]\d*$/);
      expect(push!.headers.urgency).toBe("normal");
      expect(push!.headers.topic).toBe(await pushTopic("test"));
      expect(push!.headers.content_type).toBe("application/octet-stream");
      // VAPID (RFC 8292): signed with the key browsers subscribe with, for this push service.
      expect(push!.vapid_key).toBe(env.VAPID_PUBLIC_KEY);
      expect(push!.jwt.aud).toBe(new URL(sub.endpoint).origin);
      expect(push!.jwt.sub).toBe(env.VAPID_SUBJECT);
      const now = Date.now() / 1000;
      expect(push!.jwt.exp).toBeGreaterThan(now);
      expect(push!.jwt.exp).toBeLessThanOrEqual(now + 24 * 60 * 60);
      // Padded: the length says nothing of what the push holds.
      expect(push!.body_length).toBe(4096);
    }
  });

  it("sends nothing to other members' browsers", async () => {
    const m = await registerMember();
    const other = await registerMember();
    const [mine] = await subscribed(m);
    const [theirs] = await subscribed(other);
    expect((await m.client.json("POST", "/my/push/test")).status).toBe(202);
    await waitForAttempts(mine!);
    // The other member's push service heard nothing (a test push of theirs would be there by now).
    expect(await attemptsAt(theirs!)).toEqual([]);
  });

  it("is accepted with no browser subscribed, and sends nothing", async () => {
    const m = await registerMember();
    expect((await m.client.json("POST", "/my/push/test")).status).toBe(202);
  });

  it("is for signed-in members only", async () => {
    expect((await new TestClient().json("POST", "/my/push/test")).status).toBe(401);
  });
});

describe("a push service's answer", () => {
  for (const status of [404, 410]) {
    it(`${status} (the browser unsubscribed) removes that subscription only`, async () => {
      const m = await registerMember();
      const [gone, kept] = await subscribed(m, 2);
      await pushServiceAnswers(gone!, status);
      expect((await m.client.json("POST", "/my/push/test")).status).toBe(202);
      expect(await waitForAttempts(gone!)).toEqual([{ id: gone!.id, status, problem: "as told" }]);
      expect(await eventually(async () => !(await stored(gone!.endpoint)))).toBe(true);
      expect(await stored(kept!.endpoint)).toBe(true);
      expect(await pushesTo(kept!)).toHaveLength(1);
    });
  }

  for (const status of [429, 500]) {
    it(`${status} keeps the subscription, is logged, and fails nothing`, async () => {
      const error = vi.spyOn(console, "error").mockImplementation(() => {});
      const m = await registerMember();
      const [sub] = await subscribed(m);
      await pushServiceAnswers(sub!, status, 1);
      const outcome = await sendPush(env, m.id, message("conversation:c1"));
      expect(outcome).toEqual({ sent: 0, removed: 0, failed: 1 });
      expect(await stored(sub!.endpoint)).toBe(true);
      const [line] = failureLines(error);
      expect(line).toMatchObject({
        event: "failure",
        level: "error",
        user_id: m.id,
        status,
        push_service: new URL(sub!.endpoint).origin,
      });
      // The endpoint is a capability: the log names its push service only.
      expect(JSON.stringify(line)).not.toContain(sub!.id);

      // Through the API: the request is accepted all the same.
      await pushServiceAnswers(sub!, status, 1);
      expect((await m.client.json("POST", "/my/push/test")).status).toBe(202);
      expect(await waitForAttempts(sub!, 2)).toHaveLength(2);
      expect(await stored(sub!.endpoint)).toBe(true);
      // The service is back: the next push arrives.
      expect(await sendPush(env, m.id, message("conversation:c1"))).toEqual({
        sent: 1,
        removed: 0,
        failed: 0,
      });
    });
  }

  it("403 for a browser that subscribed with another VAPID key: kept, and logged", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const m = await registerMember();
    const otherKey = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ]);
    const raw = new Uint8Array(
      (await crypto.subtle.exportKey("raw", otherKey.publicKey)) as ArrayBuffer,
    );
    const sub = await subscribeBrowser(
      btoa(String.fromCharCode(...raw))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, ""),
    );
    await m.client.json("POST", "/my/push/subscriptions", {
      endpoint: sub.endpoint,
      keys: sub.keys,
    });
    expect(await sendPush(env, m.id, message("t"))).toEqual({ sent: 0, removed: 0, failed: 1 });
    expect(await attemptsAt(sub)).toEqual([
      { id: sub.id, status: 403, problem: "k is not the key the browser subscribed with" },
    ]);
    expect(await stored(sub.endpoint)).toBe(true);
    expect(failureLines(error)[0]).toMatchObject({ status: 403 });
  });

  it("400 for a payload encrypted to other keys than the browser's", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const m = await registerMember();
    const sub = await subscribeBrowser();
    const stranger = await subscribeBrowser();
    const outcome = await sendPushTo(
      env,
      [{ id: "x", endpoint: sub.endpoint, ...stranger.keys }],
      message("t"),
      { userId: m.id },
    );
    expect(outcome).toEqual({ sent: 0, removed: 0, failed: 1 });
    expect(await attemptsAt(sub)).toEqual([
      {
        id: sub.id,
        status: 400,
        problem: "the payload does not decrypt with the subscription's keys",
      },
    ]);
  });

  it("a push service that cannot be reached is logged, and fails nothing", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const outcome = await sendPushTo(
      env,
      [
        {
          id: "unreachable",
          endpoint: "https://localhost:9/push/none",
          p256dh: (await subscribeBrowser()).keys.p256dh,
          auth: "AAECAwQFBgcICQoLDA0ODw",
        },
      ],
      message("conversation:c1"),
    );
    expect(outcome).toEqual({ sent: 0, removed: 0, failed: 1 });
    expect(failureLines(error)).toHaveLength(1);
  });
});

describe("sendPush", () => {
  it("sends the payload as given, with its urgency and TTL, to every browser of the member", async () => {
    const m = await registerMember();
    const subs = await subscribed(m, 2);
    const payload = message("conversation:c42", "Are you free on Friday?");
    const outcome = await sendPush(env, m.id, payload, { ttl: 3600, urgency: "high" });
    expect(outcome).toEqual({ sent: 2, removed: 0, failed: 0 });
    for (const sub of subs) {
      const [push] = await pushesTo(sub);
      expect(plaintextOf(push!)).toEqual(payload);
      expect(push!.headers).toMatchObject({ ttl: "3600", urgency: "high" });
    }
  });

  it("gives every push of a tag the same Topic, at most 32 URL-safe base64 characters", async () => {
    const m = await registerMember();
    const [sub] = await subscribed(m);
    await sendPush(env, m.id, message("conversation:c1", "one"));
    await sendPush(env, m.id, message("conversation:c1", "two"));
    await sendPush(env, m.id, message("conversation:c2", "three"));
    const topics = (await pushesTo(sub!)).map((p) => p.headers.topic);
    expect(topics).toHaveLength(3);
    expect(topics[0]).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    expect(topics[1]).toBe(topics[0]);
    expect(topics[2]).not.toBe(topics[0]);
    // The tag itself is not shown to the push service.
    expect(topics[0]).not.toContain("conversation");
    const long = await pushTopic("conversation:" + "x".repeat(500));
    expect(long).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it("does nothing for a member with no browser subscribed", async () => {
    const m = await registerMember();
    expect(await sendPush(env, m.id, message("t"))).toEqual({ sent: 0, removed: 0, failed: 0 });
  });

  it("sends nothing, and logs why, without a VAPID key pair", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const m = await registerMember();
    const [sub] = await subscribed(m);
    const noKeys = { ...env, VAPID_PRIVATE_KEY: undefined };
    expect(await sendPush(noKeys, m.id, message("t"))).toEqual({ sent: 0, removed: 0, failed: 1 });
    expect(failureLines(error)).toHaveLength(1);
    expect(await attemptsAt(sub!)).toEqual([]);
  });
});
