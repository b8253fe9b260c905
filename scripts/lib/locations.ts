import type { ProfileLocation } from "~/server/db/schema";

/**
 * A small slice of the `country-state-city` dataset, written out by hand (names, ISO codes and
 * coordinates exactly as that dataset has them, so a seeded location is one the location picker
 * and the profile update accept), plus a believable postal code for each city.
 */
interface CountryRow {
  isoCode: string;
  name: string;
  phonecode: string;
  currency: string;
  latitude: string;
  longitude: string;
  states: { isoCode: string; name: string; cities: [name: string, postalCode: string][] }[];
}

export const COUNTRIES: readonly CountryRow[] = [
  {
    isoCode: "US",
    name: "United States",
    phonecode: "1",
    currency: "USD",
    latitude: "38.00000000",
    longitude: "-97.00000000",
    states: [
      {
        isoCode: "NY",
        name: "New York",
        cities: [
          ["New York City", "10003"],
          ["Brooklyn", "11211"],
        ],
      },
      {
        isoCode: "CA",
        name: "California",
        cities: [
          ["Los Angeles", "90026"],
          ["San Francisco", "94110"],
          ["Oakland", "94612"],
        ],
      },
      {
        isoCode: "TX",
        name: "Texas",
        cities: [
          ["Austin", "78704"],
          ["Houston", "77006"],
        ],
      },
      { isoCode: "WA", name: "Washington", cities: [["Seattle", "98122"]] },
      { isoCode: "CO", name: "Colorado", cities: [["Denver", "80205"]] },
      { isoCode: "GA", name: "Georgia", cities: [["Atlanta", "30307"]] },
      { isoCode: "OR", name: "Oregon", cities: [["Portland", "97214"]] },
      { isoCode: "IL", name: "Illinois", cities: [["Chicago", "60614"]] },
    ],
  },
  {
    isoCode: "GB",
    name: "United Kingdom",
    phonecode: "44",
    currency: "GBP",
    latitude: "54.00000000",
    longitude: "-2.00000000",
    states: [
      {
        isoCode: "ENG",
        name: "England",
        cities: [
          ["London", "N1 7GU"],
          ["Manchester", "M4 1HN"],
          ["Bristol", "BS1 5TR"],
          ["Leeds", "LS6 1AN"],
          ["Brighton", "BN1 1UB"],
        ],
      },
      {
        isoCode: "SCT",
        name: "Scotland",
        cities: [
          ["Edinburgh", "EH6 6QU"],
          ["Glasgow", "G12 8QQ"],
        ],
      },
      { isoCode: "WLS", name: "Wales", cities: [["Cardiff", "CF10 1EP"]] },
    ],
  },
  {
    isoCode: "DE",
    name: "Germany",
    phonecode: "49",
    currency: "EUR",
    latitude: "51.00000000",
    longitude: "9.00000000",
    states: [
      { isoCode: "BE", name: "Berlin", cities: [["Berlin", "10437"]] },
      { isoCode: "BY", name: "Bavaria", cities: [["Munich", "80331"]] },
      { isoCode: "HH", name: "Hamburg", cities: [["Hamburg", "20357"]] },
      {
        isoCode: "NW",
        name: "North Rhine-Westphalia",
        cities: [
          ["Köln", "50667"],
          ["Düsseldorf", "40213"],
        ],
      },
      { isoCode: "SN", name: "Saxony", cities: [["Leipzig", "04109"]] },
    ],
  },
  {
    isoCode: "FR",
    name: "France",
    phonecode: "33",
    currency: "EUR",
    latitude: "46.00000000",
    longitude: "2.00000000",
    states: [
      { isoCode: "IDF", name: "Île-de-France", cities: [["Paris", "75011"]] },
      {
        isoCode: "ARA",
        name: "Auvergne-Rhône-Alpes",
        cities: [
          ["Lyon", "69001"],
          ["Grenoble", "38000"],
        ],
      },
      {
        isoCode: "PAC",
        name: "Provence-Alpes-Côte-d’Azur",
        cities: [
          ["Marseille", "13001"],
          ["Nice", "06000"],
        ],
      },
      { isoCode: "NAQ", name: "Nouvelle-Aquitaine", cities: [["Bordeaux", "33000"]] },
      {
        isoCode: "OCC",
        name: "Occitanie",
        cities: [
          ["Toulouse", "31000"],
          ["Montpellier", "34000"],
        ],
      },
    ],
  },
  {
    isoCode: "ES",
    name: "Spain",
    phonecode: "34",
    currency: "EUR",
    latitude: "40.00000000",
    longitude: "-4.00000000",
    states: [
      { isoCode: "MD", name: "Madrid", cities: [["Madrid", "28004"]] },
      { isoCode: "CT", name: "Catalonia", cities: [["Barcelona", "08012"]] },
      {
        isoCode: "AN",
        name: "Andalusia",
        cities: [
          ["Sevilla", "41003"],
          ["Málaga", "29012"],
        ],
      },
      { isoCode: "VC", name: "Valencia", cities: [["Valencia", "46001"]] },
      { isoCode: "PV", name: "Basque Country", cities: [["Bilbao", "48005"]] },
    ],
  },
  {
    isoCode: "IT",
    name: "Italy",
    phonecode: "39",
    currency: "EUR",
    latitude: "42.83333333",
    longitude: "12.83333333",
    states: [
      { isoCode: "25", name: "Lombardy", cities: [["Milan", "20121"]] },
      { isoCode: "45", name: "Emilia-Romagna", cities: [["Bologna", "40126"]] },
      { isoCode: "52", name: "Tuscany", cities: [["Florence", "50122"]] },
      { isoCode: "62", name: "Lazio", cities: [["Rome", "00153"]] },
      { isoCode: "72", name: "Campania", cities: [["Naples", "80134"]] },
      { isoCode: "82", name: "Sicily", cities: [["Palermo", "90133"]] },
    ],
  },
  {
    isoCode: "BR",
    name: "Brazil",
    phonecode: "55",
    currency: "BRL",
    latitude: "-10.00000000",
    longitude: "-55.00000000",
    states: [
      {
        isoCode: "SP",
        name: "São Paulo",
        cities: [
          ["São Paulo", "01310-100"],
          ["Campinas", "13015-000"],
        ],
      },
      { isoCode: "RJ", name: "Rio de Janeiro", cities: [["Rio de Janeiro", "22081-010"]] },
      { isoCode: "MG", name: "Minas Gerais", cities: [["Belo Horizonte", "30130-010"]] },
      { isoCode: "BA", name: "Bahia", cities: [["Salvador", "40020-000"]] },
      { isoCode: "RS", name: "Rio Grande do Sul", cities: [["Porto Alegre", "90010-150"]] },
    ],
  },
  {
    isoCode: "IN",
    name: "India",
    phonecode: "91",
    currency: "INR",
    latitude: "20.00000000",
    longitude: "77.00000000",
    states: [
      {
        isoCode: "MH",
        name: "Maharashtra",
        cities: [
          ["Mumbai", "400050"],
          ["Pune", "411001"],
        ],
      },
      { isoCode: "KA", name: "Karnataka", cities: [["Bengaluru", "560038"]] },
      { isoCode: "DL", name: "Delhi", cities: [["New Delhi", "110016"]] },
      { isoCode: "TN", name: "Tamil Nadu", cities: [["Chennai", "600040"]] },
      { isoCode: "WB", name: "West Bengal", cities: [["Kolkata", "700019"]] },
    ],
  },
  {
    isoCode: "JP",
    name: "Japan",
    phonecode: "81",
    currency: "JPY",
    latitude: "36.00000000",
    longitude: "138.00000000",
    states: [
      { isoCode: "13", name: "Tokyo", cities: [["Tokyo", "150-0001"]] },
      { isoCode: "26", name: "Kyōto Prefecture", cities: [["Kyoto", "604-8005"]] },
      { isoCode: "27", name: "Ōsaka Prefecture", cities: [["Osaka", "530-0001"]] },
      { isoCode: "40", name: "Fukuoka Prefecture", cities: [["Fukuoka", "810-0001"]] },
      { isoCode: "01", name: "Hokkaidō Prefecture", cities: [["Sapporo", "060-0061"]] },
    ],
  },
  {
    isoCode: "AU",
    name: "Australia",
    phonecode: "61",
    currency: "AUD",
    latitude: "-27.00000000",
    longitude: "133.00000000",
    states: [
      { isoCode: "NSW", name: "New South Wales", cities: [["Sydney", "2026"]] },
      { isoCode: "VIC", name: "Victoria", cities: [["Melbourne", "3065"]] },
      { isoCode: "QLD", name: "Queensland", cities: [["Brisbane", "4101"]] },
      { isoCode: "WA", name: "Western Australia", cities: [["Perth", "6000"]] },
      { isoCode: "TAS", name: "Tasmania", cities: [["Hobart", "7000"]] },
    ],
  },
  {
    isoCode: "CA",
    name: "Canada",
    phonecode: "1",
    currency: "CAD",
    latitude: "60.00000000",
    longitude: "-95.00000000",
    states: [
      {
        isoCode: "ON",
        name: "Ontario",
        cities: [
          ["Toronto", "M6J 1H4"],
          ["Ottawa", "K1N 5T2"],
        ],
      },
      { isoCode: "QC", name: "Quebec", cities: [["Montréal", "H2T 1S4"]] },
      { isoCode: "BC", name: "British Columbia", cities: [["Vancouver", "V6B 1A1"]] },
      { isoCode: "AB", name: "Alberta", cities: [["Calgary", "T2P 1J9"]] },
      { isoCode: "NS", name: "Nova Scotia", cities: [["Halifax", "B3H 4R2"]] },
    ],
  },
  {
    isoCode: "NG",
    name: "Nigeria",
    phonecode: "234",
    currency: "NGN",
    latitude: "10.00000000",
    longitude: "8.00000000",
    states: [
      {
        isoCode: "LA",
        name: "Lagos",
        cities: [
          ["Lagos", "101241"],
          ["Ikeja", "100271"],
        ],
      },
      { isoCode: "FC", name: "Abuja Federal Capital Territory", cities: [["Abuja", "900211"]] },
      { isoCode: "RI", name: "Rivers", cities: [["Port Harcourt", "500272"]] },
      { isoCode: "OY", name: "Oyo", cities: [["Ibadan", "200284"]] },
      { isoCode: "EN", name: "Enugu", cities: [["Enugu", "400281"]] },
    ],
  },
  {
    isoCode: "MX",
    name: "Mexico",
    phonecode: "52",
    currency: "MXN",
    latitude: "23.00000000",
    longitude: "-102.00000000",
    states: [
      {
        isoCode: "CDMX",
        name: "Ciudad de México",
        cities: [
          ["Ciudad de México", "06700"],
          ["Coyoacán", "04000"],
        ],
      },
      { isoCode: "JAL", name: "Jalisco", cities: [["Guadalajara", "44100"]] },
      { isoCode: "NLE", name: "Nuevo León", cities: [["Monterrey", "64000"]] },
      { isoCode: "YUC", name: "Yucatán", cities: [["Mérida", "97000"]] },
      { isoCode: "OAX", name: "Oaxaca", cities: [["Oaxaca", "68000"]] },
    ],
  },
  {
    isoCode: "SE",
    name: "Sweden",
    phonecode: "46",
    currency: "SEK",
    latitude: "62.00000000",
    longitude: "15.00000000",
    states: [
      { isoCode: "AB", name: "Stockholm County", cities: [["Stockholm", "118 20"]] },
      { isoCode: "O", name: "Västra Götaland County", cities: [["Göteborg", "411 04"]] },
      { isoCode: "M", name: "Skåne County", cities: [["Malmö", "211 20"]] },
      { isoCode: "C", name: "Uppsala County", cities: [["Uppsala", "753 10"]] },
    ],
  },
];

