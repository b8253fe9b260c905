import { Combobox } from "~/components/combobox";
import { locationOptions } from "~/components/location-options";
import type { Location } from "~/schemas/profile";

interface LocationProps {
  value: Location | null;
  onChange(value: Location | null): void;
}

/**
 * Country, then state, then city, with the object shapes of docs/domain.md "Profile and photos",
 * written once for the profile and the search filters. Each list is fetched from the static
 * location files when its picker opens; choosing a country clears the state and city, choosing a
 * state clears the city.
 */
function LocationComboboxes({
  value,
  onChange,
  idPrefix,
  blank,
  invalid,
  className,
}: LocationProps & {
  idPrefix: string;
  /** How an empty picker reads: "Any country" in a filter, "Choose a country" in the profile. */
  blank: "Any" | "Choose a";
  invalid?: boolean;
  className: string;
}) {
  const country = value?.country ?? null;
  const state = value?.state ?? null;
  const city = value?.city ?? null;
  const { countryOptions, stateOptions, cityOptions } = locationOptions(value);
  return (
    <div className={className}>
      <Combobox
        id={`${idPrefix}-country`}
        label="Country"
        placeholder={`${blank} country`}
        selectedLabel={country ? `${country.flag ? `${country.flag} ` : ""}${country.name}` : null}
        loadOptions={countryOptions}
        invalid={invalid}
        onSelect={(o) => {
          if (o.value.isoCode === country?.isoCode) return;
          onChange({ country: o.value, state: null, city: null });
        }}
      />
      <Combobox
        id={`${idPrefix}-state`}
        label="State or region"
        placeholder={country ? `${blank} state or region` : "Choose a country first"}
        disabled={!country}
        selectedLabel={state?.name ?? null}
        loadOptions={stateOptions}
        onSelect={(o) => {
          if (!country || o.value.isoCode === state?.isoCode) return;
          onChange({ country, state: o.value, city: null });
        }}
      />
      <Combobox
        id={`${idPrefix}-city`}
        label="City"
        placeholder={state ? `${blank} city` : "Choose a state first"}
        disabled={!state}
        selectedLabel={city?.name ?? null}
        loadOptions={cityOptions}
        onSelect={(o) => {
          if (!country || !state) return;
          onChange({ country, state, city: o.value });
        }}
      />
    </div>
  );
}

/** The profile's location, with its error or a note on what members see. */
export function LocationPicker({ error, ...props }: LocationProps & { error?: string }) {
  return (
    <div className="location-picker">
      <LocationComboboxes
        {...props}
        idPrefix="location"
        blank="Choose a"
        invalid={Boolean(error)}
        className="location-grid"
      />
      <div className="location-foot">
        {error ? (
          <p className="field-error" role="alert">
            {error}
          </p>
        ) : (
          <p className="field-hint">
            Members see your city, region and country, never your street.
          </p>
        )}
        {props.value?.country ? (
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={() => props.onChange(null)}
          >
            Clear location
          </button>
        ) : null}
      </div>
    </div>
  );
}

/**
 * The search filters' location. What is chosen is also in hidden fields, so the form works
 * without JavaScript.
 */
export function LocationFilter(props: LocationProps) {
  const { country, state, city } = props.value ?? {};
  return (
    <fieldset className="search-location">
      <legend className="label">Location</legend>
      {country ? <input type="hidden" name="country" value={country.isoCode} /> : null}
      {state ? <input type="hidden" name="state" value={state.isoCode} /> : null}
      {city ? <input type="hidden" name="city" value={city.name} /> : null}
      <LocationComboboxes
        {...props}
        idPrefix="search"
        blank="Any"
        className="search-location-grid"
      />
      {country ? (
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => props.onChange(null)}>
          Any location
        </button>
      ) : null}
    </fieldset>
  );
}

/** Where a subscriber travels: country, then state, then city (search/near-filters.tsx). */
export function TravelPlacePicker(props: LocationProps) {
  return (
    <LocationComboboxes
      {...props}
      idPrefix="travel"
      blank="Choose a"
      className="search-location-grid"
    />
  );
}
