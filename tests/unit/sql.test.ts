import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { schema } from "~/server/db.server";
import { all, compile, first, selection } from "~/server/sql.server";

describe("hand-written SQL", () => {
  it("binds every value and each distinct value once, numbered", () => {
    const me = "user-1";
    const inner = sql`SELECT 1 FROM blocks WHERE blocker_id = ${me}`;
    const query = sql`SELECT ${"a'; DROP TABLE users; --"} AS x WHERE EXISTS (${inner}) OR ${me} = ${me}`;
    expect(compile(query)).toEqual({
      text: "SELECT ?1 AS x WHERE EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ?2) OR ?2 = ?2",
      values: ["a'; DROP TABLE users; --", "user-1"],
    });
  });

  it("returns a hostile value as data, not as SQL", async () => {
    const hostile = "x'); DELETE FROM users; --";
    const row = await first<{ v: string }>(env.DB, sql`SELECT ${hostile} AS v`);
    expect(row?.v).toBe(hostile);
    const rows = await all<{ n: number }>(env.DB, sql`SELECT count(*) AS n FROM ${schema.users}`);
    expect(rows).toHaveLength(1);
  });

  it("binds more than a hundred uses of one value as one parameter", async () => {
    const ids = Array.from({ length: 150 }, () => sql`${"same"}`);
    const row = await first<{ n: number }>(
      env.DB,
      sql`SELECT count(*) AS n FROM (SELECT 1 WHERE 'same' IN (${sql.join(ids, sql`, `)}))`,
    );
    expect(row?.n).toBe(1);
  });

  it("reads a drizzle selection the way drizzle maps its columns", () => {
    const pick = selection({ id: schema.users.id, created: schema.users.createdAt });
    expect(compile(sql`SELECT ${pick.sql} FROM ${schema.users}`).text).toBe(
      'SELECT "users"."id" AS "id", "users"."created_at" AS "created" FROM "users"',
    );
    expect(pick.read({ id: "u", created: "2026-01-01T00:00:00.000Z" })).toMatchObject({ id: "u" });
  });
});
