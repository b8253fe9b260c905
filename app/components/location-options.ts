import type { ComboOption } from "~/components/combobox";
import { loadCountries, loadStates } from "~/lib/geo";
import type { City, Country, GeoState, Location } from "~/schemas/profile";

/**
 * The option loaders of a country → state → city picker, in the object shapes of docs/domain.md
 * "Profile and photos". Each list is fetched from the static location files only when its picker
 * opens.
 */
export function locationOptions(value: Location | null) {
  const country = value?.country ?? null;
  const state = value?.state ?? null;

  const countryOptions = async (): Promise<ComboOption<Country>[]> =>
    (await loadCountries()).map((c) => ({
      key: c.isoCode,
      label: `${c.flag ? `${c.flag} ` : ""}${c.name}`,
      value: c,
    }));

  const stateOptions = async (): Promise<ComboOption<GeoState>[]> => {
    if (!country) return [];
    return (await loadStates(country.isoCode)).map((s) => ({
      key: s.isoCode,
      label: s.name,
      value: { isoCode: s.isoCode, name: s.name, countryCode: country.isoCode },
    }));
  };

  const cityOptions = async (): Promise<ComboOption<City>[]> => {
    if (!country || !state) return [];
    const entry = (await loadStates(country.isoCode)).find((s) => s.isoCode === state.isoCode);
    return (entry?.cities ?? []).map((name) => ({
      key: name,
      label: name,
      value: { name, countryCode: country.isoCode, stateCode: state.isoCode },
    }));
  };

  return { countryOptions, stateOptions, cityOptions };
}
