/**
 * Distances between places (docs/decisions/040). Every distance Heartline computes or shows is
 * between two places' coordinates (a city's, or a state's or country's), in whole kilometres and
 * never below 1: nobody can locate a member more precisely than their place by searching from
 * several points. Pure: the server, the search statements and the pages use it.
 */

/** The mean radius of the Earth, km (IUGG). */
export const EARTH_RADIUS_KM = 6371.0088;

/** The radius a search may ask for, km (docs/api.md "Distance, travel and prompts"). */
export const DISTANCE_KM = { min: 1, max: 500 } as const;

export interface LatLng {
  latitude: number;
  longitude: number;
}

/** A place as a point on the unit sphere: a radius is then a dot product. */
export interface UnitPoint {
  x: number;
  y: number;
  z: number;
}

const radians = (degrees: number) => (degrees * Math.PI) / 180;

export function unitPoint(at: LatLng): UnitPoint {
  const lat = radians(at.latitude);
  const lng = radians(at.longitude);
  return { x: Math.cos(lat) * Math.cos(lng), y: Math.cos(lat) * Math.sin(lng), z: Math.sin(lat) };
}

/** The great-circle distance between two places, km, unrounded (haversine). */
export function exactKm(a: LatLng, b: LatLng): number {
  const dLat = radians(b.latitude - a.latitude);
  const dLng = radians(b.longitude - a.longitude);
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(radians(a.latitude)) * Math.cos(radians(b.latitude)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * What a member is shown: whole kilometres, never below 1; null when either place is unknown.
 */
export function distanceKm(a: LatLng | null, b: LatLng | null): number | null {
  if (!a || !b) return null;
  return Math.max(1, Math.round(exactKm(a, b)));
}

/** The smallest dot product of two unit points at most `km` apart. */
export const minDotWithin = (km: number) => Math.cos(Math.min(Math.PI, km / EARTH_RADIUS_KM));

/** The one-degree grid cell of a place, as migrations/0033 computes it (`cell`, token "ga"). */
export function cellOf(at: LatLng, size = 1): number {
  const rows = Math.round(180 / size);
  const cols = Math.round(360 / size);
  const row = Math.min(rows - 1, Math.floor((at.latitude + 90) / size));
  const col = Math.floor((at.longitude + 180) / size) % cols;
  return row * cols + col;
}

/**
 * The grid cells of `size` degrees that hold every place within `km` of `at`: the rows of its
 * latitude band, and in each the columns of the band's widest longitude span (all of them when
 * the band reaches a pole or the span half the globe), wrapping at the antimeridian.
 */
export function cellsWithin(at: LatLng, km: number, size = 1): number[] {
  const rows = Math.round(180 / size);
  const cols = Math.round(360 / size);
  const dLat = (km / EARTH_RADIUS_KM) * (180 / Math.PI);
  const south = at.latitude - dLat;
  const north = at.latitude + dLat;
  const firstRow = Math.max(0, Math.floor((Math.max(-90, south) + 90) / size));
  const lastRow = Math.min(rows - 1, Math.floor((Math.min(90, north) + 90) / size));
  let columns: number[];
  const widest = Math.max(Math.abs(south), Math.abs(north));
  const cosWidest = Math.cos(radians(Math.min(90, widest)));
  const dLng = cosWidest > 1e-9 ? dLat / cosWidest : 360;
  if (south <= -90 || north >= 90 || dLng >= 180) {
    columns = Array.from({ length: cols }, (_, i) => i);
  } else {
    const first = Math.floor((at.longitude - dLng + 180) / size);
    const last = Math.floor((at.longitude + dLng + 180) / size);
    const set = new Set<number>();
    for (let c = first; c <= last; c++) set.add(((c % cols) + cols) % cols);
    columns = [...set];
  }
  const cells: number[] = [];
  for (let r = firstRow; r <= lastRow; r++) for (const c of columns) cells.push(r * cols + c);
  return cells;
}

/**
 * How many grid cells a radius's full-text query may name before it uses coarser cells. Four-degree
 * cells overshoot a radius of a few hundred kilometres by far (around New York at 300 km, a
 * quarter of the members in them are inside it), so a walk read four times the rows it kept; up to
 * 64 one-degree cells (a radius up to ~350 km at mid latitudes) read fewer rows than the coarser
 * cells' longer lists save (docs/decisions/040, bench/search/compare.ts).
 */
const MAX_TOKENS = 64;

/**
 * The full-text tokens of the cells within `km` of `at` (migrations/0033: "ga" one-degree cells,
 * "gb" four-degree cells): the finer cells when they are few, else the coarser ones.
 */
export function cellTokens(at: LatLng, km: number): string[] {
  const fine = cellsWithin(at, km, 1);
  if (fine.length <= MAX_TOKENS) return fine.map((c) => `ga${c}`);
  return cellsWithin(at, km, 4).map((c) => `gb${c}`);
}

/** Locales (by region) that give road distances in miles. */
const MILE_REGIONS = new Set(["US", "GB", "LR", "MM"]);

/** Whether a locale (a BCP 47 tag such as "en-US") measures distances in miles. */
export function usesMiles(locale: string | undefined): boolean {
  if (!locale) return false;
  const region = locale.split(/[-_]/)[1]?.toUpperCase();
  return region ? MILE_REGIONS.has(region) : false;
}

/** "12 km away" or "7 mi away": whole units, never below 1. */
export function formatDistance(km: number, locale?: string): string {
  if (usesMiles(locale)) return `${Math.max(1, Math.round(km / 1.609344))} mi away`;
  return `${Math.max(1, Math.round(km))} km away`;
}
