import { log } from "~/server/log.server";

/**
 * A Durable Object's SQLite storage, versioned (docs/decisions/037): its schema is a list of steps,
 * each run once, in order, and the version reached is kept in the storage itself. A step never
 * changes what an older step made in a way the code before it cannot read (expand, then contract
 * in a later release), so a release can be rolled back over storage a newer one upgraded.
 */
export interface StorageStep {
  /** What it changes, for the log line and the reader. */
  readonly why: string;
  readonly statements: readonly string[];
  /**
   * For storage written before versions were kept: whether this step's change is already there
   * (a column an earlier release added by checking the table). Steps without it are idempotent.
   */
  readonly alreadyThere?: (sql: SqlStorage) => boolean;
}

const VERSION_TABLE = "CREATE TABLE IF NOT EXISTS storage_version (version INTEGER NOT NULL)";

/** The storage's version: 0 for storage that never recorded one (new, or from before versions). */
export function storageVersion(sql: SqlStorage): number {
  sql.exec(VERSION_TABLE);
  const row = sql.exec<{ version: number }>("SELECT version FROM storage_version").toArray()[0];
  return row?.version ?? 0;
}

/**
 * Brings the storage to the last step's version and answers it. Costs one read when it is there
 * already (every start of the object). Storage a newer release left at a later version is used as
 * it is (its steps only added what this code ignores) and logged.
 */
export function upgradeStorage(
  sql: SqlStorage,
  kind: string,
  steps: readonly StorageStep[],
): number {
  const from = storageVersion(sql);
  const to = steps.length;
  if (from === to) return to;
  if (from > to) {
    log({ event: "storage_newer_than_code", level: "warn", kind, version: from, known: to });
    return from;
  }
  for (let version = from + 1; version <= to; version++) {
    const step = steps[version - 1]!;
    // Before versions were kept (version 0), a step an earlier release applied its own way is
    // recognised rather than run again.
    if (from === 0 && step.alreadyThere?.(sql)) continue;
    for (const statement of step.statements) sql.exec(statement);
  }
  sql.exec("DELETE FROM storage_version");
  sql.exec("INSERT INTO storage_version (version) VALUES (?)", to);
  if (from > 0) log({ event: "storage_upgraded", level: "info", kind, from, to });
  return to;
}

/** Whether `table` has `column` (for a step's `alreadyThere`). */
export const hasColumn = (sql: SqlStorage, table: string, column: string) =>
  sql
    .exec<{ name: string }>("SELECT name FROM pragma_table_info(?)", table)
    .toArray()
    .some((c) => c.name === column);
