import { eq, inArray, sql } from "drizzle-orm";
import { ageOn } from "~/lib/age";
import { distanceKm, type LatLng } from "~/lib/distance";
import type { MemberCardView, MemberProfileView } from "~/lib/members";
import type { PhotoUrls } from "~/lib/photos";
import { isOnline } from "~/lib/online";
import type { Location } from "~/schemas/profile";
import { promptsForCard } from "~/schemas/prompt-catalog";
import { getDb, schema, type Db } from "./db.server";
import type { Env } from "./env.server";
import { searchOriginSql } from "./geo.server";
import { notFound } from "./errors.server";
import { mintPhotoUrls, profilePhoto } from "./photo-urls.server";
import { canSee } from "./visibility.server";

export type MemberCard = MemberCardView;

/** Photos' signed addresses by photo id (app/server/photo-urls.server.ts). */
export type PhotoUrlsById = ReadonlyMap<string, PhotoUrls>;

/** The signed addresses of the cards' main photos, for `toMemberCard`. */
export const cardPhotoUrls = (
  env: Pick<Env, "APP_KEY">,
  rows: readonly Pick<CardRow, "id" | "mainPhotoId">[],
  now = Date.now(),
): Promise<PhotoUrlsById> =>
  mintPhotoUrls(
    env,
    rows.flatMap((r) => (r.mainPhotoId ? [{ id: r.mainPhotoId, owner: r.id }] : [])),
    now,
  );

/** The columns a card is built from; select them with `cardQuery` or add them to a query of yours. */
export const cardColumns = {
  id: schema.users.id,
  username: schema.users.username,
  hideOnline: schema.users.hideOnline,
  lastSeenAt: schema.users.lastSeenAt,
  firstName: schema.profiles.firstName,
  dateOfBirth: schema.profiles.dateOfBirth,
  gender: schema.profiles.gender,
  location: schema.profiles.location,
  // Photo verification (verification.server.ts): the badge on every card.
  verified: sql<number>`${schema.users.photoVerifiedAt} IS NOT NULL`,
  mainPhotoId: sql<
    string | null
  >`(SELECT p.id FROM photos p WHERE p.user_id = ${schema.users.id} ORDER BY p.position, p.id LIMIT 1)`,
};

export type CardRow = {
  id: string;
  username: string;
  hideOnline: boolean;
  lastSeenAt: string | null;
  firstName: string | null;
  dateOfBirth: string;
  gender: string | null;
  location: Location | null;
  verified: number | boolean;
  mainPhotoId: string | null;
};

/** users joined with profiles, selecting the card columns (add where/order/limit). */
export function cardQuery(db: Db) {
  return db
    .select(cardColumns)
    .from(schema.users)
    .innerJoin(schema.profiles, eq(schema.profiles.userId, schema.users.id));
}

export function locationNames(location: Location | null | undefined) {
  return {
    country: location?.country?.name ?? null,
    state: location?.state?.name ?? null,
    city: location?.city?.name ?? null,
  };
}

/** A card from its row; `photos` holds its main photo's addresses (`cardPhotoUrls`). */
export function toMemberCard(row: CardRow, photos: PhotoUrlsById, now = Date.now()): MemberCard {
  const urls = row.mainPhotoId ? (photos.get(row.mainPhotoId) ?? null) : null;
  return {
    id: row.id,
    username: row.username,
    firstName: row.firstName,
    age: ageOn(row.dateOfBirth, new Date(now)),
    gender: row.gender,
    location: locationNames(row.location),
    photo_url: urls?.[720] ?? null,
    photo_urls: urls,
    // "Online" as app/lib/online.ts defines it, from last_seen_at.
    online: isOnline(row, now),
    verified: Boolean(row.verified),
    // A member who hides their online state hides when they were last seen too.
    last_seen_at: row.hideOnline ? null : row.lastSeenAt,
  };
}

const CARD_BATCH = 90;

