/**
 * The members of the search benchmark and the mix of searches it sends. Members come from the
 * seed's pure generator (scripts/lib/members.ts), so every run has the same people; the searches
 * pick their words and filters from those members, so that they find someone.
 */
import { Random } from "../../scripts/lib/random";
import type { SeedMember } from "../../scripts/lib/members";

/** Rows for the bulk inserts (users, photos, profiles), as JSON arrays of one chunk. */
export function memberRows(members: SeedMember[], passwordHash: string) {
  const users = members.map((m) => ({
    id: m.id,
    username: m.username,
    email: m.email,
    password_hash: passwordHash,
    email_verified_at: new Date(Date.parse(m.createdAt) + 7 * 60_000).toISOString(),
    hide_online: m.hideOnline ? 1 : 0,
    last_seen_at: m.lastSeenAt,
    created_at: m.createdAt,
  }));
  const photos = members.flatMap((m) =>
    m.photos.map((p) => ({
      id: p.id,
      user_id: m.id,
      r2_key: `photos/${m.id}/${p.id}.png`,
      position: p.position,
      created_at: m.createdAt,
    })),
  );
  const profiles = members.map((m) => ({
    user_id: m.id,
    first_name: m.firstName,
    last_name: m.lastName,
    date_of_birth: m.dateOfBirth,
    bio: m.bio,
    gender: m.gender,
    ethnicity: m.ethnicity,
    interests: JSON.stringify(m.interests),
    preferences: JSON.stringify(m.preferences),
    age_min: m.ageRange.min,
    age_max: m.ageRange.max,
    country_code: m.countryCode,
    state_code: m.stateCode,
    city_name: m.cityName,
    location: JSON.stringify(m.location),
    postal_code: m.postalCode,
    latitude: m.latitude,
    longitude: m.longitude,
  }));
  return { users, photos, profiles };
}

// OR IGNORE: a chunk sent again after a lost answer changes nothing.
export const INSERT_USERS = `INSERT OR IGNORE INTO users (id, username, email, password_hash, email_verified_at, hide_online, last_seen_at, created_at, updated_at)
  SELECT j.value->>'id', j.value->>'username', j.value->>'email', j.value->>'password_hash',
         j.value->>'email_verified_at', j.value->>'hide_online', j.value->>'last_seen_at',
         j.value->>'created_at', j.value->>'created_at'
  FROM json_each(?1) j`;

export const INSERT_PHOTOS = `INSERT OR IGNORE INTO photos (id, user_id, r2_key, content_type, size, position, etag, created_at)
  SELECT j.value->>'id', j.value->>'user_id', j.value->>'r2_key', 'image/png', 2048,
         j.value->>'position', 'bench', j.value->>'created_at'
  FROM json_each(?1) j`;

// Photos go in before profiles: a profile's insert indexes the member, photos already counted.
export const INSERT_PROFILES = `INSERT OR IGNORE INTO profiles (user_id, first_name, last_name, date_of_birth, bio, gender, ethnicity,
    interests, preferences, age_min, age_max, country_code, state_code, city_name, location, postal_code,
    latitude, longitude)
  SELECT j.value->>'user_id', j.value->>'first_name', j.value->>'last_name', j.value->>'date_of_birth',
         j.value->>'bio', j.value->>'gender', j.value->>'ethnicity', j.value->>'interests',
         j.value->>'preferences', j.value->>'age_min', j.value->>'age_max', j.value->>'country_code',
         j.value->>'state_code', j.value->>'city_name', j.value->>'location', j.value->>'postal_code',
         j.value->>'latitude', j.value->>'longitude'
  FROM json_each(?1) j`;

export interface BenchQuery {
  kind: string;
  body: { keywords?: string; filters?: Record<string, unknown> };
  /** Follow the cursor for this many more pages ("load more"). */
  more: number;
}

/** What the mix draws its words and filters from. */
export interface Vocabulary {
  places: { country: string; state: string; city: string }[];
  firstNames: string[];
  usernames: string[];
  interests: string[];
}

export function vocabularyOf(members: SeedMember[]): Vocabulary {
  const places = new Map<string, { country: string; state: string; city: string }>();
  const firstNames = new Set<string>();
  const interests = new Set<string>();
  for (const m of members) {
    places.set(`${m.countryCode}|${m.stateCode}|${m.cityName}`, {
      country: m.countryCode,
      state: m.stateCode,
      city: m.cityName,
    });
    firstNames.add(m.firstName);
    for (const i of m.interests) interests.add(i);
  }
  const rng = new Random("bench-usernames");
  return {
    places: [...places.values()],
    firstNames: [...firstNames],
    usernames: Array.from({ length: 500 }, () => members[rng.int(0, members.length - 1)]!.username),
    interests: [...interests],
  };
}

type Maker = (rng: Random, v: Vocabulary) => BenchQuery["body"];

const pick = <T>(rng: Random, list: readonly T[]) => list[rng.int(0, list.length - 1)]!;

