import type { Env } from "./env.server";

/**
 * Database time of one request, as D1 reports it for each statement (`meta.duration`, the time
 * the database spent running it, without the trip to it) and the rows it read (`meta.rows_read`).
 * Kept only when the deployment asks for it (SERVER_TIMING=1, which the benchmarks set), and then
 * sent back as a Server-Timing header: a measurement, not something the app depends on.
 */
export interface DbTime {
  ms: number;
  rowsRead: number;
  statements: number;
}

/** A fresh tally for this request, or null when timings are off. */
export const dbTimeFor = (env: Pick<Env, "SERVER_TIMING">): DbTime | null =>
  env.SERVER_TIMING === "1" ? { ms: 0, rowsRead: 0, statements: 0 } : null;

/** Runs a statement for all its rows, adding what D1 reports to `time`. */
export async function allRows<T>(statement: D1PreparedStatement, time?: DbTime | null) {
  const { results, meta } = await statement.all<T>();
  if (time) {
    time.ms += Number(meta.duration) || 0;
    time.rowsRead += Number(meta.rows_read) || 0;
    time.statements += 1;
  }
  return results;
}

/** The Server-Timing header of a tally (`db` in ms; rows read and statements as descriptions). */
export function serverTiming(time: DbTime | null): Record<string, string> {
  if (!time) return {};
  return {
    "Server-Timing": `db;dur=${time.ms.toFixed(3)}, db-rows;desc="${time.rowsRead}", db-statements;desc="${time.statements}"`,
  };
}
