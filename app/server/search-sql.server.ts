import { Column, is, sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";

/**
 * A small builder for hand-written SQL with bound parameters, for the queries whose shape matters
 * to the query planner (INDEXED BY, CROSS JOIN, full-text MATCH) and so are not left to the query
 * builder. Values become `?` parameters; nested fragments are inlined with their parameters.
 */
export interface Fragment {
  readonly text: string;
  readonly params: readonly unknown[];
}

const isFragment = (value: unknown): value is Fragment =>
  typeof value === "object" &&
  value !== null &&
  "text" in value &&
  "params" in value &&
  Array.isArray((value as Fragment).params);

export function q(strings: TemplateStringsArray, ...values: unknown[]): Fragment {
  let text = strings[0] ?? "";
  const params: unknown[] = [];
  values.forEach((value, i) => {
    if (isFragment(value)) {
      text += value.text;
      params.push(...value.params);
    } else {
      text += "?";
      params.push(value);
    }
    text += strings[i + 1] ?? "";
  });
  return { text, params };
}

/** SQL text that is part of the statement itself (an index name, a keyword): never user input. */
export const raw = (text: string): Fragment => ({ text, params: [] });

export function join(fragments: Fragment[], separator: string): Fragment {
  return {
    text: fragments.map((f) => f.text).join(separator),
    params: fragments.flatMap((f) => f.params),
  };
}

/**
 * The statement with each distinct value bound once, as a numbered parameter (?1, ?2…): D1 binds
 * at most 100 values to a statement, and a value that many subqueries use (the searcher, the
 * snapshot time) would otherwise count once per use.
 */
export function prepare(db: D1Database, fragment: Fragment): D1PreparedStatement {
  const values: unknown[] = [];
  const numbers = new Map<unknown, number>();
  let next = 0;
  const text = fragment.text.replace(/\?/g, () => {
    const value = fragment.params[next++];
    let n = numbers.get(value);
    if (n === undefined) {
      values.push(value);
      n = values.length;
      numbers.set(value, n);
    }
    return `?${n}`;
  });
  if (next !== fragment.params.length) {
    throw new Error("A raw SQL fragment holds a '?' that is not a parameter.");
  }
  return db.prepare(text).bind(...values);
}

const dialect = new SQLiteAsyncDialect();

/**
 * A drizzle selection (columns, and SQL without parameters) as the select list of a raw
 * statement, `alias` naming each value, and `read`, which maps a row of it the way drizzle would.
 */
export function selection<T extends Record<string, Column | SQL>>(fields: T) {
  const entries = Object.entries(fields);
  const text = entries
    .map(([alias, field]) => {
      const rendered = dialect.sqlToQuery(sql`${field}`);
      if (rendered.params.length)
        throw new Error(`${alias} has parameters: bind them in the statement.`);
      return `${rendered.sql} AS "${alias}"`;
    })
    .join(", ");
  const read = (row: Record<string, unknown>) =>
    Object.fromEntries(
      entries.map(([alias, field]) => {
        const value = row[alias] ?? null;
        return [
          alias,
          value !== null && is(field, Column) ? field.mapFromDriverValue(value) : value,
        ];
      }),
    );
  return { text, read };
}

/** The fragment as drizzle SQL, to use inside a query built with drizzle. */
export function toSql(fragment: Fragment): SQL {
  const pieces = fragment.text.split("?");
  if (pieces.length !== fragment.params.length + 1) {
    throw new Error("A raw SQL fragment holds a '?' that is not a parameter.");
  }
  const chunks: SQL[] = [];
  pieces.forEach((piece, i) => {
    chunks.push(sql.raw(piece));
    if (i < fragment.params.length) chunks.push(sql`${fragment.params[i]}`);
  });
  return sql.join(chunks);
}
