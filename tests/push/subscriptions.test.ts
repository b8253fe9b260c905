import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_PUSH_SUBSCRIPTIONS } from "~/server/push.server";
import { TestClient } from "../helpers/client";
import { registerMember } from "../helpers/members";
import { fetchWith, PRODUCTION } from "../helpers/worker";
import { subscribeBrowser } from "./browser";

async function rowsOf(userId: string) {
  const { results } = await env.DB.prepare(
    "SELECT id, endpoint, p256dh, auth FROM push_subscriptions WHERE user_id = ?1 ORDER BY created_at",
  )
    .bind(userId)
    .all<{ id: string; endpoint: string; p256dh: string; auth: string }>();
  return results;
}

async function rowAt(endpoint: string) {
  return env.DB.prepare("SELECT id, user_id FROM push_subscriptions WHERE endpoint = ?1")
    .bind(endpoint)
    .first<{ id: string; user_id: string }>();
}

describe("GET /my/push/key", () => {
  it("gives the VAPID public key: base64url of a 65-byte uncompressed P-256 point", async () => {
    const m = await registerMember();
    const res = await m.client.json<{ public_key: string }>("GET", "/my/push/key");
    expect(res.status).toBe(200);
    expect(res.body.public_key).toBe(env.VAPID_PUBLIC_KEY);
    expect(res.body.public_key).toMatch(/^[A-Za-z0-9_-]{87}$/);
    const bytes = Uint8Array.from(
      atob(res.body.public_key.replace(/-/g, "+").replace(/_/g, "/")),
      (c) => c.charCodeAt(0),
    );
    expect(bytes).toHaveLength(65);
    expect(bytes[0]).toBe(4);
    // A browser takes it as its applicationServerKey: it is a P-256 key.
    await expect(
      crypto.subtle.importKey("raw", bytes, { name: "ECDSA", namedCurve: "P-256" }, true, [
        "verify",
      ]),
    ).resolves.toBeTruthy();
  });

  it("is for signed-in members only", async () => {
    const res = await new TestClient().json("GET", "/my/push/key");
    expect(res.status).toBe(401);
  });
});

