/**
 * The Worker as bench/push runs it: bench/chat/d1-counting-worker.ts (the product's Worker with
 * its D1 binding counted, `GET /__bench/d1`), and each D1 statement also attributed by the call
 * stack it was made from, so that the statements of the away-push path (deciding and sending a
 * push: the member hub's away code and alarm, durable-objects/away-pushes.ts, the push sending of
 * app/server/push.server.ts and what away.server.ts reads) are told apart from the message send's
 * own, whatever else runs at the same time. V8 keeps the `await` chain in a stack
 * (`at async AwayPushes.alarm`), so a statement awaited anywhere under the hub's alarm shows it.
 *
 * `GET /__bench/d1-push` answers `{statements, stacks}`: per statement ("read: SELECT …", as the
 * counting worker names it), how many ran on the push path, and for each the application frames
 * of its first stack. Nothing in the product's code changes: the benchmark makes this file the
 * Worker's entry in its own config, beside bench/chat/d1-counting-worker.ts.
 */
import type { Env } from "~/server/env.server";
import counting from "../chat/d1-counting-worker";

export * from "../chat/d1-counting-worker";

export interface PushPathD1 {
  /** Statements made on the push path, by statement. */
  statements: Record<string, number>;
  /** The application frames of the first stack of each statement counted. */
  stacks: Record<string, string[]>;
}

/**
 * A frame of the away-push path: the hub's away half, its alarm and away entry points, what
 * they call to read a member's push context or name, and the push sending.
 */
const PUSH_PATH =
  /\b(?:AwayPushes\d*\.|MemberHub\d*\.(?:alarm|awayMessage)\b|sendPushTo\d*\b|sendPush\d*\b|loadPushContext\d*\b|loadActorName\d*\b)/;

const pushPath: PushPathD1 = { statements: {}, stacks: {} };
let wrapped = false;

const WRITE =
  /^\s*(?:INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b|^\s*WITH\b[\s\S]*\b(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;

/** The statement's name as bench/chat/d1-counting-worker.ts counts it. */
const keyOf = (sql: string) =>
  `${WRITE.test(sql) ? "write" : "read"}: ${sql.replace(/\s+/g, " ").trim().slice(0, 72)}`;

/**
 * The functions of the current call's stack, async frames included (the bundle is one file: its
 * locations say nothing), without this file's own and anonymous ones.
 */
function stack(): string[] {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 80;
  const text = new Error().stack ?? "";
  Error.stackTraceLimit = limit;
  return text
    .split("\n")
    .slice(1)
    .map((line) => /^\s*at (?:async )?(.+?) \(/.exec(line)?.[1] ?? "")
    .filter((name) => name && !/^(?:stack|attribute)$|<anonymous>$/.test(name));
}

function attribute(sqls: string[]) {
  const frames = stack();
  if (!frames.some((frame) => PUSH_PATH.test(frame))) return;
  for (const sql of sqls) {
    const key = keyOf(sql);
    pushPath.statements[key] = (pushPath.statements[key] ?? 0) + 1;
    pushPath.stacks[key] ??= frames.slice(0, 12);
  }
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
    wrapMethod(statement, name, (self) => attribute([sqlOf(self)]));
  }
  wrapMethod(database, "batch", (_self, [statements]) =>
    attribute((statements as unknown[]).map(sqlOf)),
  );
  wrapMethod(database, "exec", (_self, [sql]) => attribute(String(sql).trim().split("\n")));
}

export default {
  fetch(request, env, ctx) {
    if (!wrapped) wrapD1(env.DB);
    if (new URL(request.url).pathname === "/__bench/d1-push") return Response.json(pushPath);
    return counting.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
