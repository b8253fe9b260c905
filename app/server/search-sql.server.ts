import { sql, type SQL } from "drizzle-orm";

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

export function prepare(db: D1Database, fragment: Fragment): D1PreparedStatement {
  return db.prepare(fragment.text).bind(...fragment.params);
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
