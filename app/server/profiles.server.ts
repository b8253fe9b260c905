import { eq, sql } from "drizzle-orm";
import type { z } from "zod";
import {
  PROFILE_FIELDS,
  PROFILE_MESSAGES,
  profileSchema,
  type Profile,
  type ProfileForm,
} from "~/schemas/profile";
import { isReservedUsername, USERNAME_RESERVED } from "~/schemas/auth";
import { getDb, nowIso, schema } from "./db.server";
import type { Env } from "./env.server";
import { notFound, ValidationError } from "./errors.server";
import { canonicalLocation, locationPoint } from "./geo.server";
import { listPhotos } from "./photos.server";
import { parseInput } from "./validation.server";

export const USERNAME_TAKEN = "This username is already taken.";

/**
 * GET /my/profile: the member's profile form fields, account fields and photos (docs/api.md
 * "Profile and photos").
 */
export async function loadProfile(env: Env, userId: string): Promise<Profile> {
  const row = await getDb(env.DB)
    .select({ user: schema.users, profile: schema.profiles })
    .from(schema.users)
    .innerJoin(schema.profiles, eq(schema.profiles.userId, schema.users.id))
    .where(eq(schema.users.id, userId))
    .get();
  if (!row) throw notFound("Profile not found.");
  const { user, profile } = row;
  return {
    id: user.id,
    email: user.email,
    email_verified_at: user.emailVerifiedAt,
    firstName: profile.firstName,
    lastName: profile.lastName,
    username: user.username,
    dateOfBirth: profile.dateOfBirth,
    location: profile.location ?? null,
    postalCode: profile.postalCode,
    bio: profile.bio,
    interests: profile.interests,
    preferences: profile.preferences,
    ageRange: { min: profile.ageMin, max: profile.ageMax },
    gender: profile.gender,
    ethnicity: profile.ethnicity,
    prompts: profile.prompts ?? [],
    photos: await listPhotos(env, userId),
  };
}

/** The stored profile as the form's parsed values (what a partial update leaves as it is). */
function storedForm(stored: Profile): ProfileForm {
  const { firstName, lastName, username, dateOfBirth, location, postalCode, bio } = stored;
  const { interests, preferences, ageRange, gender, ethnicity, prompts } = stored;
  return {
    firstName,
    lastName,
    username,
    dateOfBirth,
    location,
    postalCode,
    bio,
    interests,
    preferences,
    ageRange,
    gender,
    ethnicity,
    prompts,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * docs/domain.md "Profile and photos" (merge): the submitted fields over the stored profile. Fields
 * absent from the request keep their stored values; a partial ageRange keeps the stored other
 * bound; a date of birth sent as null or blank keeps the stored one (a member always has one: they
 * must be 18+).
 */
export function mergeProfile(stored: Profile, submitted: Record<string, unknown>) {
  const merged: Record<string, unknown> = {};
  for (const field of PROFILE_FIELDS) merged[field] = stored[field];
  for (const field of PROFILE_FIELDS) {
    if (!(field in submitted)) continue;
    const value = submitted[field];
    if (field === "dateOfBirth" && (value === null || value === "")) continue;
    if (field === "ageRange" && isObject(value)) {
      merged.ageRange = { ...stored.ageRange, ...value };
      continue;
    }
    merged[field] = value;
  }
  return merged;
}

/**
 * PUT /my/profile: merges the submitted fields into the stored profile, validates the result with
 * the shared schema (422 with the messages of docs/domain.md), checks the location against the
 * dataset and the username against other members, then stores it and returns the profile.
 *
 * `part` (an onboarding step's form, a pick of the profile schema) validates and stores only the
 * fields it names; every other field keeps its stored value, even one a new member has not filled
 * in yet.
 */
export async function updateProfile(
  env: Env,
  userId: string,
  submitted: Record<string, unknown>,
  part?: z.ZodType<Partial<ProfileForm>>,
): Promise<Profile> {
  const stored = await loadProfile(env, userId);
  const merged = mergeProfile(stored, submitted);
  const input: ProfileForm = part
    ? { ...storedForm(stored), ...parseInput(part, merged) }
    : parseInput(profileSchema, merged);

  let location = input.location ?? null;
  if (location) {
    location = await canonicalLocation(env, location);
    if (!location) throw new ValidationError({ location: [PROFILE_MESSAGES.location] });
  }

  const db = getDb(env.DB);
  const usernameChanged = input.username !== stored.username;
  if (usernameChanged && isReservedUsername(input.username)) {
    throw new ValidationError({ username: [USERNAME_RESERVED] });
  }
  if (usernameChanged) {
    const taken = await db
      .select({ id: schema.users.id })
      .from(schema.users)
      .where(sql`${schema.users.username} = ${input.username} COLLATE NOCASE`)
      .get();
    if (taken && taken.id !== userId) throw new ValidationError({ username: [USERNAME_TAKEN] });
  }

  const now = nowIso();
  const point = await locationPoint(env, location);
  const profileUpdate = db
    .update(schema.profiles)
    .set({
      firstName: input.firstName ?? null,
      lastName: input.lastName ?? null,
      dateOfBirth: input.dateOfBirth ?? stored.dateOfBirth,
      bio: input.bio,
      gender: input.gender ?? null,
      ethnicity: input.ethnicity ?? null,
      interests: input.interests,
      preferences: input.preferences,
      prompts: input.prompts,
      ageMin: input.ageRange.min,
      ageMax: input.ageRange.max,
      location,
      countryCode: location?.country.isoCode ?? null,
      stateCode: location?.state?.isoCode ?? null,
      cityName: location?.city?.name ?? null,
      ...point,
      postalCode: input.postalCode,
      updatedAt: now,
    })
    .where(eq(schema.profiles.userId, userId));
  const userUpdate = db
    .update(schema.users)
    .set({ username: input.username, updatedAt: now })
    .where(eq(schema.users.id, userId));
  try {
    if (usernameChanged) await db.batch([userUpdate, profileUpdate]);
    else await profileUpdate;
  } catch (error) {
    // Another member took the username between the check and the write.
    if (String(error).includes("UNIQUE")) {
      throw new ValidationError({ username: [USERNAME_TAKEN] });
    }
    throw error;
  }
  return loadProfile(env, userId);
}
