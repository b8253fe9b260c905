/**
 * Hostile input, kept in CI (issue 12): fast-check sends random and malformed bodies, query
 * strings, path parameters, headers, multipart parts and websocket frames to every route the
 * Worker mounts (the Hono API of docs/api.md and every Remix page) and to every socket. The answer
 * is never a 5xx (a 4xx carries a message), and nothing in D1, R2 or a room changes.
 *
 * The seed is printed; replay a failure with `FUZZ_SEED=<seed> npx vitest run
 * tests/security/fuzz.test.ts` (vitest.config.ts hands FUZZ_SEED to the tests).
 */
import type { ServerBuild } from "@remix-run/cloudflare";
import { env } from "cloudflare:test";
import fc from "fast-check";
import { FRAME_FLOOD_CLOSE, SOCKET_FRAME_LIMIT } from "~/realtime/frames";
import { isSafeText } from "~/schemas/text";
import { beforeAll, describe, expect, it } from "vitest";
// @ts-ignore -- the Remix server build exists once `npm run build` has run (as for the Worker).
import * as remixBuild from "../../build/server/index.js";
import { createApp } from "../../worker/app";
import { conversationPair, type Member } from "../chat/helpers";
import { TestClient } from "../helpers/client";
import { openSocket, type TestSocket } from "../helpers/sockets";
import { memberWithPhoto } from "../safety/helpers";

const build = remixBuild as unknown as ServerBuild;
const SEED = Number(env.FUZZ_SEED) || Date.now() % 2_147_483_647;
const RUNS = Number(env.FUZZ_RUNS) || 80;
console.info(
  `fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED} npx vitest run tests/security/fuzz.test.ts)`,
);
const params = (runs = RUNS) => ({ seed: SEED, numRuns: runs, endOnFailure: true });

// ---------------------------------------------------------------------------------------------
// What exists

interface Route {
  method: string;
  path: string;
}

/** Every Hono endpoint and every Remix page (GET and POST), as `:param` patterns. */
function allRoutes(): Route[] {
  const app = createApp(build);
  const hono = app.routes
    .filter((r) => r.method !== "ALL")
    .map((r) => ({ method: r.method, path: r.path }));
  const routes = build.routes;
  const fullPath = (id: string): string => {
    const route = routes[id];
    if (!route) return "";
    const parent = route.parentId ? fullPath(route.parentId) : "";
    return [parent, route.path ?? ""].filter(Boolean).join("/");
  };
  const pages = Object.values(routes)
    .filter((r) => r.id !== "root")
    .flatMap((r) => {
      const path = `/${fullPath(r.id)}`.replace(/\*$/, "no-such-page");
      return [
        { method: "GET", path },
        { method: "POST", path },
      ];
    });
  const seen = new Set<string>();
  return [...hono, ...pages].filter((r) => {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Requests a signed-in member may make without hostile input and that are meant to change
 * something (signing out, deleting the account, marking everything read): sent only without a
 * session. Everything else gets the member's session and CSRF token.
 */
const NO_INPUT = new Set([
  "POST /logout",
  "DELETE /my/account",
  "POST /notifications/read-all",
  "POST /me/heartbeat",
  "POST /email/verification-notification",
  "POST /logout (page)",
]);

/** Field names the API reads: a body always carries some of them with a value of the wrong kind. */
const FIELDS = [
  "email",
  "password",
  "password_confirmation",
  "current_password",
  "username",
  "dateOfBirth",
  "token",
  "user_id",
  "message",
  "client_id",
  "gift_id",
  "reason",
  "reason_type",
  "details",
  "message_id",
  "channel_name",
  "hide_online",
  "ids",
  "bio",
  "firstName",
  "interests",
  "ageRange",
  "location",
  "keywords",
  "filters",
  "plan_id",
  "pack_id",
  "billing_cycle",
  "intent",
  "id",
  "like",
  "match",
  "message_received",
  "gift",
  "profile_view",
];

// ---------------------------------------------------------------------------------------------
// Arbitraries

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\u202e",
    "\ud800",
    "\u001b[2J",
    "../../etc/passwd",
    "%00",
    "%2e%2e%2f",
    "' OR 1=1 --",
    '"; DROP TABLE users; --',
    "<script>alert(1)</script>",
    "NEAR(",
    "*",
    "1e300",
    "-1",
    "NaN",
    "x".repeat(5000),
  ),
);
/** A value of the wrong kind for any field (never a plain valid string). */
const wrongKind = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.constantFrom({ $ne: 1 }, { __proto__: { admin: true } }, [[[[[]]]]]),
);
const jsonBody = fc
  .tuple(
    fc.dictionary(
      fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 10 })),
      fc.oneof(hostileString, wrongKind),
      { maxKeys: 6 },
    ),
    fc.subarray(FIELDS, { minLength: FIELDS.length, maxLength: FIELDS.length }),
    wrongKind,
  )
  .map(([random, fields, poison]) => {
    const body: Record<string, unknown> = { ...random };
    for (const f of fields) body[f] = poison === null ? 12345 : poison;
    return body;
  });
