import { sql, type SQL } from "drizzle-orm";
import type { SearchCard } from "~/schemas/search";
import { schema } from "../db.server";
import { cardColumns, toMemberCard, type CardRow as MemberRow } from "../members.server";
import { selection } from "../sql.server";

/**
 * The cards of a page of search results: what a statement selects for each member found (the
 * member card, bio and interests, whether the searcher likes them), and how a row becomes a card.
 */

/** Whether the searcher likes the member of the row (`users`). */
const likedBy = (me: string) =>
  sql`EXISTS (SELECT 1 FROM likes l WHERE l.liker_id = ${me} AND l.liked_id = users.id)`;

/** What a search card shows besides the member card, on `profiles`. */
const searchCardText = { bio: schema.profiles.bio, interests: schema.profiles.interests };

/** A search card's columns on `users` and `profiles`, for hand-written statements. */
const cardSelection = selection(cardColumns);
const textSelection = selection(searchCardText);

/** What a statement selects for each member found (on `users` and `profiles`), read by readCard. */
export const cardValues = (me: string) =>
  sql`${cardSelection.sql}, ${textSelection.sql}, ${likedBy(me)} AS liked`;

/** A page's member as a statement reads it: the card, bio and interests, liked, the sort key. */
export interface CardRow {
  card: MemberRow;
  bio: string;
  interests: string[];
  liked: number;
  sortKey: number;
}

export const readCard = (row: Record<string, unknown>): CardRow => ({
  card: cardSelection.read(row) as MemberRow,
  ...(textSelection.read(row) as Pick<CardRow, "bio" | "interests">),
  liked: row.liked as number,
  sortKey: row.sortKey as number,
});

/**
 * The cards of a page of a known plan (load more): the page's rows (sortKey, userId), then each
 * member found by id (CROSS JOIN keeps that order).
 */
export function cardsStatement(me: string, page: SQL): SQL {
  return sql`SELECT ${cardValues(me)},
      pg.sortKey AS sortKey
    FROM (${page}) pg CROSS JOIN users JOIN profiles ON profiles.user_id = users.id
    WHERE users.id = pg.userId`;
}

export function toSearchCards(rows: CardRow[], now: number) {
  return rows
    .sort((a, b) => b.sortKey - a.sortKey)
    .map((row) => ({
      card: {
        ...toMemberCard(row.card, now),
        bio: row.bio,
        interests: row.interests,
        liked: Boolean(row.liked),
      } satisfies SearchCard,
      sortKey: row.sortKey,
    }));
}
