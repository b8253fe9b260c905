import { z } from "zod";
import { SEARCH_MESSAGES } from "~/schemas/search";
import { hmacSign, hmacVerify } from "../crypto.server";
import type { Env } from "../env.server";
import { ValidationError } from "../errors.server";
import type { SearchQuery } from "./filters.server";

/** How old a paging cursor may be; closed rows are kept for a day, so it stays below that. */
export const SNAPSHOT_MAX_AGE_MS = 12 * 60 * 60_000;

// Paging cursor: where the last page ended, the snapshot and the searcher's values then, the
// plan and the first page's total. Signed, so that the server can take its values as its own.

const cursorSchema = z.object({
  v: z.literal(1),
  /** The search it belongs to (queryKey). */
  q: z.string(),
  /** Snapshot time, ms. */
  t: z.number().int(),
  /** Last sort key shown. */
  k: z.number().int(),
  p: z.enum(["cover", "pk", "fts", "online", "near", "newest"]),
  n: z.number().int().min(0),
  c: z.boolean(),
  pg: z.number().int().min(1),
  age: z.number().int(),
  from: z.number().int(),
  to: z.number().int(),
  /** Sorted by distance: the last place's dot product with the origin and its id. */
  d: z.number().optional(),
  pid: z.number().int().optional(),
  /** Sorted newest first: the last sign-up time shown. */
  j: z.number().int().optional(),
});
export type Cursor = z.infer<typeof cursorSchema>;

const b64url = (text: string) =>
  btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

export async function encodeCursor(env: Env, me: string, cursor: Cursor): Promise<string> {
  const body = b64url(JSON.stringify(cursor));
  return `${body}.${await hmacSign(env.APP_KEY, `search-cursor:${me}:${body}`)}`;
}

export async function decodeCursor(env: Env, me: string, text: string): Promise<Cursor | null> {
  const [body, mac, extra] = text.split(".");
  if (!body || !mac || extra !== undefined) return null;
  if (!(await hmacVerify(env.APP_KEY, `search-cursor:${me}:${body}`, mac))) return null;
  try {
    const parsed = cursorSchema.safeParse(
      JSON.parse(atob(body.replace(/-/g, "+").replace(/_/g, "/"))),
    );
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** What identifies the question asked, so that a cursor is only used for the search it came from. */
export function queryKey(c: SearchQuery): string {
  const text = JSON.stringify([
    c.match,
    c.custom,
    c.gender ?? null,
    c.country ?? null,
    c.state ?? null,
    c.city ?? null,
    c.withPhoto,
    c.onlineSince !== null,
    c.sort,
    c.near ? [c.near.km, c.near.origin.latitude, c.near.origin.longitude] : null,
  ]);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

export const expired = () => new ValidationError({ cursor: [SEARCH_MESSAGES.cursor] });
