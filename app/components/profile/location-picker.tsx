import { Combobox } from "~/components/combobox";
import { locationOptions } from "~/components/location-options";
import type { Location } from "~/schemas/profile";

interface LocationPickerProps {
  value: Location | null;
  onChange(value: Location | null): void;
  error?: string;
}

/**
 * Country, then state, then city, with SPEC.md §3's object shapes. Each list is fetched from the
 * static location files when its picker opens.
 */
export function LocationPicker({ value, onChange, error }: LocationPickerProps) {
  const country = value?.country ?? null;
  const state = value?.state ?? null;
  const city = value?.city ?? null;

  const { countryOptions, stateOptions, cityOptions } = locationOptions(value);

  return (
    <div className="location-picker">
      <div className="location-grid">
        <Combobox
          id="location-country"
          label="Country"
          placeholder="Choose a country"
          selectedLabel={
            country ? `${country.flag ? `${country.flag} ` : ""}${country.name}` : null
          }
          loadOptions={countryOptions}
          invalid={Boolean(error)}
          onSelect={(o) => {
            if (o.value.isoCode === country?.isoCode) return;
            onChange({ country: o.value, state: null, city: null });
          }}
        />
        <Combobox
          id="location-state"
          label="State or region"
          placeholder={country ? "Choose a state or region" : "Choose a country first"}
          disabled={!country}
          selectedLabel={state?.name ?? null}
          loadOptions={stateOptions}
          onSelect={(o) => {
            if (!country || o.value.isoCode === state?.isoCode) return;
            onChange({ country, state: o.value, city: null });
          }}
        />
        <Combobox
          id="location-city"
          label="City"
          placeholder={state ? "Choose a city" : "Choose a state first"}
          disabled={!state}
          selectedLabel={city?.name ?? null}
          loadOptions={cityOptions}
          onSelect={(o) => {
            if (!country || !state) return;
            onChange({ country, state, city: o.value });
          }}
        />
      </div>
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
        {country ? (
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => onChange(null)}>
            Clear location
          </button>
        ) : null}
      </div>
    </div>
  );
}
