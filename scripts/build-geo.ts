/**
 * Writes the location dataset (`country-state-city`) as static files under public/geo/, which the
 * Remix build copies to the assets the Worker serves:
 *
 *   public/geo/countries.json   every country: {isoCode, name, flag, phonecode, currency, latitude, longitude}
 *   public/geo/{ISO}.json       one country's states with their city names: {states: [{isoCode, name, cities}]}
 *   public/geo/points/{ISO}.json  the coordinates of a country's places, for the server only:
 *                               {at: [lat, lng], states: {[isoCode]: {at, cities: {[name]: [lat, lng]}}}}
 *                               (degrees, 2 decimals; a state without its own takes the mean of its
 *                               cities', or the country's)
 *
 * The location picker fetches them when it opens, and the profile update checks a submitted
 * location against them, so the dataset (about 8 MB) is never bundled into the Worker or a page.
 * The files are generated, not committed: the output is skipped when it already matches the
 * installed dataset version.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const OUT = "public/geo";
const STAMP = join(OUT, ".dataset-version");

const require = createRequire(import.meta.url);
const datasetVersion: string = (require("country-state-city/package.json") as { version: string })
  .version;
/** Bump when the file format changes, so existing output is regenerated. */
const FORMAT = 2;
const stamp = `${datasetVersion}#${FORMAT}`;

if (existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === stamp) {
  process.exit(0);
}

const started = Date.now();
// Loaded only when the files are out of date: parsing the dataset is the slow part.
const { City, Country, State } = await import("country-state-city");
const tmp = `${OUT}.tmp-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });

const countries = Country.getAllCountries().map((c) => ({
  isoCode: c.isoCode,
  name: c.name,
  flag: c.flag,
  phonecode: c.phonecode,
  currency: c.currency,
  latitude: c.latitude,
  longitude: c.longitude,
}));
countries.sort((a, b) => a.name.localeCompare(b.name, "en"));
writeFileSync(join(tmp, "countries.json"), JSON.stringify(countries));

type Point = [number, number];
/** Degrees to 2 decimals (about a kilometre): more than a place needs, less to download. */
const point = (lat: string | null | undefined, lng: string | null | undefined): Point | null => {
  const a = Number(lat);
  const b = Number(lng);
  if (lat == null || lng == null || !Number.isFinite(a) || !Number.isFinite(b)) return null;
  return [Math.round(a * 100) / 100, Math.round(b * 100) / 100];
};

const citiesByState = new Map<string, Set<string>>();
const cityPoints = new Map<string, Record<string, Point>>();
for (const city of City.getAllCities()) {
  const key = `${city.countryCode}/${city.stateCode}`;
  let names = citiesByState.get(key);
  if (!names) citiesByState.set(key, (names = new Set()));
  names.add(city.name);
  let points = cityPoints.get(key);
  if (!points) cityPoints.set(key, (points = {}));
  const at = point(city.latitude, city.longitude);
  // The first of two cities of the same name in one state, as the picker lists the name once.
  if (at && !(city.name in points)) points[city.name] = at;
}

const statesByCountry = new Map<string, { isoCode: string; name: string; cities: string[] }[]>();
const statePoints = new Map<
  string,
  Record<string, { at: Point | null; cities: Record<string, Point> }>
>();
for (const state of State.getAllStates()) {
  const pointsOfCities = cityPoints.get(`${state.countryCode}/${state.isoCode}`) ?? {};
  let at = point(state.latitude, state.longitude);
  const all = Object.values(pointsOfCities);
  if (!at && all.length) {
    at = point(
      String(all.reduce((sum, p) => sum + p[0], 0) / all.length),
      String(all.reduce((sum, p) => sum + p[1], 0) / all.length),
    );
  }
  let byState = statePoints.get(state.countryCode);
  if (!byState) statePoints.set(state.countryCode, (byState = {}));
  byState[state.isoCode] = { at, cities: pointsOfCities };

  let list = statesByCountry.get(state.countryCode);
  if (!list) statesByCountry.set(state.countryCode, (list = []));
  const cities = [...(citiesByState.get(`${state.countryCode}/${state.isoCode}`) ?? [])];
  cities.sort((a, b) => a.localeCompare(b, "en"));
  list.push({ isoCode: state.isoCode, name: state.name, cities });
}

let bytes = 0;
mkdirSync(join(tmp, "points"));
for (const country of countries) {
  const countryAt = point(country.latitude, country.longitude);
  const placePoints = Object.fromEntries(
    Object.entries(statePoints.get(country.isoCode) ?? {}).map(([code, s]) => [
      code,
      { at: s.at ?? countryAt, cities: s.cities },
    ]),
  );
  writeFileSync(
    join(tmp, "points", `${country.isoCode}.json`),
    JSON.stringify({ at: countryAt, states: placePoints }),
  );

  if (!/^[A-Z]{2}$/.test(country.isoCode)) throw new Error(`unexpected code ${country.isoCode}`);
  const states = statesByCountry.get(country.isoCode) ?? [];
  states.sort((a, b) => a.name.localeCompare(b.name, "en"));
  const body = JSON.stringify({ states });
  bytes += body.length;
  writeFileSync(join(tmp, `${country.isoCode}.json`), body);
}
writeFileSync(join(tmp, ".dataset-version"), `${stamp}\n`);

rmSync(OUT, { recursive: true, force: true });
renameSync(tmp, OUT);
console.log(
  `geo: ${countries.length + 1} files, ${(bytes / 1e6).toFixed(1)} MB, in ${Date.now() - started} ms`,
);