/**
 * Each city's coordinates as the server stores them (scripts/build-geo.ts: the dataset's, to two
 * decimals), so that seeded members are found by distance at once.
 */
const CITY_COORDINATES: Record<string, [number, number]> = {
  "US/NY/New York City": [40.71, -74.01],
  "US/NY/Brooklyn": [40.65, -73.95],
  "US/CA/Los Angeles": [34.05, -118.24],
  "US/CA/San Francisco": [37.77, -122.42],
  "US/CA/Oakland": [37.8, -122.27],
  "US/TX/Austin": [30.27, -97.74],
  "US/TX/Houston": [29.76, -95.36],
  "US/WA/Seattle": [47.61, -122.33],
  "US/CO/Denver": [39.74, -104.98],
  "US/GA/Atlanta": [33.75, -84.39],
  "US/OR/Portland": [45.52, -122.68],
  "US/IL/Chicago": [41.85, -87.65],
  "GB/ENG/London": [51.51, -0.13],
  "GB/ENG/Manchester": [53.42, -2.25],
  "GB/ENG/Bristol": [51.46, -2.6],
  "GB/ENG/Leeds": [53.8, -1.55],
  "GB/ENG/Brighton": [50.83, -0.14],
  "GB/SCT/Edinburgh": [55.95, -3.2],
  "GB/SCT/Glasgow": [55.87, -4.26],
  "GB/WLS/Cardiff": [51.48, -3.18],
  "DE/BE/Berlin": [52.52, 13.41],
  "DE/BY/Munich": [48.14, 11.58],
  "DE/HH/Hamburg": [53.58, 10.02],
  "DE/NW/Köln": [50.93, 6.95],
  "DE/NW/Düsseldorf": [51.22, 6.78],
  "DE/SN/Leipzig": [51.34, 12.37],
  "FR/IDF/Paris": [48.85, 2.35],
  "FR/ARA/Lyon": [45.75, 4.85],
  "FR/ARA/Grenoble": [45.18, 5.71],
  "FR/PAC/Marseille": [43.3, 5.38],
  "FR/PAC/Nice": [43.7, 7.27],
  "FR/NAQ/Bordeaux": [44.84, -0.58],
  "FR/OCC/Toulouse": [43.6, 1.44],
  "FR/OCC/Montpellier": [43.61, 3.88],
  "ES/MD/Madrid": [40.42, -3.7],
  "ES/CT/Barcelona": [41.39, 2.16],
  "ES/AN/Sevilla": [37.38, -5.97],
  "ES/AN/Málaga": [36.72, -4.42],
  "ES/VC/Valencia": [39.47, -0.38],
  "ES/PV/Bilbao": [43.26, -2.93],
  "IT/25/Milan": [45.46, 9.19],
  "IT/45/Bologna": [44.47, 11.43],
  "IT/52/Florence": [43.78, 11.25],
  "IT/62/Rome": [41.89, 12.51],
  "IT/72/Naples": [40.85, 14.27],
  "IT/82/Palermo": [37.82, 13.58],
  "BR/SP/São Paulo": [-23.55, -46.64],
  "BR/SP/Campinas": [-22.91, -47.06],
  "BR/RJ/Rio de Janeiro": [-22.92, -43.33],
  "BR/MG/Belo Horizonte": [-19.92, -43.94],
  "BR/BA/Salvador": [-12.97, -38.51],
  "BR/RS/Porto Alegre": [-30.03, -51.23],
  "IN/MH/Mumbai": [19.07, 72.88],
  "IN/MH/Pune": [18.52, 73.86],
  "IN/KA/Bengaluru": [12.97, 77.59],
  "IN/DL/New Delhi": [28.64, 77.22],
  "IN/TN/Chennai": [13.09, 80.28],
  "IN/WB/Kolkata": [22.54, 88.34],
  "JP/13/Tokyo": [35.69, 139.69],
  "JP/26/Kyoto": [35.02, 135.75],
  "JP/27/Osaka": [34.69, 135.5],
  "JP/40/Fukuoka": [33.6, 130.42],
  "JP/01/Sapporo": [43.07, 141.35],
  "AU/NSW/Sydney": [-33.87, 151.21],
  "AU/VIC/Melbourne": [-37.81, 144.96],
  "AU/QLD/Brisbane": [-27.47, 153.03],
  "AU/WA/Perth": [-31.95, 115.86],
  "AU/TAS/Hobart": [-42.88, 147.33],
  "CA/ON/Toronto": [43.7, -79.42],
  "CA/ON/Ottawa": [45.41, -75.7],
  "CA/QC/Montréal": [45.5, -73.68],
  "CA/BC/Vancouver": [49.25, -123.12],
  "CA/AB/Calgary": [51.05, -114.09],
  "CA/NS/Halifax": [44.65, -63.57],
  "NG/LA/Lagos": [6.45, 3.39],
  "NG/LA/Ikeja": [6.6, 3.34],
  "NG/FC/Abuja": [9.06, 7.5],
  "NG/RI/Port Harcourt": [4.75, 7],
  "NG/OY/Ibadan": [7.38, 3.91],
  "NG/EN/Enugu": [6.44, 7.5],
  "MX/CDMX/Ciudad de México": [19.43, -99.13],
  "MX/CDMX/Coyoacán": [19.35, -99.16],
  "MX/JAL/Guadalajara": [20.68, -103.35],
  "MX/NLE/Monterrey": [25.68, -100.32],
  "MX/YUC/Mérida": [20.98, -89.62],
  "MX/OAX/Oaxaca": [17.07, -96.72],
  "SE/AB/Stockholm": [59.33, 18.06],
  "SE/O/Göteborg": [57.71, 11.97],
  "SE/M/Malmö": [55.61, 13],
  "SE/C/Uppsala": [59.86, 17.64],
};

