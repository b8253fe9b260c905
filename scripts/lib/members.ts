import type { ProfileLocation, ProfilePrompt } from "~/server/db/schema";
import { DEMO_EMAIL } from "./demo-account";
import { seedLocation } from "./locations";
import { Random, seedId } from "./random";
import { DEMO_PROFILE, ROSTER, type RosterEntry } from "./roster";
import { syntheticEntry } from "./synthetic";
import type { Gender } from "./vocabulary";

export interface SeedPhoto {
  id: string;
  /** 0-based; 0 is the main photo. */
  position: number;
}

/** One seeded member: everything the users, profiles and photos rows need, and nothing random. */
export interface SeedMember {
  id: string;
  username: string;
  email: string;
  demo: boolean;
  firstName: string;
  lastName: string;
  gender: Gender;
  ethnicity: string;
  age: number;
  /** YYYY-MM-DD, such that the member is `age` on the day of `now`. */
  dateOfBirth: string;
  bio: string;
  interests: string[];
  preferences: string[];
  /** Answers to the profile prompts, as `profiles.prompts` stores them (none for generated members). */
  prompts: ProfilePrompt[];
  ageRange: { min: number; max: number };
  location: ProfileLocation;
  countryCode: string;
  stateCode: string;
  cityName: string;
  postalCode: string;
  /** The city's coordinates, as a saved place has them. */
  latitude: number;
  longitude: number;
  hideOnline: boolean;
  lastSeenAt: string;
  createdAt: string;
  photos: SeedPhoto[];
}

export interface BuildMembersOptions {
  /**
   * How many members besides the demo account. Up to the roster's size (73) they are the
   * hand-written ones; beyond it, generated ones are added (for load tests).
   */
  count?: number;
  /** The clock that ages, last-seen times and join dates are relative to. */
  now?: Date;
  /** Leave the demo account out. */
  withoutDemo?: boolean;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** The size of the hand-written roster. */
export const ROSTER_SIZE = ROSTER.length;

/** The seed's photo id of a member's `index`-th photo. */
export function seedPhotoId(username: string, index: number): string {
  return seedId(`photo:${username.toLowerCase()}:${index}`);
}

/** The seed's user id of a username. */
export function seedUserId(username: string): string {
  return seedId(`user:${username.toLowerCase()}`);
}

/**
 * The demo members, the demo account first. Pure: the same options give the same list, so it can
 * be reused by benchmarks and tests. Dates that should look recent (last seen, joined) are
 * relative to `now`; everything else is fixed per username.
 */
export function buildMembers(options: BuildMembersOptions = {}): SeedMember[] {
  const now = options.now ?? new Date();
  const count = options.count ?? ROSTER.length;
  const entries: RosterEntry[] = ROSTER.slice(0, count);
  for (let i = 0; entries.length < count; i++) entries.push(syntheticEntry(i));

  const members = entries.map((entry) => toMember(entry, now, false));
  if (!options.withoutDemo) members.unshift(toMember(DEMO_PROFILE, now, true));

  const seen = new Set<string>();
  for (const m of members) {
    const key = m.username.toLowerCase();
    if (seen.has(key)) throw new Error(`Duplicate seed username ${m.username}`);
    seen.add(key);
  }
  return members;
}

function toMember(entry: RosterEntry, now: Date, demo: boolean): SeedMember {
  const rng = new Random(`member:${entry.username}`);
  const place = seedLocation(...entry.at);

  // Whom they would like to meet: a window around their own age, a little wider upwards.
  const min = Math.max(18, entry.age - rng.int(2, 9));
  const max = Math.min(100, Math.max(min + 4, entry.age + rng.int(3, 12)));

  const lastSeenAgo = demo
    ? 0
    : rng.weighted<() => number>([
        [() => rng.range(0, 4) * MINUTE_MS, 18], // around now: shows as online while connected
        [() => rng.range(10, 600) * MINUTE_MS, 27], // earlier today
        [() => rng.range(1, 7) * DAY_MS, 33], // this week
        [() => rng.range(8, 45) * DAY_MS, 22], // a while ago
      ])();
  const joinedAgo = lastSeenAgo + rng.range(2, 420) * DAY_MS;

  const photoCount = demo
    ? 3
    : rng.weighted([
        [1, 25],
        [2, 40],
        [3, 35],
      ]);

  return {
    id: seedUserId(entry.username),
    username: entry.username,
    email: demo ? DEMO_EMAIL : `${entry.username.toLowerCase()}@example.com`,
    demo,
    firstName: entry.firstName,
    lastName: entry.lastName,
    gender: entry.gender,
    ethnicity: entry.ethnicity,
    age: entry.age,
    dateOfBirth: dateOfBirthFor(entry.age, rng.int(1, 12), rng.int(1, 28), now),
    bio: entry.bio,
    interests: [...entry.interests],
    preferences: [...entry.preferences],
    prompts: (entry.prompts ?? []).map(({ prompt_id, answer }) => ({ prompt_id, answer })),
    ageRange: demo ? { min: 25, max: 45 } : { min, max },
    location: place.location,
    countryCode: place.countryCode,
    stateCode: place.stateCode,
    cityName: place.cityName,
    postalCode: place.postalCode,
    latitude: place.latitude,
    longitude: place.longitude,
    hideOnline: !demo && rng.chance(0.06),
    lastSeenAt: new Date(now.getTime() - lastSeenAgo).toISOString(),
    createdAt: new Date(now.getTime() - joinedAgo).toISOString(),
    photos: Array.from({ length: photoCount }, (_, position) => ({
      id: seedPhotoId(entry.username, position),
      position,
    })),
  };
}

/** The birthday (month, day) in the year that makes someone `age` on `now` (UTC). */
function dateOfBirthFor(age: number, month: number, day: number, now: Date): string {
  const hadBirthday =
    now.getUTCMonth() + 1 > month || (now.getUTCMonth() + 1 === month && now.getUTCDate() >= day);
  const year = now.getUTCFullYear() - age - (hadBirthday ? 0 : 1);
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}
