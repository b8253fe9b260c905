/**
 * The Worker as bench/chat runs it: the product's Worker (worker/index.ts, every export as it is)
 * with its D1 binding counted. On the first request the methods of the D1 binding's classes
 * (`batch`, `exec`, and a prepared statement's `first`, `all`, `raw`, `run`) are wrapped, in this
 * isolate only, so that every D1 round trip of the Worker and of its Durable Objects (which share
 * the isolate in workerd) adds to the counts; `GET /__bench/d1` answers them. Nothing in the
 * product's code changes: the benchmark makes this file the Worker's entry in its own config.
 *
 * Counted: round trips (`calls`), batches, and statements split into reads and writes (a
 * statement that inserts, updates, deletes, replaces or changes the schema is a write), and each
 * statement by its first words (`statements`, "read: SELECT …" or "write: INSERT …").
 *
 * Each statement is also counted by the entry point it ran under (`entries`): the Worker's request
 * (`GET /notifications`, `upgrade /ws/me`, ids in paths as `:id`), or a Durable Object's handler
 * or RPC method (`MemberHub.fetch`, `PresenceRoom.webSocketMessage`, `MemberHub.claimClientId`),
 * the innermost one (an async context follows the handler's awaits). Upgrades the Worker saw are
 * counted too (`upgrades`), and the statements made under an upgrade, in the Worker or in the
 * Durable Object it reached with it (`upgradeStatements`): bench/storm's statements per upgrade.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Env } from "~/server/env.server";
import worker, * as entries from "../../worker/index";

export * from "../../worker/index";

export interface D1Counts {
  calls: number;
  batches: number;
  /** Batches with at least one write in them. */
  writeBatches: number;
  reads: number;
  writes: number;
  statements: Record<string, number>;
  /** Statements by the entry point they ran under. */
  entries: Record<string, number>;
  /** Websocket upgrades the Worker received, and the statements made under one. */
  upgrades: number;
  upgradeStatements: number;
}

// Counts for the whole run (a benchmark's instrument, not per-request state).
const counts: D1Counts = {
  calls: 0,
  batches: 0,
  writeBatches: 0,
  reads: 0,
  writes: 0,
  statements: {},
  entries: {},
  upgrades: 0,
  upgradeStatements: 0,
};
let wrapped = false;

/** The entry point a statement runs under, and whether it serves a websocket upgrade. */
const entry = new AsyncLocalStorage<{ name: string; upgrade: boolean }>();
const isUpgrade = (request: Request) => request.headers.get("Upgrade") === "websocket";

/** A request's entry name: method (or `upgrade`) and path, ids as `:id`. */
function requestEntry(request: Request): string {
  const path = new URL(request.url).pathname
    .split("/")
    .map((part) => (part.length >= 16 || /\d{3}/.test(part) ? ":id" : part))
    .join("/");
  return `${isUpgrade(request) ? "upgrade" : request.method} ${path}`;
}

/**
 * Every method of the Durable Object classes the Worker exports runs under its own entry
 * (`Class.method`); `fetch` with a websocket upgrade counts as part of the upgrade.
 */
for (const value of Object.values(entries)) {
  if (typeof value !== "function") continue;
  const proto = (value as { prototype?: object }).prototype;
  if (!proto || typeof Reflect.get(proto, "fetch") !== "function") continue;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const original = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
    if (name === "constructor" || typeof original !== "function") continue;
    const label = `${value.name}.${name}`;
    Reflect.set(proto, name, function (this: unknown, ...args: unknown[]) {
      const upgrade = name === "fetch" && args[0] instanceof Request && isUpgrade(args[0]);
      return entry.run({ name: label, upgrade }, () =>
        (original as (...a: unknown[]) => unknown).apply(this, args),
      );
    });
  }
}

const WRITE =
  /^\s*(?:INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b|^\s*WITH\b[\s\S]*\b(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;

/** Counts one statement; true when it writes. */
function countStatement(sql: string): boolean {
  const context = entry.getStore();
  const name = context?.name ?? "(no entry)";
  counts.entries[name] = (counts.entries[name] ?? 0) + 1;
  if (context?.upgrade) counts.upgradeStatements += 1;
  const write = WRITE.test(sql);
  if (write) counts.writes += 1;
  else counts.reads += 1;
  const key = `${write ? "write" : "read"}: ${sql.replace(/\s+/g, " ").trim().slice(0, 72)}`;
  counts.statements[key] = (counts.statements[key] ?? 0) + 1;
  return write;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

function wrapMethod(proto: object, name: string, before: (self: unknown, args: unknown[]) => void) {
  const original = Reflect.get(proto, name) as Method | undefined;
  if (typeof original !== "function") throw new Error(`D1 binding without ${name}()`);
  Reflect.set(proto, name, function (this: unknown, ...args: unknown[]) {
    before(this, args);
    return original.apply(this, args);
  });
}

function wrapD1(db: D1Database) {
  wrapped = true;
  const database = Object.getPrototypeOf(db) as object;
  const statement = Object.getPrototypeOf(db.prepare("SELECT 1")) as object;
  const sqlOf = (s: unknown) => String((s as { statement?: unknown }).statement ?? "");
  for (const name of ["first", "all", "raw", "run"]) {
    wrapMethod(statement, name, (self) => {
      counts.calls += 1;
      countStatement(sqlOf(self));
    });
  }
  wrapMethod(database, "batch", (_self, [statements]) => {
    counts.calls += 1;
    counts.batches += 1;
    let writes = 0;
    for (const s of statements as unknown[]) if (countStatement(sqlOf(s))) writes += 1;
    if (writes > 0) counts.writeBatches += 1;
  });
  wrapMethod(database, "exec", (_self, [sql]) => {
    counts.calls += 1;
    for (const line of String(sql).trim().split("\n")) countStatement(line);
  });
}

export default {
  fetch(request, env, ctx) {
    if (!wrapped) wrapD1(env.DB);
    if (new URL(request.url).pathname === "/__bench/d1") return Response.json(counts);
    const upgrade = isUpgrade(request);
    if (upgrade) counts.upgrades += 1;
    return entry.run({ name: requestEntry(request), upgrade }, () =>
      worker.fetch(request, env, ctx),
    );
  },
} satisfies ExportedHandler<Env>;
