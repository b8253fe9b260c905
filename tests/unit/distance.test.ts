import { describe, expect, it } from "vitest";
import {
  cellOf,
  cellsWithin,
  cellTokens,
  distanceKm,
  exactKm,
  formatDistance,
  minDotWithin,
  unitPoint,
  usesMiles,
} from "~/lib/distance";

const NEW_YORK = { latitude: 40.71, longitude: -74.01 };
const LOS_ANGELES = { latitude: 34.05, longitude: -118.24 };
const LONDON = { latitude: 51.51, longitude: -0.13 };
const PARIS = { latitude: 48.86, longitude: 2.35 };
const SYDNEY = { latitude: -33.87, longitude: 151.21 };
const AUCKLAND = { latitude: -36.85, longitude: 174.76 };
const FIJI_WEST = { latitude: -17.8, longitude: 177.4 };
const SAMOA = { latitude: -13.83, longitude: -171.76 };

/** Published great-circle distances, km. */
const KNOWN: [typeof NEW_YORK, typeof NEW_YORK, number][] = [
  [NEW_YORK, LOS_ANGELES, 3936],
  [LONDON, PARIS, 344],
  [SYDNEY, AUCKLAND, 2156],
  [LONDON, NEW_YORK, 5570],
];

const dot = (a: typeof NEW_YORK, b: typeof NEW_YORK) => {
  const p = unitPoint(a);
  const q = unitPoint(b);
  return p.x * q.x + p.y * q.y + p.z * q.z;
};

describe("distance between places", () => {
  it("matches known city distances within 10 %", () => {
    for (const [a, b, km] of KNOWN) {
      expect(Math.abs(distanceKm(a, b)! - km) / km).toBeLessThan(0.1);
      expect(distanceKm(b, a)).toBe(distanceKm(a, b));
    }
  });

  it("is whole kilometres, never below 1, and null when either place is unknown", () => {
    expect(distanceKm(LONDON, LONDON)).toBe(1);
    expect(distanceKm(LONDON, { latitude: 51.5101, longitude: -0.1301 })).toBe(1);
    expect(Number.isInteger(distanceKm(LONDON, PARIS))).toBe(true);
    expect(distanceKm(null, PARIS)).toBeNull();
    expect(distanceKm(LONDON, null)).toBeNull();
  });

  it("gives a radius as a dot product: inside exactly when the distance is within it", () => {
    const km = exactKm(LONDON, PARIS);
    expect(dot(LONDON, PARIS)).toBeGreaterThanOrEqual(minDotWithin(km + 1));
    expect(dot(LONDON, PARIS)).toBeLessThan(minDotWithin(km - 1));
  });

  it("shows miles where the locale uses them", () => {
    expect(usesMiles("en-US")).toBe(true);
    expect(usesMiles("en-GB")).toBe(true);
    expect(usesMiles("en-AU")).toBe(false);
    expect(usesMiles("fr")).toBe(false);
    expect(usesMiles(undefined)).toBe(false);
    expect(formatDistance(16.1, "en-US")).toBe("10 mi away");
    expect(formatDistance(12, "de-DE")).toBe("12 km away");
    expect(formatDistance(0.2, "en-US")).toBe("1 mi away");
  });
});

describe("grid cells of a radius", () => {
  /** Points around `at` at up to `km` in every direction. */
  const around = (at: typeof NEW_YORK, km: number) => {
    const points: (typeof NEW_YORK)[] = [];
    for (let bearing = 0; bearing < 360; bearing += 7.5) {
      for (const share of [0.25, 0.6, 0.99]) {
        const d = (km * share) / 6371.0088;
        const lat1 = (at.latitude * Math.PI) / 180;
        const lng1 = (at.longitude * Math.PI) / 180;
        const b = (bearing * Math.PI) / 180;
        const lat2 = Math.asin(
          Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(b),
        );
        const lng2 =
          lng1 +
          Math.atan2(
            Math.sin(b) * Math.sin(d) * Math.cos(lat1),
            Math.cos(d) - Math.sin(lat1) * Math.sin(lat2),
          );
        points.push({
          latitude: (lat2 * 180) / Math.PI,
          longitude: (((lng2 * 180) / Math.PI + 540) % 360) - 180,
        });
      }
    }
    return points;
  };

  it("hold every place within the radius, across the antimeridian and near the poles", () => {
    const centres = [NEW_YORK, SYDNEY, FIJI_WEST, SAMOA, { latitude: 78.2, longitude: 15.6 }];
    for (const at of centres) {
      for (const km of [1, 30, 150, 500]) {
        const fine = new Set(cellsWithin(at, km));
        const coarse = new Set(cellsWithin(at, km, 4));
        for (const p of around(at, km)) {
          expect(fine.has(cellOf(p))).toBe(true);
          expect(coarse.has(cellOf(p, 4))).toBe(true);
        }
      }
    }
  });

  it("name few full-text tokens: one-degree cells for a small radius, four-degree for a large", () => {
    expect(cellTokens(LONDON, 30).every((t) => t.startsWith("ga"))).toBe(true);
    expect(cellTokens(LONDON, 30).length).toBeLessThanOrEqual(4);
    // A few hundred kilometres still names one-degree cells: four-degree ones overshoot it.
    const regional = cellTokens({ latitude: 40.71, longitude: -74.01 }, 300);
    expect(regional.every((t) => t.startsWith("ga"))).toBe(true);
    expect(regional.length).toBeLessThanOrEqual(64);
    const wide = cellTokens(LONDON, 500);
    expect(wide.every((t) => t.startsWith("gb"))).toBe(true);
    expect(wide.length).toBeLessThanOrEqual(16);
  });

  it("numbers cells as the migration does", () => {
    // min(179, floor(lat + 90)) * 360 + floor(lng + 180) % 360
    expect(cellOf(LONDON)).toBe(141 * 360 + 179);
    expect(cellOf({ latitude: 90, longitude: 180 })).toBe(179 * 360 + 0);
    expect(cellOf(LONDON, 4)).toBe(35 * 90 + 44);
  });
});