/** Cards for the given member ids, in the order of `ids` (ids without a member are skipped). */
export async function memberCards(env: Env, ids: string[], now = Date.now()) {
  if (ids.length === 0) return [];
  const db = getDb(env.DB);
  const unique = [...new Set(ids)];
  const byId = new Map<string, CardRow>();
  // D1 binds at most 100 values a statement.
  for (let i = 0; i < unique.length; i += CARD_BATCH) {
    const batch = unique.slice(i, i + CARD_BATCH);
    for (const row of await cardQuery(db).where(inArray(schema.users.id, batch)).all()) {
      byId.set(row.id, row);
    }
  }
  const photos = await cardPhotoUrls(env, [...byId.values()], now);
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toMemberCard(row, photos, now)] : [];
  });
}

export type MemberProfile = MemberProfileView;

/**
 * Another member's public profile as `viewerId` sees it (404 when unknown or hidden from them).
 * Reading it records nothing: a visit is recorded by profile-views.server.ts's `visitMember`.
 */
export async function viewMember(
  env: Env,
  viewerId: string,
  username: string,
  now = Date.now(),
): Promise<MemberProfile> {
  const db = getDb(env.DB);
  const row = await db
    .select({
      card: cardColumns,
      bio: schema.profiles.bio,
      interests: schema.profiles.interests,
      preferences: schema.profiles.preferences,
      ageMin: schema.profiles.ageMin,
      ageMax: schema.profiles.ageMax,
      prompts: schema.profiles.prompts,
      ...placeColumns,
      // Where the viewer searches from (their travel place while they travel): the distance.
      viewerLatitude: sql<
        number | null
      >`(SELECT ${searchOriginSql("v").latitude} FROM profiles v WHERE v.user_id = ${viewerId})`,
      viewerLongitude: sql<
        number | null
      >`(SELECT ${searchOriginSql("v").longitude} FROM profiles v WHERE v.user_id = ${viewerId})`,
    })
    .from(schema.users)
    .innerJoin(schema.profiles, eq(schema.profiles.userId, schema.users.id))
    .where(sql`${schema.users.username} = ${username} COLLATE NOCASE`)
    .get();
  if (!row || !(await canSee(env, viewerId, row.card.id))) throw notFound("Member not found.");
  const photos = await db
    .select({ id: schema.photos.id, position: schema.photos.position })
    .from(schema.photos)
    .where(eq(schema.photos.userId, row.card.id))
    .orderBy(schema.photos.position, schema.photos.id)
    .all();
  const urls = await mintPhotoUrls(
    env,
    [
      ...(row.card.mainPhotoId ? [{ id: row.card.mainPhotoId, owner: row.card.id }] : []),
      ...photos.map((p) => ({ id: p.id, owner: row.card.id })),
    ],
    now,
  );
  return {
    ...toMemberCard(row.card, urls, now),
    bio: row.bio,
    interests: row.interests,
    preferences: row.preferences,
    ageRange: { min: row.ageMin, max: row.ageMax },
    prompts: promptsForCard(row.prompts),
    distance_km: distanceKm(
      pointOf(row.viewerLatitude, row.viewerLongitude),
      pointOf(row.placeLatitude, row.placeLongitude),
    ),
    travelling: Boolean(row.travelling),
    photos: photos.map((p, i) => profilePhoto(p.id, urls.get(p.id)!, i)),
  };
}

/**
 * The place a member is found in (their travel place while they travel), for distances
 * (docs/decisions/040), on `profiles`.
 */
export const placeColumns = {
  placeLatitude: sql<
    number | null
  >`CASE WHEN ${schema.profiles.travelCountryCode} IS NULL THEN ${schema.profiles.latitude} ELSE ${schema.profiles.travelLatitude} END`,
  placeLongitude: sql<
    number | null
  >`CASE WHEN ${schema.profiles.travelCountryCode} IS NULL THEN ${schema.profiles.longitude} ELSE ${schema.profiles.travelLongitude} END`,
  travelling: sql<number>`${schema.profiles.travelCountryCode} IS NOT NULL`,
};

const pointOf = (latitude: number | null, longitude: number | null): LatLng | null =>
  latitude !== null && longitude !== null ? { latitude, longitude } : null;
