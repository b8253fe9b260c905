import { sql, type SQL } from "drizzle-orm";
import type { Country, Location } from "~/schemas/profile";
import type { Env } from "./env.server";

/**
 * The location dataset, read from the static files scripts/build-geo.ts writes (served by the
 * Worker's assets, never bundled into it). Used to check a submitted location and to store the
 * dataset's own names rather than whatever a client sent.
 */
export interface GeoCountryFile {
  states: { isoCode: string; name: string; cities: string[] }[];
}

export const GEO_BASE = "/geo";
export const countriesPath = () => `${GEO_BASE}/countries.json`;
export const countryPath = (isoCode: string) => `${GEO_BASE}/${isoCode}.json`;

async function readAsset<T>(env: Env, path: string): Promise<T | null> {
  const response = await env.ASSETS.fetch(`https://assets.local${path}`);
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`geo asset ${path} answered ${response.status}`);
  return (await response.json()) as T;
}

/**
 * The location as the dataset has it, or null when the country, state or city is not in it.
 * Throws when the dataset itself is missing (a build without scripts/build-geo.ts).
 */
export async function canonicalLocation(env: Env, location: Location): Promise<Location | null> {
  const countries = await readAsset<Country[]>(env, countriesPath());
  if (!countries) throw new Error("the location dataset is missing (run scripts/build-geo.ts)");
  const country = countries.find((c) => c.isoCode === location.country.isoCode);
  if (!country) return null;
  if (!location.state) return { country, state: null, city: null };

  const file = await readAsset<GeoCountryFile>(env, countryPath(country.isoCode));
  const state = file?.states.find((s) => s.isoCode === location.state!.isoCode);
  if (!state) return null;
  const canonicalState = { isoCode: state.isoCode, name: state.name, countryCode: country.isoCode };
  if (!location.city) return { country, state: canonicalState, city: null };

  const cityName = state.cities.find((name) => name === location.city!.name);
  if (!cityName) return null;
  return {
    country,
    state: canonicalState,
    city: { name: cityName, countryCode: country.isoCode, stateCode: state.isoCode },
  };
}

/** One country's place coordinates (scripts/build-geo.ts): degrees, [latitude, longitude]. */
interface GeoPointsFile {
  at: [number, number] | null;
  states: Record<string, { at: [number, number] | null; cities: Record<string, [number, number]> }>;
}

export const pointsPath = (isoCode: string) => `${GEO_BASE}/points/${isoCode}.json`;

/** A place's coordinates, in degrees. */
export interface PlacePoint {
  latitude: number;
  longitude: number;
}

/** The place of a profile or a travel: ISO codes and the city's name as the dataset spells it. */
export interface PlaceCodes {
  countryCode: string | null;
  stateCode: string | null;
  cityName: string | null;
}

/** Country files read by this isolate, a few at a time (the coordinate fill reads many members'). */
const pointFiles = new Map<string, GeoPointsFile | null>();
const POINT_FILES_KEPT = 16;

async function pointsOf(env: Env, isoCode: string): Promise<GeoPointsFile | null> {
  if (pointFiles.has(isoCode)) return pointFiles.get(isoCode)!;
  const file = /^[A-Z]{2}$/.test(isoCode)
    ? await readAsset<GeoPointsFile>(env, pointsPath(isoCode))
    : null;
  if (pointFiles.size >= POINT_FILES_KEPT) pointFiles.delete(pointFiles.keys().next().value!);
  pointFiles.set(isoCode, file);
  return file;
}

/**
 * The coordinates of a place: its city's, or its state's when it names no city (or the dataset
 * has none for the city), or its country's; null without a country or for a place the dataset
 * does not know. Only ever a place's: Heartline never asks for a member's position.
 */
export async function placePoint(env: Env, place: PlaceCodes): Promise<PlacePoint | null> {
  if (!place.countryCode) return null;
  const file = await pointsOf(env, place.countryCode);
  if (!file) return null;
  const state = place.stateCode ? file.states[place.stateCode] : undefined;
  const at =
    (place.cityName ? state?.cities[place.cityName] : undefined) ?? state?.at ?? file.at ?? null;
  return at ? { latitude: at[0], longitude: at[1] } : null;
}

/** The coordinate columns of a profile whose place is `location` (nulls without one). */
export async function locationPoint(
  env: Env,
  location: Location | null,
): Promise<{ latitude: number | null; longitude: number | null }> {
  const at = location
    ? await placePoint(env, {
        countryCode: location.country.isoCode,
        stateCode: location.state?.isoCode ?? null,
        cityName: location.city?.name ?? null,
      })
    : null;
  return { latitude: at?.latitude ?? null, longitude: at?.longitude ?? null };
}

/**
 * Where a member searches from, as SQL on their `profiles` row named `alias`: their travel place
 * while they travel (docs/decisions/040), else their own; null columns without coordinates.
 */
export function searchOriginSql(alias: string): {
  latitude: SQL<number | null>;
  longitude: SQL<number | null>;
} {
  const p = sql.raw(alias);
  return {
    latitude: sql<
      number | null
    >`CASE WHEN ${p}.travel_country_code IS NULL THEN ${p}.latitude ELSE ${p}.travel_latitude END`,
    longitude: sql<
      number | null
    >`CASE WHEN ${p}.travel_country_code IS NULL THEN ${p}.longitude ELSE ${p}.travel_longitude END`,
  };
}
