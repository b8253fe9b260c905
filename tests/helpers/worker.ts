import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../worker/index";
import { nextIp } from "./client";

/**
 * Calls the Worker directly with a changed environment (SELF always runs the test configuration):
 * for behaviour that depends on APP_ENV or on a binding that fails.
 */
export async function fetchWith(
  overrides: Partial<Cloudflare.Env>,
  path: string,
  init: RequestInit & { ip?: string } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("CF-Connecting-IP", init.ip ?? nextIp());
  const request = new Request(`http://localhost${path}`, {
    redirect: "manual",
    ...init,
    headers,
  }) as Request<unknown, IncomingRequestCfProperties>;
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/**
 * The environment of a production deploy: mail goes out through Resend, payments through Stripe's
 * live mode, and nothing of development is set (the Worker refuses to serve otherwise; see
 * productionProblems). No test sends mail or calls Stripe with it.
 */
export const PRODUCTION: Partial<Cloudflare.Env> = {
  APP_ENV: "production",
  MAIL_TRANSPORT: "resend",
  RESEND_API_KEY: "re_test_not_used",
  DEV_MAILBOX: undefined,
  STRIPE_SECRET_KEY: "sk_live_not_used",
  STRIPE_API_BASE: undefined,
};

/**
 * A stand-in D1 binding's `withSession`: the Worker gives every request a session
 * (app/server/d1-sessions.server.ts), whose statements must go through the stand-in's own
 * `prepare` and `batch`.
 */
export function sessionsThrough(db: {
  prepare(query: string): D1PreparedStatement;
  batch(statements: D1PreparedStatement[]): Promise<D1Result<unknown>[]>;
}) {
  return () =>
    ({
      prepare: (query: string) => db.prepare(query),
      batch: (statements: D1PreparedStatement[]) => db.batch(statements),
      getBookmark: () => null,
    }) as unknown as D1DatabaseSession;
}

/** A D1 binding whose every query fails, as when the database is unreachable. */
export function failingDatabase(message: string): D1Database {
  const fail = () => {
    throw new Error(message);
  };
  const db = { prepare: fail, batch: fail, exec: fail, dump: fail };
  return { ...db, withSession: sessionsThrough(db) } as never;
}

/**
 * The test database, except that a query matching `pattern` fails with `message`: the session is
 * read, the page's own query fails.
 */
export function databaseFailingOn(pattern: RegExp, message: string): D1Database {
  const db = env.DB;
  const failing = {
    prepare: (query: string) => {
      if (pattern.test(query)) throw new Error(message);
      return db.prepare(query);
    },
    batch: db.batch.bind(db),
    exec: db.exec.bind(db),
    dump: db.dump.bind(db),
  };
  return { ...failing, withSession: sessionsThrough(failing) } as D1Database;
}

/**
 * An Analytics Engine dataset that keeps what was written (the real one cannot be read back
 * here), and how much each counter of app/server/metrics.server.ts added up to.
 */
export function recordingDataset() {
  const points: AnalyticsEngineDataPoint[] = [];
  const dataset = { writeDataPoint: (p: AnalyticsEngineDataPoint) => void points.push(p) };
  const counted = (name: string) =>
    points.filter((p) => p.blobs?.[0] === name).reduce((n, p) => n + (p.doubles?.[0] ?? 0), 0);
  return { dataset: dataset as AnalyticsEngineDataset, counted };
}
