import type { Country } from "~/schemas/profile";

/**
 * The location dataset in the browser: static files (scripts/build-geo.ts) fetched when a picker
 * opens, once per page load. Never bundled into a page's JavaScript.
 */
export interface GeoStateEntry {
  isoCode: string;
  name: string;
  cities: string[];
}

const cache = new Map<string, Promise<unknown>>();

function load<T>(path: string): Promise<T> {
  if (typeof window === "undefined") return Promise.reject(new Error("browser only"));
  let pending = cache.get(path) as Promise<T> | undefined;
  if (!pending) {
    pending = fetch(path, { credentials: "same-origin" }).then((res) => {
      if (!res.ok) throw new Error(`Could not load ${path} (${res.status})`);
      return res.json() as Promise<T>;
    });
    // A failed load is tried again the next time the picker opens.
    pending.catch(() => cache.delete(path));
    cache.set(path, pending);
  }
  return pending;
}

export const loadCountries = () => load<Country[]>("/geo/countries.json");

export const loadStates = (countryCode: string) =>
  load<{ states: GeoStateEntry[] }>(`/geo/${encodeURIComponent(countryCode)}.json`).then(
    (f) => f.states,
  );
