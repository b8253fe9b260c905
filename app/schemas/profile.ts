import { z } from "./zod";
import { ageOn, isRealDate, MINIMUM_AGE } from "~/lib/age";
import type { PhotoUrls } from "~/lib/photos";
import { DOB_REQUIRED_MESSAGE, UNDERAGE_MESSAGE, usernameField } from "./auth";
import { AGE_RANGE, BIO_MAX, LIST_ITEM_MAX, LIST_MAX_ITEMS } from "./profile-limits";
import { promptsField, type PromptEntry } from "./prompts";
import { dedupe, safeText } from "./text";

/**
 * The profile form and its rules (docs/domain.md "Profile and photos"), written once: the settings
 * page validates with it as the member types, and the server parses the merged profile with it (422
 * with a field-to-messages map, nested fields under dotted keys such as `ageRange.min`).
 */

export const PROFILE_MESSAGES = {
  preferName: "Please provide your prefer name",
  dateOfBirth: DOB_REQUIRED_MESSAGE,
  underage: UNDERAGE_MESSAGE,
  location: "Invalid location data",
  bio: "The bio field is required.",
  bioMax: "The bio field must not be greater than 2000 characters.",
  atLeastOne: "Please input at least one item",
  tooManyItems: "Please keep the list to at most 20 items",
  itemLength: "Each item must be at most 40 characters",
  ageMinLow: "Minimum age must be at least 18",
  ageMinHigh: "Minimum age must be less than 100",
  ageMaxLow: "Maximum age must be at least 19",
  ageMaxHigh: "Maximum age cannot exceed 100",
  ageOrder: "Minimum age must be less than maximum age",
  gender: "Please provide your gender",
  ethnicity: "Please provide your ethnicity",
  postalCode: "The postal code must not be greater than 20 characters.",
  textMax: "This field must not be greater than 50 characters.",
} as const;

export { AGE_RANGE, BIO_MAX, LIST_ITEM_MAX, LIST_MAX_ITEMS };

/** A text field that may be left out or null but, when given, has at least one character. */
const optionalText = (message: string) =>
  safeText(z.string({ error: message }).trim().min(1, message).max(50, PROFILE_MESSAGES.textMax))
    .nullable()
    .optional();

/** docs/domain.md "Profile and photos": the shapes of `country-state-city`. */
export const countrySchema = z.object({
  isoCode: z.string().regex(/^[A-Z]{2}$/),
  name: safeText(z.string().min(1).max(100)),
  flag: z.string().max(16).optional(),
  phonecode: z.string().max(32).optional(),
  currency: z.string().max(32).optional(),
  latitude: z.string().max(32).optional(),
  longitude: z.string().max(32).optional(),
});
export const stateSchema = z.object({
  isoCode: z.string().min(1).max(10),
  name: safeText(z.string().min(1).max(100)),
  countryCode: z.string().regex(/^[A-Z]{2}$/),
});
export const citySchema = z.object({
  name: safeText(z.string().min(1).max(100)),
  countryCode: z.string().regex(/^[A-Z]{2}$/),
  stateCode: z.string().min(1).max(10),
});

const locationShape = z
  .object({
    country: countrySchema,
    state: stateSchema.nullable().optional(),
    city: citySchema.nullable().optional(),
  })
  .refine(
    (l) =>
      (!l.state || l.state.countryCode === l.country.isoCode) &&
      (!l.city ||
        (l.state != null &&
          l.city.countryCode === l.country.isoCode &&
          l.city.stateCode === l.state.isoCode)),
  );

export type Country = z.infer<typeof countrySchema>;
export type GeoState = z.infer<typeof stateSchema>;
export type City = z.infer<typeof citySchema>;
export type Location = z.infer<typeof locationShape>;

/**
 * docs/domain.md "Profile and photos": empty (null or `{}`), or an object whose country has an
 * isoCode. Every problem is one message on `location`, shown beside the picker.
 */
export const locationField = z.unknown().transform((value, ctx): Location | null => {
  if (value == null) return null;
  if (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) {
    return null;
  }
  const parsed = locationShape.safeParse(value);
  if (!parsed.success) {
    ctx.addIssue({ code: "custom", message: PROFILE_MESSAGES.location });
    return z.NEVER;
  }
  const { country, state, city } = parsed.data;
  return { country, state: state ?? null, city: state ? (city ?? null) : null };
});

const tagList = z
  .array(
    safeText(
      z
        .string({ error: PROFILE_MESSAGES.atLeastOne })
        .trim()
        .min(1, PROFILE_MESSAGES.atLeastOne)
        .max(LIST_ITEM_MAX, PROFILE_MESSAGES.itemLength),
    ),
    { error: PROFILE_MESSAGES.atLeastOne },
  )
  .min(1, PROFILE_MESSAGES.atLeastOne)
  .max(LIST_MAX_ITEMS, PROFILE_MESSAGES.tooManyItems)
  .transform(dedupe);

const ageNumber = (low: number, lowMessage: string, high: number, highMessage: string) =>
  z.number({ error: lowMessage }).int(lowMessage).min(low, lowMessage).max(high, highMessage);

