import { env } from "cloudflare:test";

/**
 * The D1 statements prepared while `work` runs: on the database itself (the Durable Objects, the
 * cron) and through the sessions the Worker opens on it for each request (ADR 046). The Worker,
 * the objects and the tests share one binding, so nothing escapes the count.
 */
export async function d1Statements(
  work: () => Promise<unknown>,
): Promise<{ total: number; requests: string[] }> {
  const db = env.DB as unknown as Pick<D1Database, "prepare" | "withSession">;
  const { prepare, withSession } = db;
  let total = 0;
  const requests: string[] = [];
  db.prepare = function (this: D1Database, query: string) {
    total += 1;
    return prepare.call(this, query);
  };
  db.withSession = function (this: D1Database, constraint?: string) {
    const session = withSession.call(this, constraint);
    const sessionPrepare = session.prepare.bind(session);
    session.prepare = (query: string) => {
      total += 1;
      requests.push(query);
      return sessionPrepare(query);
    };
    return session;
  };
  try {
    await work();
  } finally {
    db.prepare = prepare;
    db.withSession = withSession;
  }
  return { total, requests };
}