/** The flag emoji of a two-letter country code (its regional indicator symbols). */
export function flagOf(isoCode: string): string {
  return String.fromCodePoint(
    ...[...isoCode.toUpperCase()].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65),
  );
}

export interface SeedLocation {
  location: ProfileLocation;
  countryCode: string;
  stateCode: string;
  cityName: string;
  postalCode: string;
  latitude: number;
  longitude: number;
}

/**
 * The location object (docs/domain.md "Profile and photos") of one city of the table; throws on a
 * city it does not hold.
 */
export function seedLocation(
  countryCode: string,
  stateCode: string,
  cityName: string,
): SeedLocation {
  const country = COUNTRIES.find((c) => c.isoCode === countryCode);
  const state = country?.states.find((s) => s.isoCode === stateCode);
  const city = state?.cities.find(([name]) => name === cityName);
  if (!country || !state || !city) {
    throw new Error(`Unknown seed location ${countryCode}/${stateCode}/${cityName}`);
  }
  return {
    location: {
      country: {
        isoCode: country.isoCode,
        name: country.name,
        flag: flagOf(country.isoCode),
        phonecode: country.phonecode,
        currency: country.currency,
        latitude: country.latitude,
        longitude: country.longitude,
      },
      state: { isoCode: state.isoCode, name: state.name, countryCode: country.isoCode },
      city: { name: city[0], countryCode: country.isoCode, stateCode: state.isoCode },
    },
    countryCode: country.isoCode,
    stateCode: state.isoCode,
    cityName: city[0],
    postalCode: city[1],
    latitude: CITY_COORDINATES[`${country.isoCode}/${state.isoCode}/${city[0]}`]![0],
    longitude: CITY_COORDINATES[`${country.isoCode}/${state.isoCode}/${city[0]}`]![1],
  };
}

/** Every city of the table as [country, state, city]. */
export function allCities(countryCode?: string): [string, string, string][] {
  return COUNTRIES.filter((c) => !countryCode || c.isoCode === countryCode).flatMap((c) =>
    c.states.flatMap((s) =>
      s.cities.map(([name]): [string, string, string] => [c.isoCode, s.isoCode, name]),
    ),
  );
}
