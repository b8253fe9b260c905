import { sql, type SQL } from "drizzle-orm";
import { conditions, keywordTokens, type SearchContext } from "./filters.server";

/**
 * Keyword relevance (docs/decisions/041): a search whose keywords are a member's exact username or
 * first name shows those members first, then every other result in the search's order. Keywords
 * are matched by the first eight characters of each word (docs/decisions/016), so that without
 * this a member whose username shares a long prefix with the one searched for could come first,
 * and the one searched for fall off the first page.
 *
 * The exact matches are found in the full-text index (the keywords' words as whole tokens of the
 * username and first-name columns), checked against the whole name, and pass every filter and condition of
 * the search at its snapshot, so each page finds the same ones again: the first page shows them on
 * top, and every page leaves them out of the rest.
 */

/** At most this many members are put first (a common first name matches many). */
export const EXACT_LIMIT = 5;

/** The keywords as a name: one word of the kind a username or first name is, or null. */
export function exactName(keywords: string): string | null {
  const name = keywords.trim().toLowerCase();
  if (!name || name.length > 50 || /\s/.test(name) || !keywordTokens(name).length) return null;
  return name;
}

/**
 * The name's words as whole tokens of the username or first name (the index keeps no positions,
 * so no phrase: the whole name is then compared in SQL). Tokens only: nothing is read as syntax.
 */
const nameQuery = (name: string) =>
  `{username first_name} : (${keywordTokens(name)
    .map((t) => `"${t}"`)
    .join(" AND ")})`;

/**
 * Whether anybody at all has `name` as username or first name: two probes of B-tree indexes
 * (users_username_nocase, profiles_first_name), about nothing to run.
 */
const anybodyNamed = (name: string) =>
  sql`(EXISTS (SELECT 1 FROM users WHERE username = ${name} COLLATE NOCASE)
    OR EXISTS (SELECT 1 FROM profiles WHERE lower(trim(first_name)) = ${name}))`;

/**
 * The members whose username or first name is exactly `name`, in result order: the name's tokens
 * in those columns (and the interests, which only the index knows) in the full-text index, newest
 * key first, each checked whole and against the conditions (place, radius, ages, blocks), until
 * EXACT_LIMIT are found. A member named so also matches the keywords, so they are results.
 *
 * Most keywords are nobody's name (an interest, a word of a bio), and the full-text index then
 * reads the word's whole list to find no one named so: at a million members 2–4 ms of database
 * time for a common interest (bench/search). So the limit is 0 unless anybody is named so
 * (anybodyNamed): SQLite reads the limit before it opens the full-text index, and a limit of 0
 * reads nothing. (As a condition in WHERE, the gate came after the index had read the list.)
 */
export function exactStatement(c: SearchContext, name: string): SQL {
  return sql`SELECT s.sort_key AS sortKey, s.user_id AS userId
    FROM member_search_fts f CROSS JOIN member_search s ON s.sort_key = f.rowid
      JOIN users u ON u.id = s.user_id JOIN profiles p ON p.user_id = s.user_id
    WHERE f.member_search_fts MATCH ${c.interestsMatch ? `(${c.interestsMatch}) AND ${nameQuery(name)}` : nameQuery(name)}
      AND (u.username = ${name} COLLATE NOCASE OR lower(trim(p.first_name)) = ${name})
      AND ${conditions(c)}
    ORDER BY f.rowid DESC LIMIT CASE WHEN ${anybodyNamed(name)} THEN ${EXACT_LIMIT} ELSE 0 END`;
}
