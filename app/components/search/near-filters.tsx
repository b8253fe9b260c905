import { Link, useRevalidator } from "@remix-run/react";
import { useState } from "react";
import { TravelPlacePicker } from "~/components/location-picker";
import { DISTANCE_KM, usesMiles } from "~/lib/distance";
import { api, ApiError } from "~/lib/http";
import { useBrowserLocale } from "~/lib/use-browser-locale";
import type { Location } from "~/schemas/profile";
import type { SearchSort } from "~/schemas/search";
import type { Travel } from "~/schemas/travel";
import type { SearchOrigin } from "~/state/search";

/**
 * Near me in the search form (docs/api.md "Distance, travel and prompts"): how far, in what
 * order, and, for subscribers, where from.
 */

/** The slider's stops, km: its first stop is "any distance". */
export const DISTANCE_STOPS = [null, 2, 5, 10, 25, 50, 100, 200, 300, DISTANCE_KM.max] as const;

/** The stop nearest a radius (a link may carry any radius from 1 to 500). */
export function stopOf(km: number | null): number {
  if (km === null) return 0;
  let best = 1;
  for (let i = 1; i < DISTANCE_STOPS.length; i++) {
    if (Math.abs(DISTANCE_STOPS[i]! - km) < Math.abs(DISTANCE_STOPS[best]! - km)) best = i;
  }
  return best;
}

/** "Within 25 km", "Within 16 mi", "Any distance". */
export function distanceLabel(km: number | null, locale?: string): string {
  if (km === null) return "Any distance";
  if (usesMiles(locale)) return `Within ${Math.max(1, Math.round(km / 1.609344))} mi`;
  return `Within ${km} km`;
}

const SORTS: { value: SearchSort; label: string }[] = [
  { value: "active", label: "Recently active" },
  { value: "distance", label: "Nearest first" },
  { value: "newest", label: "New members" },
];

export function DistanceAndSort({
  scope,
  origin,
  distance,
  sort,
  onChange,
}: {
  scope: string;
  origin: SearchOrigin | null;
  distance: number | null;
  sort: SearchSort;
  onChange(patch: { distance_km?: number | null; sort?: SearchSort }): void;
}) {
  const locale = useBrowserLocale();
  const located = Boolean(origin?.travel || origin?.place);
  const from = origin?.travel
    ? [origin.travel.city?.name, origin.travel.state?.name, origin.travel.country.name]
        .filter(Boolean)
        .slice(0, 2)
        .join(", ")
    : origin?.place;
  return (
    <>
      <div className="field search-distance">
        <label htmlFor={`${scope}-distance`}>
          Distance <output htmlFor={`${scope}-distance`}>{distanceLabel(distance, locale)}</output>
        </label>
        <input
          id={`${scope}-distance`}
          type="range"
          className="range"
          min={0}
          max={DISTANCE_STOPS.length - 1}
          step={1}
          value={stopOf(distance)}
          disabled={!located}
          aria-valuetext={distanceLabel(distance, locale)}
          onChange={(e) =>
            onChange({ distance_km: DISTANCE_STOPS[Number(e.target.value)] ?? null })
          }
        />
        {distance !== null ? <input type="hidden" name="distance_km" value={distance} /> : null}
        <p className="field-hint">
          {located ? (
            <>
              From {from}
              {origin?.travel ? " (travelling)" : ""}.
            </>
          ) : (
            <>
              <Link to="/settings/profile">Add your location</Link> to search by distance.
            </>
          )}
        </p>
      </div>
      <div className="field">
        <label htmlFor={`${scope}-sort`}>Sort by</label>
        <select
          id={`${scope}-sort`}
          className="input"
          name="sort"
          value={sort}
          onChange={(e) => onChange({ sort: e.target.value as SearchSort })}
        >
          {SORTS.map((s) => (
            <option key={s.value} value={s.value} disabled={s.value === "distance" && !located}>
              {s.label}
            </option>
          ))}
        </select>
      </div>
    </>
  );
}

const placeName = (travel: Travel) =>
  [travel.city?.name, travel.state?.name, travel.country.name].filter(Boolean).join(", ");

/**
 * Travel: a subscriber picks a place before a trip, searches from there and is found there as
 * "Travelling", until they end it. Others see what it is and where the plans are.
 */
export function TravelPanel({ origin }: { origin: SearchOrigin | null }) {
  const revalidator = useRevalidator();
  const [place, setPlace] = useState<Location | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!origin) return null;
  const send = async (method: "PUT" | "DELETE") => {
    setBusy(true);
    setError(null);
    try {
      await api("/my/travel", {
        method,
        body:
          method === "PUT" && place
            ? {
                country: place.country.isoCode,
                state: place.state?.isoCode,
                city: place.city?.name,
              }
            : undefined,
      });
      setPlace(null);
      revalidator.revalidate();
    } catch (e) {
      setError(
        e instanceof ApiError
          ? (Object.values(e.errors ?? {})[0]?.[0] ?? e.message)
          : "Travel could not be changed. Try again.",
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset className="search-travel">
      <legend className="label">Travel</legend>
      {origin.travel ? (
        <div className="search-travel-now">
          <p>
            <span className="pill">Travelling</span> You search from{" "}
            <strong>{placeName(origin.travel)}</strong>, and members there see you.
          </p>
          <button
            type="button"
            className="btn btn-secondary btn-sm"
            disabled={busy}
            onClick={() => void send("DELETE")}
          >
            Back home
          </button>
        </div>
      ) : origin.canTravel ? (
        <>
          <p className="field-hint">
            Going somewhere? Meet people there before you arrive: search from there and appear there
            as travelling.
          </p>
          <TravelPlacePicker value={place} onChange={setPlace} />
          <button
            type="button"
            className="btn btn-secondary btn-sm"
            disabled={busy || !place}
            onClick={() => void send("PUT")}
          >
            {busy ? "Saving…" : "Travel there"}
          </button>
        </>
      ) : (
        <p className="field-hint">
          Going somewhere? With a subscription you can search and be seen there before your trip.{" "}
          <Link to="/my/subscription">See the plans</Link>
        </p>
      )}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
