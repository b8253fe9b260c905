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
  const response = await env.ASSETS.fetch(new Request(`https://assets.local${path}`));
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
