import { sql, type SQL } from "drizzle-orm";
import { distanceKm, type LatLng } from "~/lib/distance";
import { promptsForCard } from "~/schemas/prompt-catalog";
import type { SearchCard } from "~/schemas/search";
import { schema } from "../db.server";
import type { ProfilePrompt } from "../db/schema";
import {
  cardColumns,
  placeColumns,
  toMemberCard,
  type CardRow as MemberRow,
  type PhotoUrlsById,
} from "../members.server";
import { selection } from "../sql.server";

/**
 * The cards of a page of search results: what a statement selects for each member found (the
 * member card, bio and interests, whether the searcher likes them), and how a row becomes a card.
 */

/** Whether the searcher likes the member of the row (`users`). */
const likedBy = (me: string) =>
  sql`EXISTS (SELECT 1 FROM likes l WHERE l.liker_id = ${me} AND l.liked_id = users.id)`;

/**
 * What a search card shows besides the member card, on `profiles`: bio, interests, prompts, and
 * the place the member is found in (their travel place while they travel), for the distance.
 */
const searchCardText = {
  bio: schema.profiles.bio,
  interests: schema.profiles.interests,
  prompts: schema.profiles.prompts,
  ...placeColumns,
};

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
  prompts: ProfilePrompt[];
  placeLatitude: number | null;
  placeLongitude: number | null;
  travelling: number;
  liked: number;
  sortKey: number;
  /** Sorted by distance: the row's place (near.server.ts) and its dot product with the origin. */
  placeId?: number;
  dot?: number;
  /** Sorted newest first: the member's sign-up time (newest.server.ts). */
  joined?: number;
}

export const readCard = (row: Record<string, unknown>): CardRow => ({
  card: cardSelection.read(row) as MemberRow,
  ...(textSelection.read(row) as Pick<
    CardRow,
    "bio" | "interests" | "prompts" | "placeLatitude" | "placeLongitude" | "travelling"
  >),
  liked: row.liked as number,
  sortKey: row.sortKey as number,
  ...(row.placeId != null ? { placeId: row.placeId as number, dot: row.dot as number } : {}),
  ...(row.joined != null ? { joined: row.joined as number } : {}),
});

/**
 * The cards of a page of a known plan (load more): the page's rows (sortKey, userId), then each
 * member found by id (CROSS JOIN keeps that order).
 */
export function cardsStatement(
  me: string,
  page: SQL,
  extra: "placed" | "joined" | null = null,
): SQL {
  const place =
    extra === "placed"
      ? sql.raw(", pg.placeId AS placeId, pg.dot AS dot")
      : extra === "joined"
        ? sql.raw(", pg.joined AS joined")
        : sql.raw("");
  return sql`SELECT ${cardValues(me)},
      pg.sortKey AS sortKey${place}
    FROM (${page}) pg CROSS JOIN users JOIN profiles ON profiles.user_id = users.id
    WHERE users.id = pg.userId`;
}

/**
 * The cards of a page's rows, in the page's order (rows read by key are sorted by key; the
 * distance and newest orders come sorted). `origin`: the searcher's place, for the distances;
 * `photos`: the rows' main photos' addresses (`cardPhotoUrls`).
 */
export function toSearchCards(
  rows: CardRow[],
  photos: PhotoUrlsById,
  now: number,
  origin: LatLng | null,
  sorted = false,
) {
  return (sorted ? rows : rows.sort((a, b) => b.sortKey - a.sortKey)).map((row) => ({
    card: {
      ...toMemberCard(row.card, photos, now),
      bio: row.bio,
      interests: row.interests,
      liked: Boolean(row.liked),
      distance_km: distanceKm(
        origin,
        row.placeLatitude != null && row.placeLongitude != null
          ? { latitude: row.placeLatitude, longitude: row.placeLongitude }
          : null,
      ),
      travelling: Boolean(row.travelling),
      prompts: promptsForCard(row.prompts),
    } satisfies SearchCard,
    sortKey: row.sortKey,
    placeId: row.placeId,
    dot: row.dot,
    joined: row.joined,
  }));
}
