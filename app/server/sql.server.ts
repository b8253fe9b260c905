import { Column, is, sql, type GetColumnData, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";

/**
 * Hand-written SQL, one way: a drizzle `sql` template, whose values are always bound parameters.
 * Fragments nest (`sql` inside `sql`, `sql.join`), columns and tables render as their quoted
 * names, and `sql.raw` is only for text that is part of the statement itself (an index name, a
 * keyword chosen from constants), never for a value. Nothing here concatenates strings into SQL.
 *
 * D1 binds at most 100 values to a statement, and a value that many subqueries use (the member
 * asking, the snapshot time) would otherwise count once per use: each distinct value is bound
 * once, as a numbered parameter (?1, ?2…).
 */

const dialect = new SQLiteAsyncDialect();

export interface CompiledSql {
  readonly text: string;
  readonly values: unknown[];
}

export function compile(query: SQL): CompiledSql {
  const rendered = dialect.sqlToQuery(query);
  const values: unknown[] = [];
  const numbers = new Map<unknown, number>();
  let next = 0;
  const text = rendered.sql.replace(/\?/g, () => {
    const value = rendered.params[next++];
    let n = numbers.get(value);
    if (n === undefined) {
      values.push(value);
      n = values.length;
      numbers.set(value, n);
    }
    return `?${n}`;
  });
  if (next !== rendered.params.length) {
    throw new Error("A raw SQL fragment holds a '?' that is not a parameter.");
  }
  return { text, values };
}

/** The statement for D1, bound: to run alone or in `db.batch([...])`. */
export function statement(db: D1Database, query: SQL): D1PreparedStatement {
  const { text, values } = compile(query);
  return db.prepare(text).bind(...values);
}

export async function all<T>(db: D1Database, query: SQL): Promise<T[]> {
  return (await statement(db, query).all<T>()).results;
}

export function first<T>(db: D1Database, query: SQL): Promise<T | null> {
  return statement(db, query).first<T>();
}

export function run(db: D1Database, query: SQL): Promise<D1Result> {
  return statement(db, query).run();
}

/** The statement on a Durable Object's own SQLite storage. */
export function exec<T extends Record<string, SqlStorageValue>>(
  storage: SqlStorage,
  query: SQL,
): SqlStorageCursor<T> {
  const { text, values } = compile(query);
  return storage.exec<T>(text, ...values);
}

/** The row a selection reads: each column's type from the schema, each `sql<T>` as its `T`. */
export type SelectedRow<T extends Record<string, Column | SQL>> = {
  [K in keyof T]: T[K] extends Column ? GetColumnData<T[K]> : T[K] extends SQL<infer U> ? U : never;
};

/**
 * A drizzle selection (columns, and SQL without parameters) as the select list of a hand-written
 * statement, `alias` naming each value, and `read`, which maps a row of it the way drizzle would.
 * The row's type comes from the schema, so a change to a column reaches every statement using it.
 */
export function selection<T extends Record<string, Column | SQL>>(fields: T) {
  const entries = Object.entries(fields);
  const list = entries
    .map(([alias, field]) => {
      const rendered = dialect.sqlToQuery(sql`${field}`);
      if (rendered.params.length)
        throw new Error(`${alias} has parameters: bind them in the statement.`);
      return `${rendered.sql} AS "${alias}"`;
    })
    .join(", ");
  // Which fields are columns is known once, not per row (drizzle's `is` walks prototypes).
  const readers = entries.map(
    ([alias, field]) => [alias, is(field, Column) ? field : null] as const,
  );
  const read = (row: Record<string, unknown>): SelectedRow<T> => {
    const out: Record<string, unknown> = {};
    for (const [alias, column] of readers) {
      const value = row[alias] ?? null;
      out[alias] = value !== null && column ? column.mapFromDriverValue(value) : value;
    }
    return out as SelectedRow<T>;
  };
  return { sql: sql.raw(list), read };
}

/** The rows of a statement whose select list is `fields.sql`, read by it. */
export async function allOf<T>(
  db: D1Database,
  fields: { read: (row: Record<string, unknown>) => T },
  query: SQL,
): Promise<T[]> {
  return (await all<Record<string, unknown>>(db, query)).map(fields.read);
}

/** The first row of a statement whose select list is `fields.sql`, read by it. */
export async function firstOf<T>(
  db: D1Database,
  fields: { read: (row: Record<string, unknown>) => T },
  query: SQL,
): Promise<T | null> {
  const row = await first<Record<string, unknown>>(db, query);
  return row && fields.read(row);
}