export const ageRangeSchema = z
  .object(
    {
      min: ageNumber(
        AGE_RANGE.minLow,
        PROFILE_MESSAGES.ageMinLow,
        AGE_RANGE.minHigh,
        PROFILE_MESSAGES.ageMinHigh,
      ),
      max: ageNumber(
        AGE_RANGE.maxLow,
        PROFILE_MESSAGES.ageMaxLow,
        AGE_RANGE.maxHigh,
        PROFILE_MESSAGES.ageMaxHigh,
      ),
    },
    { error: PROFILE_MESSAGES.ageMinLow },
  )
  // Compared only when both bounds are valid numbers in range: otherwise their own messages say it.
  .refine((r) => !(inBounds(r.min, "min") && inBounds(r.max, "max")) || r.min < r.max, {
    path: ["min"],
    message: PROFILE_MESSAGES.ageOrder,
  });

function inBounds(value: unknown, bound: "min" | "max") {
  const [low, high] =
    bound === "min" ? [AGE_RANGE.minLow, AGE_RANGE.minHigh] : [AGE_RANGE.maxLow, AGE_RANGE.maxHigh];
  return Number.isInteger(value) && (value as number) >= low && (value as number) <= high;
}

/** Optional or null; when given, a real date on which the member is at least 18. */
export const profileDateOfBirth = z
  .string({ error: PROFILE_MESSAGES.dateOfBirth })
  .trim()
  .refine(isRealDate, { message: PROFILE_MESSAGES.dateOfBirth, abort: true })
  .refine((v) => ageOn(v) >= MINIMUM_AGE, PROFILE_MESSAGES.underage)
  .refine((v) => ageOn(v) <= 120, PROFILE_MESSAGES.dateOfBirth)
  .nullable()
  .optional();

export const profileSchema = z.object({
  firstName: optionalText(PROFILE_MESSAGES.preferName),
  lastName: optionalText(PROFILE_MESSAGES.preferName),
  username: usernameField,
  dateOfBirth: profileDateOfBirth,
  location: locationField.optional(),
  postalCode: safeText(
    z.string({ error: PROFILE_MESSAGES.postalCode }).trim().max(20, PROFILE_MESSAGES.postalCode),
  )
    .nullable()
    .optional()
    .transform((v) => (v ? v : null)),
  bio: safeText(
    z
      .string({ error: PROFILE_MESSAGES.bio })
      .trim()
      .min(1, PROFILE_MESSAGES.bio)
      .max(BIO_MAX, PROFILE_MESSAGES.bioMax),
    { multiline: true },
  ),
  interests: tagList,
  preferences: tagList,
  ageRange: ageRangeSchema,
  gender: optionalText(PROFILE_MESSAGES.gender),
  ethnicity: optionalText(PROFILE_MESSAGES.ethnicity),
  /** Answers to Heartline's prompts (app/schemas/prompts.ts): up to three. */
  prompts: promptsField.default([]),
});

export type ProfileFormInput = z.input<typeof profileSchema>;
export type ProfileForm = z.output<typeof profileSchema>;

/** The fields a client may send to PUT /my/profile (each optional: absent ones keep their value). */
export const PROFILE_FIELDS = [
  "firstName",
  "lastName",
  "username",
  "dateOfBirth",
  "location",
  "postalCode",
  "bio",
  "interests",
  "preferences",
  "ageRange",
  "gender",
  "ethnicity",
  "prompts",
] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

/** One of a member's photos: `url` is its largest width's signed address, `urls` each width's. */
export interface ProfilePhoto {
  id: string;
  url: string;
  urls: PhotoUrls;
  position: number;
}

/**
 * GET /my/profile's `profile`: the form fields plus the account fields and photos (docs/api.md
 * "Profile and photos").
 */
export interface Profile {
  id: string;
  email: string;
  email_verified_at: string | null;
  firstName: string | null;
  lastName: string | null;
  username: string;
  dateOfBirth: string;
  location: Location | null;
  postalCode: string | null;
  bio: string;
  interests: string[];
  preferences: string[];
  ageRange: { min: number; max: number };
  gender: string | null;
  ethnicity: string | null;
  prompts: PromptEntry[];
  photos: ProfilePhoto[];
}

/** A profile form's values as its fields hold them (blanks as empty strings). */
export interface ProfileFormValues {
  firstName: string;
  lastName: string;
  username: string;
  dateOfBirth: string;
  location: Location | null;
  postalCode: string;
  bio: string;
  interests: string[];
  preferences: string[];
  ageRange: { min: number; max: number };
  gender: string;
  ethnicity: string;
  prompts: PromptEntry[];
}

/**
 * What the settings page sends: every field, blanks as null, and the location only when a country
 * is set (docs/domain.md). A member who removes a stored location sends an explicit null, so that
 * the merge (docs/domain.md) does not keep the old one.
 */
export function toProfilePayload(
  form: ProfileFormValues,
  options: { hadLocation: boolean },
): ProfileFormInput {
  const blankToNull = (v: string) => (v.trim() === "" ? null : v);
  const payload: ProfileFormInput = {
    firstName: blankToNull(form.firstName),
    lastName: blankToNull(form.lastName),
    username: form.username,
    dateOfBirth: form.dateOfBirth === "" ? null : form.dateOfBirth,
    postalCode: blankToNull(form.postalCode),
    bio: form.bio,
    interests: form.interests,
    preferences: form.preferences,
    ageRange: form.ageRange,
    gender: blankToNull(form.gender),
    ethnicity: blankToNull(form.ethnicity),
    prompts: form.prompts,
  };
  if (form.location?.country?.isoCode) payload.location = form.location;
  else if (options.hadLocation) payload.location = null;
  return payload;
}