const rawBody = fc.oneof(
  jsonBody.map((b) => ({ type: "application/json", body: JSON.stringify(b) })),
  fc.string({ maxLength: 200 }).map((s) => ({ type: "application/json", body: s })),
  fc
    .dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 10 })), hostileString, {
      maxKeys: 6,
    })
    .map((d) => {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(d)) form.append(k, v);
      for (const f of FIELDS) form.append(f, "\u0000");
      return { type: "application/x-www-form-urlencoded", body: form.toString() };
    }),
  fc.uint8Array({ maxLength: 300 }).map((b) => ({ type: "application/octet-stream", body: b })),
  fc.constantFrom(
    { type: "text/plain", body: "hello" },
    { type: "application/json", body: "[]" },
    { type: "application/json", body: "null" },
    { type: "application/json", body: '{"__proto__":{"role":"moderator"}}' },
    { type: "multipart/form-data; boundary=x", body: "--x\r\nbroken" },
  ),
);
const pathParam = fc.oneof(
  hostileString,
  fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
  fc.constantFrom("0", "-1", "1e300", "null", "undefined", "%", "%2F"),
);
const query = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      "page",
      "per_page",
      "cursor",
      "keywords",
      "age_min",
      "age_max",
      "gender",
      "country",
      "interests",
      "online_only",
      "list",
      "redirectTo",
      "auth",
      "_data",
      "expires",
      "signature",
      "email",
      "status",
      "conversation",
    ),
    fc.string({ maxLength: 8 }),
  ),
  hostileString,
  { maxKeys: 5 },
);
/** Header values must be printable bytes; anything else cannot be sent. */
const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});
const headers = fc.record(
  {
    Accept: fc.oneof(fc.constantFrom("application/json", "text/html", "*/*", ""), headerValue),
    "X-Heartline-Version": headerValue,
    "Sec-Fetch-Site": fc.constantFrom("cross-site", "same-origin", "none", "bogus"),
    Origin: fc.constantFrom("https://evil.example", "null", "http://localhost"),
    "If-None-Match": headerValue,
    Range: headerValue,
    "X-Forwarded-For": headerValue,
    Cookie: headerValue,
  },
  { requiredKeys: [] },
);

/** A path segment as a client would encode it (lone surrogates as their raw UTF-8 bytes). */
function segment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80";
  }
}

function fill(path: string, values: string[]): string {
  let i = 0;
  return path.replace(/:[A-Za-z_]+(\{[^}]*\})?\??/g, () =>
    segment(values[i++ % values.length] ?? "x"),
  );
}

function queryString(q: Record<string, string>): string {
  const s = new URLSearchParams(q).toString();
  return s ? `?${s}` : "";
}

// ---------------------------------------------------------------------------------------------
// What must not change

