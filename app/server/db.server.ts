import { drizzle } from "drizzle-orm/d1";
import * as schema from "./db/schema";

/** A drizzle client over the request's D1 binding. Create one per request; never keep it. */
export function getDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

export type Db = ReturnType<typeof getDb>;
export { schema };

/** Now as the ISO-8601 UTC string of docs/api.md "Times, money and ids". */
export const nowIso = (now = Date.now()) => new Date(now).toISOString();
