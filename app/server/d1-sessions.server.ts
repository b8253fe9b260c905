import { cookieName, readCookie, serializeCookie } from "./cookies.server";
import type { Env } from "./env.server";

/**
 * D1's Sessions API (docs/decisions/046): with read replication on, a request's statements may be
 * answered by a replica near the member instead of the primary. Each request gets one session:
 *
 * - a read (GET, HEAD) starts wherever is nearest (`first-unconstrained`);
 * - a write starts at the primary (`first-primary`);
 * - a member who wrote in the last minutes carries the bookmark their write left (a cookie), and
 *   their next requests start no older than it: they always read their own writes, whichever
 *   replica answers.
 *
 * Within a session D1 keeps every statement at least as new as the one before. The Durable
 * Objects, the cron and the queue keep the database itself (the primary).
 */

/** The cookie that carries a member's last write's bookmark, and how long it is kept. */
export const BOOKMARK_COOKIE = "heartline_d1";
export const BOOKMARK_MAX_AGE_SECONDS = 300;

/** What a bookmark looks like (four hex groups); anything else is ignored. */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

const READS = new Set(["GET", "HEAD"]);

export interface ScopedDatabase {
  /** The Worker's env with `DB` as this request's session. */
  env: Env;
  /** The cookie to set after the request: the bookmark of a write, or null for a read. */
  bookmarkCookie(): string | null;
}

/** Where a request's session starts: the member's bookmark, or by the request's method. */
export function sessionConstraint(request: Request, cookie: string | null): string {
  if (cookie && BOOKMARK.test(cookie)) return cookie;
  return READS.has(request.method) ? "first-unconstrained" : "first-primary";
}

/**
 * The request's D1 session as a D1Database: prepared statements and batches go through the
 * session; `exec` and `dump` (maintenance only) to the database itself.
 */
function sessionDatabase(db: D1Database, session: D1DatabaseSession): D1Database {
  return {
    prepare: (query: string) => session.prepare(query),
    batch: <T>(statements: D1PreparedStatement[]) => session.batch<T>(statements),
    exec: (query: string) => db.exec(query),
    dump: () => db.dump(),
    withSession: (constraint?: string) => db.withSession(constraint),
  } as D1Database;
}

export function scopeDatabase(env: Env, request: Request): ScopedDatabase {
  const name = cookieName(env, BOOKMARK_COOKIE);
  const session = env.DB.withSession(sessionConstraint(request, readCookie(request, name)));
  return {
    env: { ...env, DB: sessionDatabase(env.DB, session) },
    bookmarkCookie() {
      if (READS.has(request.method)) return null;
      const bookmark = session.getBookmark();
      if (!bookmark) return null;
      return serializeCookie(env, name, bookmark, { maxAge: BOOKMARK_MAX_AGE_SECONDS });
    },
  };
}
