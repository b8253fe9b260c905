import { Combobox } from "~/components/combobox";
import { locationOptions } from "~/components/location-options";
import type { Location } from "~/schemas/profile";

/**
 * Country, then state, then city for the search filters, from the same location files as the
 * profile's picker. What is chosen is also in hidden fields, so the form works without JavaScript.
 */
export function LocationFilter({
  value,
  onChange,
}: {
  value: Location | null;
  onChange(value: Location | null): void;
}) {
  const country = value?.country ?? null;
  const state = value?.state ?? null;
  const city = value?.city ?? null;

  const { countryOptions, stateOptions, cityOptions } = locationOptions(value);

  return (
    <fieldset className="search-location">
      <legend className="label">Location</legend>
      {country ? <input type="hidden" name="country" value={country.isoCode} /> : null}
      {state ? <input type="hidden" name="state" value={state.isoCode} /> : null}
      {city ? <input type="hidden" name="city" value={city.name} /> : null}
      <div className="search-location-grid">
        <Combobox
          id="search-country"
          label="Country"
          placeholder="Any country"
          selectedLabel={
            country ? `${country.flag ? `${country.flag} ` : ""}${country.name}` : null
          }
          loadOptions={countryOptions}
          onSelect={(o) => {
            if (o.value.isoCode !== country?.isoCode)
              onChange({ country: o.value, state: null, city: null });
          }}
        />
        <Combobox
          id="search-state"
          label="State or region"
          placeholder={country ? "Any state or region" : "Choose a country first"}
          disabled={!country}
          selectedLabel={state?.name ?? null}
          loadOptions={stateOptions}
          onSelect={(o) => {
            if (country && o.value.isoCode !== state?.isoCode) {
              onChange({ country, state: o.value, city: null });
            }
          }}
        />
        <Combobox
          id="search-city"
          label="City"
          placeholder={state ? "Any city" : "Choose a state first"}
          disabled={!state}
          selectedLabel={city?.name ?? null}
          loadOptions={cityOptions}
          onSelect={(o) => {
            if (country && state) onChange({ country, state, city: o.value });
          }}
        />
      </div>
      {country ? (
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => onChange(null)}>
          Any location
        </button>
      ) : null}
    </fieldset>
  );
}