async function d1Snapshot(): Promise<Record<string, string>> {
  const tables = await env.DB.prepare(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
       AND name NOT LIKE '_cf_%' AND name NOT IN ('rate_limits', 'd1_migrations')
     ORDER BY name`,
  ).all<{ name: string }>();
  const snapshot: Record<string, string> = {};
  for (const { name } of tables.results) {
    snapshot[name] = JSON.stringify(await env.DB.prepare(`SELECT * FROM "${name}"`).raw());
  }
  return snapshot;
}

async function r2Snapshot(): Promise<string> {
  const listed = await env.PHOTOS.list();
  return listed.objects.map((o) => `${o.key}:${o.size}:${o.etag}`).join("\n");
}

async function expectAnswer(res: Response, label: string) {
  expect(res.status, label).toBeLessThan(500);
  const text = await res.text();
  if (res.status >= 400 && (res.headers.get("Content-Type") ?? "").includes("application/json")) {
    const body = JSON.parse(text) as { message?: unknown };
    expect(typeof body.message, `${label}: ${text.slice(0, 200)}`).toBe("string");
    expect(String(body.message).length, label).toBeGreaterThan(0);
    expect(text, label).not.toMatch(/at .*\.(ts|js):\d+/);
  }
}

// ---------------------------------------------------------------------------------------------

let alice: Member;
let bob: Member;
let conversationId: string;
let routes: Route[];

beforeAll(async () => {
  const pair = await conversationPair();
  alice = pair.alice;
  bob = pair.bob;
  conversationId = pair.id;
  await memberWithPhoto();
  await alice.client.loadCsrfFromPage("/dashboard");
  routes = allRoutes();
});

describe("hostile input (fast-check)", () => {
  it("every route, without a session: never a 5xx, nothing changes", async () => {
    const before = [await d1Snapshot(), await r2Snapshot()];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(pathParam, { minLength: 1, maxLength: 3 }),
        query,
        rawBody,
        headers,
        async (route, values, q, body, extra) => {
          const url = `${fill(route.path, values)}${queryString(q)}`;
          const res = await new TestClient().fetch(url, {
            method: route.method,
            headers: { ...extra, "Content-Type": body.type },
            body: route.method === "GET" || route.method === "HEAD" ? undefined : body.body,
          });
          await expectAnswer(res, `${route.method} ${url}`);
        },
      ),
      params(RUNS * 3),
    );
    expect([await d1Snapshot(), await r2Snapshot()]).toEqual(before);
  }, 120_000);

  it("every route, signed in with a valid CSRF token and hostile input: never a 5xx, nothing changes", async () => {
    const before = [await d1Snapshot(), await r2Snapshot()];
    const targets = routes.filter(
      (r) =>
        !NO_INPUT.has(`${r.method} ${r.path}`) &&
        !NO_INPUT.has(`${r.method} ${r.path} (page)`) &&
        !r.path.startsWith("/ws/"),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...targets),
        fc.array(pathParam, { minLength: 1, maxLength: 3 }),
        query,
        rawBody,
        async (route, values, q, body) => {
          const url = `${fill(route.path, values)}${queryString(q)}`;
          const mutating = route.method !== "GET" && route.method !== "HEAD";
          const res = await alice.client.fetch(url, {
            method: route.method,
            headers: {
              Accept: "application/json",
              "Content-Type": body.type,
              "X-CSRF-Token": alice.client.csrfToken,
            },
            body: mutating ? body.body : undefined,
          });
          await expectAnswer(res, `${route.method} ${url} ${String(body.body).slice(0, 200)}`);
        },
      ),
      params(RUNS * 3),
    );
    expect([await d1Snapshot(), await r2Snapshot()]).toEqual(before);
    // The member is still signed in: nothing above ended the session.
    expect((await alice.client.json("GET", "/my/profile")).status).toBe(200);
  }, 120_000);

  it("multipart uploads of random parts store nothing", async () => {
    const before = [await d1Snapshot(), await r2Snapshot()];
    const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
    const jpeg = [0xff, 0xd8, 0xff, 0xe0];
    const part = fc.record({
      name: fc.oneof(
        fc.constantFrom("photos", "photos[]", "photo", ""),
        fc.string({ maxLength: 10 }),
      ),
      filename: fc.oneof(fc.constantFrom("a.png", "a.jpg", "../x.png", "a.svg", ""), hostileString),
      type: fc.constantFrom(
        "image/png",
        "image/jpeg",
        "image/webp",
        "text/html",
        "image/svg+xml",
        "",
      ),
      bytes: fc.oneof(
        fc.uint8Array({ maxLength: 400 }),
        fc.uint8Array({ maxLength: 400 }).map((b) => Uint8Array.from([...png, ...b])),
        fc.uint8Array({ maxLength: 400 }).map((b) => Uint8Array.from([...jpeg, ...b])),
        fc.constant(new TextEncoder().encode("<html><script>alert(1)</script>")),
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(part, { maxLength: 4 }), async (parts) => {
        const form = new FormData();
        for (const p of parts) {
          const file = new File(
            [p.bytes as Uint8Array<ArrayBuffer>],
            p.filename.replace(/\\$/, "_"),
            {
              type: p.type,
            },
          );
          // FormData itself refuses a name or file name ending in a backslash.
          form.append(p.name.replace(/\\$/, "_"), file);
        }
        const res = await alice.client.fetch("/my/photos", {
          method: "POST",
          headers: { Accept: "application/json", "X-CSRF-Token": alice.client.csrfToken },
          body: form,
        });
        await expectAnswer(
          res,
          `POST /my/photos ${JSON.stringify(parts.map((p) => [p.name, p.type, p.bytes.length]))}`,
        );
        expect(res.status).toBeGreaterThanOrEqual(400);
      }),
      params(RUNS),
    );
    expect([await d1Snapshot(), await r2Snapshot()]).toEqual(before);
  }, 120_000);

  it("random frames on every socket change nothing in D1 or the rooms", async () => {
    const before = await d1Snapshot();
    const sockets: [string, TestSocket][] = [];
    for (const path of [`/ws/chat/${conversationId}`, "/ws/me", "/ws/presence"]) {
      const opened = await openSocket(alice.client, path);
      expect(opened.status, path).toBe(101);
      sockets.push([path, opened.socket!]);
    }
    const listening = await openSocket(bob.client, `/ws/chat/${conversationId}`);
    expect(listening.status).toBe(101);
    const VALID = new Set(["typing", "read", "send", "ping", "watch"]);
    const frame = fc
      .oneof(
        fc.string({ maxLength: 200 }),
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        fc
          .record({
            type: fc.oneof(
              fc.constantFrom("message", "watch", "send", "typing", "error", "here"),
              fc.string({ maxLength: 10 }),
            ),
            message: fc.oneof(hostileString, wrongKind),
            client_id: fc.oneof(hostileString, wrongKind),
            user_ids: fc.oneof(wrongKind, fc.array(hostileString, { maxLength: 600 })),
          })
          .map((f) => JSON.stringify(f)),
        fc.uint8Array({ maxLength: 100 }),
      )
      .filter((f) => {
        if (typeof f !== "string") return true;
        try {
          const parsed = JSON.parse(f) as {
            type?: unknown;
            message?: unknown;
            client_id?: unknown;
            user_ids?: unknown;
          };
          if (!parsed || typeof parsed !== "object" || !VALID.has(String(parsed.type))) return true;
          // A well-formed frame of a kind the rooms accept would (rightly) do something.
          if (parsed.type === "send")
            return (
              typeof parsed.message !== "string" ||
              typeof parsed.client_id !== "string" ||
              !/^[A-Za-z0-9_-]{1,64}$/.test(parsed.client_id) ||
              !parsed.message.trim() ||
              !isSafeText(parsed.message, { multiline: true })
            );
          if (parsed.type === "watch")
            return !Array.isArray(parsed.user_ids) || parsed.user_ids.length > 500;
          return false;
        } catch {
          return true;
        }
      });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...sockets), frame, async ([, socket], f) => {
        socket.ws.send(f);
      }),
      params(RUNS * 2),
    );
    // Each room still answers, and the other member heard no message. A typing frame after the
    // others on Alice's chat socket (the frames above are never a valid typing) reaches Bob once
    // the room has handled every frame before it.
    const [, chat] = sockets[0]!;
    chat.ws.send(JSON.stringify({ type: "typing" }));
    await listening.socket!.next((f) => f.type === "typing");
    for (const [path, socket] of sockets) {
      expect(socket.ws.readyState, path).toBe(WebSocket.OPEN);
    }
    expect(listening.socket!.frames.filter((f) => f.type === "message")).toEqual([]);
    expect(await d1Snapshot()).toEqual(before);
    const check = await alice.client.json(
      "POST",
      `/chat/conversations/${conversationId}/messages`,
      {
        message: "still working",
      },
    );
    expect(check.status).toBe(201);
    await listening.socket!.next((f) => f.type === "message");
    for (const [, socket] of sockets) socket.close();
    listening.socket!.close();
  }, 120_000);

  it("a flood of hostile frames closes each socket with 4429, and what it sends past the limit is not heard", async () => {
    const pair = await conversationPair();
    const listening = await openSocket(pair.bob.client, `/ws/chat/${pair.id}`);
    expect(listening.status).toBe(101);
    const hostile = fc.sample(
      fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        fc.uint8Array({ maxLength: 100 }),
      ),
      { seed: SEED, numRuns: SOCKET_FRAME_LIMIT.max },
    );
    const late = `past the limit ${crypto.randomUUID()}`;
    const valid: Record<string, string> = {
      [`/ws/chat/${pair.id}`]: JSON.stringify({ type: "send", message: late, client_id: "late-1" }),
      // (A ping would not count: the runtime answers it without waking the hub.)
      "/ws/me": JSON.stringify({ type: "read" }),
      "/ws/presence": JSON.stringify({ type: "watch", user_ids: [pair.bob.id] }),
    };
    for (const [path, frame] of Object.entries(valid)) {
      const opened = await openSocket(pair.alice.client, path);
      expect(opened.status, path).toBe(101);
      const ws = opened.socket!.ws;
      const code = new Promise<number>((resolve) =>
        ws.addEventListener("close", (event) => resolve(event.code)),
      );
      // The limit's worth of hostile frames, then well-formed ones: those are past the limit.
      // The rooms count in fixed windows: the burst starts early in one, so that it is counted
      // in one window.
      const windowMs = SOCKET_FRAME_LIMIT.windowSeconds * 1000;
      const into = Date.now() % windowMs;
      if (into > windowMs / 2) await new Promise((r) => setTimeout(r, windowMs - into + 20));
      for (const f of [...hostile, frame, frame, frame]) {
        try {
          ws.send(f);
        } catch {
          break;
        }
      }
      expect(await code, path).toBe(FRAME_FLOOD_CLOSE);
    }
    // The message sent past the limit was neither stored nor delivered; the room still works.
    const messages = await pair.alice.client.json<{ messages: { message: string }[] }>(
      "GET",
      `/chat/conversations/${pair.id}/messages`,
    );
    expect(messages.status).toBe(200);
    expect(messages.body.messages.map((m) => m.message)).not.toContain(late);
    expect(listening.socket!.frames.filter((f) => f.type === "message")).toEqual([]);
    const check = await pair.alice.client.json("POST", `/chat/conversations/${pair.id}/messages`, {
      message: "after the flood",
    });
    expect(check.status).toBe(201);
    await listening.socket!.next((f) => f.type === "message");
    listening.socket!.close();
  }, 60_000);
});