/** The mix: [weight, kind, request]. Weights are relative. */
const MIX: [number, string, Maker][] = [
  [10, "no filters", () => ({})],
  [10, "gender", (r) => ({ filters: { gender: pick(r, ["woman", "man", "non-binary"]) } })],
  [7, "country", (r, v) => ({ filters: { country: pick(r, v.places).country } })],
  [
    4,
    "country+state",
    (r, v) => {
      const p = pick(r, v.places);
      return { filters: { country: p.country, state: p.state } };
    },
  ],
  [
    6,
    "city",
    (r, v) => {
      const p = pick(r, v.places);
      return { filters: { country: p.country, state: p.state, city: p.city } };
    },
  ],
  [
    7,
    "interests (any of 1-3)",
    (r, v) => ({
      filters: { interests: Array.from({ length: r.int(1, 3) }, () => pick(r, v.interests)) },
    }),
  ],
  [7, "keyword: interest", (r, v) => ({ keywords: pick(r, v.interests) })],
  [7, "keyword: first name", (r, v) => ({ keywords: pick(r, v.firstNames) })],
  [4, "keyword: username", (r, v) => ({ keywords: pick(r, v.usernames) })],
  [4, "keyword: 3-letter prefix", (r, v) => ({ keywords: pick(r, v.interests).slice(0, 3) })],
  [
    6,
    "keyword+gender+country",
    (r, v) => ({
      keywords: pick(r, v.interests),
      filters: { gender: pick(r, ["woman", "man"]), country: pick(r, v.places).country },
    }),
  ],
  [
    5,
    "age (narrow)",
    (r) => {
      const min = r.int(18, 60);
      return { filters: { age_min: min, age_max: min + r.int(1, 5) } };
    },
  ],
  [4, "age (broad)+photo", () => ({ filters: { age_min: 20, age_max: 60, with_photo: true } })],
  [4, "online now", () => ({ filters: { online_only: true } })],
  [
    3,
    "online+gender+age",
    (r) => ({
      filters: { online_only: true, gender: pick(r, ["woman", "man"]), age_min: 25, age_max: 40 },
    }),
  ],
  [
    3,
    "interests+city",
    (r, v) => {
      const p = pick(r, v.places);
      return {
        filters: {
          country: p.country,
          state: p.state,
          city: p.city,
          interests: [pick(r, v.interests)],
        },
      };
    },
  ],
  [9, "load more (pages 2-4)", (r) => ({ filters: { gender: pick(r, ["woman", "man"]) } })],
  // Near me: the searcher lives in New York City (run.ts, addSearcher).
  [5, "radius", (r) => ({ filters: { distance_km: pick(r, [10, 30, 100, 500]) } })],
  [
    4,
    "radius+age+gender",
    (r) => ({
      filters: {
        distance_km: pick(r, [30, 100]),
        gender: pick(r, ["woman", "man"]),
        age_min: 25,
        age_max: 40,
      },
    }),
  ],
  [
    4,
    "radius+keywords",
    (r, v) => ({ keywords: pick(r, v.interests), filters: { distance_km: pick(r, [30, 300]) } }),
  ],
  [
    4,
    "sorted by distance",
    (r) => ({ filters: { sort: "distance", ...(r.chance(0.5) ? { distance_km: 50 } : {}) } }),
  ],
  [3, "load more: radius (pages 2-4)", () => ({ filters: { distance_km: 30 } })],
  [3, "load more: by distance (pages 2-4)", () => ({ filters: { sort: "distance" } })],
];

/** `count` searches drawn from the mix, the same for a given seed. */
export function queryMix(v: Vocabulary, count: number, seed = "bench-search"): BenchQuery[] {
  const rng = new Random(seed);
  const total = MIX.reduce((sum, [w]) => sum + w, 0);
  return Array.from({ length: count }, () => {
    let roll = rng.range(0, total);
    for (const [weight, kind, make] of MIX) {
      roll -= weight;
      if (roll < 0) return { kind, body: make(rng, v), more: kind.startsWith("load more") ? 3 : 0 };
    }
    const [, kind, make] = MIX[0]!;
    return { kind, body: make(rng, v), more: 0 };
  });
}

/** Representative requests, one per query shape, for EXPLAIN QUERY PLAN. */
export function planShapes(v: Vocabulary): { name: string; body: BenchQuery["body"] }[] {
  const p = v.places[0]!;
  return [
    { name: "no filters", body: {} },
    { name: "gender + age", body: { filters: { gender: "woman", age_min: 25, age_max: 35 } } },
    { name: "city", body: { filters: { country: p.country, state: p.state, city: p.city } } },
    { name: "keyword", body: { keywords: v.interests[0] } },
    {
      name: "keyword + gender + country",
      body: { keywords: v.interests[1], filters: { gender: "man", country: p.country } },
    },
    { name: "interests", body: { filters: { interests: v.interests.slice(0, 2) } } },
    {
      name: "interests + city",
      body: {
        filters: { country: p.country, state: p.state, city: p.city, interests: [v.interests[2]] },
      },
    },
    { name: "age (narrow)", body: { filters: { age_min: 33, age_max: 35 } } },
    { name: "online now", body: { filters: { online_only: true } } },
    { name: "radius 30 km", body: { filters: { distance_km: 30 } } },
    {
      name: "radius + age + gender",
      body: { filters: { distance_km: 100, gender: "woman", age_min: 25, age_max: 40 } },
    },
    { name: "radius + keyword", body: { keywords: v.interests[0], filters: { distance_km: 300 } } },
    { name: "sorted by distance", body: { filters: { sort: "distance" } } },
    { name: "newest", body: { filters: { sort: "newest" } } },
  ];
}