describe("POST /my/push/subscriptions", () => {
  it("stores a browser's subscription (201), and the same one again is the same row (200)", async () => {
    const m = await registerMember();
    const sub = await subscribeBrowser();
    const first = await m.client.json<{ id: string }>("POST", "/my/push/subscriptions", {
      endpoint: sub.endpoint,
      keys: sub.keys,
    });
    expect(first.status).toBe(201);
    expect(first.body.id).toMatch(/^[0-9a-z]{20}$/);

    const again = await m.client.json<{ id: string }>("POST", "/my/push/subscriptions", {
      endpoint: sub.endpoint,
      keys: sub.keys,
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(await rowsOf(m.id)).toEqual([
      { id: first.body.id, endpoint: sub.endpoint, p256dh: sub.keys.p256dh, auth: sub.keys.auth },
    ]);

    // The browser renewed its keys under the same endpoint: the row takes them.
    const renewed = await subscribeBrowser();
    const updated = await m.client.json<{ id: string }>("POST", "/my/push/subscriptions", {
      endpoint: sub.endpoint,
      keys: renewed.keys,
    });
    expect(updated.status).toBe(200);
    expect(updated.body.id).toBe(first.body.id);
    expect((await rowsOf(m.id)).map((r) => r.p256dh)).toEqual([renewed.keys.p256dh]);
  });

  it("moves an endpoint to the member who signed in on that browser since", async () => {
    const first = await registerMember();
    const second = await registerMember();
    const sub = await subscribeBrowser();
    const body = { endpoint: sub.endpoint, keys: sub.keys };
    const mine = await first.client.json<{ id: string }>("POST", "/my/push/subscriptions", body);
    expect(mine.status).toBe(201);

    const moved = await second.client.json<{ id: string }>("POST", "/my/push/subscriptions", body);
    expect(moved.status).toBe(201);
    expect(moved.body.id).not.toBe(mine.body.id);
    expect(await rowAt(sub.endpoint)).toEqual({ id: moved.body.id, user_id: second.id });
    expect(await rowsOf(first.id)).toEqual([]);
  });

  it("keeps a member's newest browsers only, up to the limit", async () => {
    const m = await registerMember();
    const endpoints: string[] = [];
    for (let i = 0; i <= MAX_PUSH_SUBSCRIPTIONS; i++) {
      const sub = await subscribeBrowser();
      endpoints.push(sub.endpoint);
      const res = await m.client.json("POST", "/my/push/subscriptions", {
        endpoint: sub.endpoint,
        keys: sub.keys,
      });
      expect(res.status).toBe(201);
    }
    const kept = (await rowsOf(m.id)).map((r) => r.endpoint);
    expect(kept).toHaveLength(MAX_PUSH_SUBSCRIPTIONS);
    expect(kept).not.toContain(endpoints[0]);
    expect(kept).toContain(endpoints.at(-1));
  });

  const valid = {
    endpoint: "https://push.example.test/send/abc",
    keys: {
      // A P-256 public key (65 bytes) and a 16-byte auth secret, base64url.
      p256dh:
        "BPM2s-DfmNAf153rQBSEttra3d0zumTdw4Fg2FO1nhT3ohrY3Boj4TPzvrGq05yZ59uI2OJ86QGtUfOP7Uv5sDU",
      auth: "AAECAwQFBgcICQoLDA0ODw",
    },
  };
  const BAD_INPUT: [string, unknown, string][] = [
    ["no endpoint", { keys: valid.keys }, "endpoint"],
    ["an endpoint that is not a URL", { ...valid, endpoint: "push me" }, "endpoint"],
    ["an ftp: endpoint", { ...valid, endpoint: "ftp://push.example.test/x" }, "endpoint"],
    [
      "an http: endpoint elsewhere",
      { ...valid, endpoint: "http://push.example.test/x" },
      "endpoint",
    ],
    [
      "an endpoint with credentials",
      { ...valid, endpoint: "https://user:pw@push.example.test/x" },
      "endpoint",
    ],
    [
      "an endpoint too long",
      { ...valid, endpoint: `https://p.test/${"a".repeat(2000)}` },
      "endpoint",
    ],
    ["no keys", { endpoint: valid.endpoint }, "keys"],
    ["no auth secret", { ...valid, keys: { p256dh: valid.keys.p256dh } }, "keys.auth"],
    ["a short auth secret", { ...valid, keys: { ...valid.keys, auth: "AAECAw" } }, "keys.auth"],
    [
      "an auth secret that is not base64url",
      { ...valid, keys: { ...valid.keys, auth: "!!!!" } },
      "keys.auth",
    ],
    [
      "a p256dh key of the wrong length",
      { ...valid, keys: { ...valid.keys, p256dh: valid.keys.auth } },
      "keys.p256dh",
    ],
    [
      "a p256dh key that is not uncompressed",
      { ...valid, keys: { ...valid.keys, p256dh: `A${valid.keys.p256dh.slice(1)}` } },
      "keys.p256dh",
    ],
    [
      "a p256dh key that is not a point of the curve",
      { ...valid, keys: { ...valid.keys, p256dh: `BA${"A".repeat(85)}` } },
      "keys.p256dh",
    ],
  ];

  for (const [what, body, field] of BAD_INPUT) {
    it(`refuses ${what} (422, naming ${field}) and stores nothing`, async () => {
      const m = await registerMember();
      const res = await m.client.json<{ message: string; errors: Record<string, string[]> }>(
        "POST",
        "/my/push/subscriptions",
        body,
      );
      expect(res.status).toBe(422);
      expect(res.body.message).toEqual(expect.any(String));
      expect(Object.keys(res.body.errors)).toEqual([field]);
      expect(res.body.errors[field]![0]).toEqual(expect.any(String));
      expect(await rowsOf(m.id)).toEqual([]);
    });
  }

  it("accepts a push service on this machine over http in development and the tests", async () => {
    const m = await registerMember();
    for (const endpoint of ["http://127.0.0.1:9/push/a", "http://localhost:9/push/b"]) {
      const res = await m.client.json("POST", "/my/push/subscriptions", { ...valid, endpoint });
      expect(res.status).toBe(201);
    }
  });

  it("refuses http, and a push service on this machine, in production", async () => {
    const m = await registerMember();
    const post = (endpoint: string) =>
      fetchWith(PRODUCTION, "/my/push/subscriptions", {
        method: "POST",
        ip: m.client.ip,
        headers: {
          Accept: "application/json",
          "Content-Type": "application/json",
          // Production's cookies carry the __Host- prefix (app/server/cookies.server.ts).
          Cookie: [...m.client.cookies].map(([k, v]) => `__Host-${k}=${v}`).join("; "),
          "X-CSRF-Token": m.client.csrfToken,
        },
        body: JSON.stringify({ ...valid, endpoint }),
      });
    for (const endpoint of [
      "http://127.0.0.1:9/push/a",
      "http://localhost:9/push/b",
      "https://localhost:9/push/c",
      "https://10.0.0.1/push/d",
    ]) {
      const res = await post(endpoint);
      expect(res.status, endpoint).toBe(422);
      const body = (await res.json()) as { errors: Record<string, string[]> };
      expect(Object.keys(body.errors)).toEqual(["endpoint"]);
    }
    expect(await rowsOf(m.id)).toEqual([]);
    // A push service's https endpoint is what production takes.
    const taken = await post(`https://push.example.test/send/${crypto.randomUUID()}`);
    expect(taken.status).toBe(201);
  });

  it("is for signed-in members only", async () => {
    const endpoint = `https://push.example.test/send/${crypto.randomUUID()}`;
    const res = await new TestClient().json("POST", "/my/push/subscriptions", {
      ...valid,
      endpoint,
    });
    expect(res.status).toBe(401);
    expect(await rowAt(endpoint)).toBeNull();
  });
});

describe("DELETE /my/push/subscriptions", () => {
  it("removes the member's subscription at that endpoint (204), and again is still 204", async () => {
    const m = await registerMember();
    const sub = await subscribeBrowser();
    const other = await subscribeBrowser();
    for (const s of [sub, other]) {
      await m.client.json("POST", "/my/push/subscriptions", { endpoint: s.endpoint, keys: s.keys });
    }
    const res = await m.client.json("DELETE", "/my/push/subscriptions", { endpoint: sub.endpoint });
    expect(res.status).toBe(204);
    expect((await rowsOf(m.id)).map((r) => r.endpoint)).toEqual([other.endpoint]);
    const again = await m.client.json("DELETE", "/my/push/subscriptions", {
      endpoint: sub.endpoint,
    });
    expect(again.status).toBe(204);
  });

  it("never removes another member's subscription", async () => {
    const owner = await registerMember();
    const stranger = await registerMember();
    const sub = await subscribeBrowser();
    await owner.client.json("POST", "/my/push/subscriptions", {
      endpoint: sub.endpoint,
      keys: sub.keys,
    });
    const res = await stranger.client.json("DELETE", "/my/push/subscriptions", {
      endpoint: sub.endpoint,
    });
    expect(res.status).toBe(204);
    expect(await rowAt(sub.endpoint)).toMatchObject({ user_id: owner.id });
  });

  it("refuses a body without an endpoint (422), and signed-out requests (401)", async () => {
    const m = await registerMember();
    const bad = await m.client.json<{ errors: Record<string, string[]> }>(
      "DELETE",
      "/my/push/subscriptions",
      {},
    );
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["endpoint"]);
    const signedOut = await new TestClient().json("DELETE", "/my/push/subscriptions", {
      endpoint: "https://push.example.test/x",
    });
    expect(signedOut.status).toBe(401);
  });
});

describe("a member's subscriptions", () => {
  it("go with the member's account", async () => {
    const m = await registerMember();
    const sub = await subscribeBrowser();
    await m.client.json("POST", "/my/push/subscriptions", {
      endpoint: sub.endpoint,
      keys: sub.keys,
    });
    expect(await rowsOf(m.id)).toHaveLength(1);
    expect((await m.client.json("DELETE", "/my/account")).status).toBe(200);
    expect(await rowsOf(m.id)).toEqual([]);
    expect(await rowAt(sub.endpoint)).toBeNull();
  });
});
