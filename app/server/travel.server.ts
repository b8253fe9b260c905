import { sql } from "drizzle-orm";
import { TRAVEL_MESSAGES, type Travel, type TravelInput } from "~/schemas/travel";
import type { ProfileLocation } from "./db/schema";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { HttpError, notFound, ValidationError } from "./errors.server";
import { canonicalLocation, placePoint } from "./geo.server";
import type { Job } from "./housekeeping.server";
import { first, run } from "./sql.server";
import { memberPerks } from "./subscriptions.server";

/**
 * Travel (docs/api.md "Distance, travel and prompts", docs/decisions/040): a subscriber picks a
 * place before a trip; while it is set they search from there (their searches' origin, and the
 * place filters' "near me") and members there find them, marked "Travelling" on their card. The
 * search index takes the travel place in place of the member's own (migrations/0033), so blocks,
 * ages and hidden members hold exactly as for any place.
 *
 * It ends when the member ends it, or when their subscription's perks end (the housekeeping cron,
 * END_LAPSED_TRAVEL, within its quarter of an hour).
 */

export interface TravelRow {
  location: string | null;
  started_at: string | null;
}

/** A profile row's travel columns as the API shows them (null without travel). */
export const toTravel = (row: TravelRow | null): Travel | null => {
  if (!row?.location || !row.started_at) return null;
  const location = JSON.parse(row.location) as ProfileLocation;
  return {
    country: { isoCode: location.country.isoCode, name: location.country.name },
    state: location.state ? { isoCode: location.state.isoCode, name: location.state.name } : null,
    city: location.city ? { name: location.city.name } : null,
    started_at: row.started_at,
  };
};

export async function currentTravel(env: Env, userId: string): Promise<Travel | null> {
  return toTravel(
    await first<TravelRow>(
      env.DB,
      sql`SELECT travel_location AS location, travel_started_at AS started_at
          FROM profiles WHERE user_id = ${userId}`,
    ),
  );
}

/**
 * Sets where the member travels (403 without a subscription's perks, 422 for a place the dataset
 * does not know, 404 without a profile). Setting another place moves the travel there.
 */
export async function setTravel(env: Env, userId: string, input: TravelInput): Promise<Travel> {
  if (!(await memberPerks(env, userId)).subscribed) throw new HttpError(403, TRAVEL_MESSAGES.perk);
  const location = await canonicalLocation(env, {
    country: { isoCode: input.country, name: input.country },
    state: input.state
      ? { isoCode: input.state, name: input.state, countryCode: input.country }
      : null,
    city:
      input.state && input.city
        ? { name: input.city, countryCode: input.country, stateCode: input.state }
        : null,
  });
  if (!location) {
    const field = input.city ? "city" : input.state ? "state" : "country";
    throw new ValidationError({ [field]: [TRAVEL_MESSAGES[field]] });
  }
  const point = await placePoint(env, {
    countryCode: location.country.isoCode,
    stateCode: location.state?.isoCode ?? null,
    cityName: location.city?.name ?? null,
  });
  if (!point) throw new ValidationError({ country: [TRAVEL_MESSAGES.place] });
  const stored: ProfileLocation = {
    country: { isoCode: location.country.isoCode, name: location.country.name },
    state: location.state ?? null,
    city: location.city ?? null,
  };
  const now = nowIso();
  const updated = await first<{ user_id: string }>(
    env.DB,
    sql`UPDATE profiles SET travel_country_code = ${location.country.isoCode},
          travel_state_code = ${location.state?.isoCode ?? null},
          travel_city_name = ${location.city?.name ?? null},
          travel_location = ${JSON.stringify(stored)},
          travel_latitude = ${point.latitude}, travel_longitude = ${point.longitude},
          travel_started_at = coalesce(travel_started_at, ${now}), updated_at = ${now}
        WHERE user_id = ${userId} RETURNING user_id`,
  );
  if (!updated) throw notFound("Profile not found.");
  return (await currentTravel(env, userId))!;
}

const CLEAR_TRAVEL = sql.raw(`travel_country_code = NULL, travel_state_code = NULL,
  travel_city_name = NULL, travel_location = NULL, travel_latitude = NULL,
  travel_longitude = NULL, travel_started_at = NULL`);

/** Ends the member's travel: they are back where they live. Harmless when none is set. */
export async function endTravel(env: Env, userId: string): Promise<void> {
  await run(
    env.DB,
    sql`UPDATE profiles SET ${CLEAR_TRAVEL}, updated_at = ${nowIso()}
        WHERE user_id = ${userId} AND travel_country_code IS NOT NULL`,
  );
}

/**
 * Housekeeping: travel ends with the subscription's perks. Members travelling whose perks ended
 * (memberPerks, checked one by one: a few travel at a time) are brought home, a batch per step.
 */
export const END_LAPSED_TRAVEL: Job = {
  name: "end_lapsed_travel",
  async run(env, now, { batchSize, maxBatches }) {
    let ended = 0;
    let after = "";
    for (let batches = 1; batches <= maxBatches; batches++) {
      const rows = (
        await env.DB.prepare(
          `SELECT user_id FROM profiles WHERE travel_country_code IS NOT NULL AND user_id > ?1
           ORDER BY user_id LIMIT ?2`,
        )
          .bind(after, batchSize)
          .all<{ user_id: string }>()
      ).results;
      for (const row of rows) {
        if (!(await memberPerks(env, row.user_id, now)).subscribed) {
          await endTravel(env, row.user_id);
          ended += 1;
        }
      }
      if (rows.length < batchSize) return { deleted: ended, batches, done: true };
      after = rows.at(-1)!.user_id;
    }
    return { deleted: ended, batches: maxBatches, done: false };
  },
};
