import { useMemo, useState } from "react";
import type { z } from "zod";
import { AgeRange } from "~/components/profile/age-range";
import { TagInput } from "~/components/profile/tag-input";
import {
  BIO_MAX,
  toProfilePayload,
  type Profile,
  type ProfileFormInput,
  type ProfileFormValues,
} from "~/schemas/profile";
import { fieldErrors, firstErrors } from "~/schemas/validation";

/**
 * The profile form's fields and their state, written once: the profile settings page shows all of
 * them, each onboarding step some of them, and both validate with a schema of app/schemas/profile.
 */

export const INTEREST_SUGGESTIONS = [
  "Travel",
  "Hiking",
  "Cooking",
  "Live music",
  "Movies",
  "Reading",
  "Fitness",
  "Photography",
  "Art",
  "Gaming",
  "Yoga",
  "Dancing",
  "Coffee",
  "Dogs",
  "Cats",
  "Wine",
] as const;

export const PREFERENCE_SUGGESTIONS = [
  "Long-term relationship",
  "Something casual",
  "New friends",
  "Marriage",
  "Non-smoker",
  "Wants children",
  "Doesn't want children",
  "Loves to travel",
  "Active lifestyle",
  "Good listener",
] as const;

export const ETHNICITIES = [
  "Asian",
  "Black",
  "Hispanic or Latino",
  "Middle Eastern",
  "Mixed",
  "Native American",
  "Pacific Islander",
  "South Asian",
  "White",
  "Other",
];

export const profileFormValues = (p: Profile): ProfileFormValues => ({
  firstName: p.firstName ?? "",
  lastName: p.lastName ?? "",
  username: p.username,
  dateOfBirth: p.dateOfBirth,
  location: p.location,
  postalCode: p.postalCode ?? "",
  bio: p.bio,
  interests: p.interests,
  preferences: p.preferences,
  ageRange: p.ageRange,
  gender: p.gender ?? "",
  ethnicity: p.ethnicity ?? "",
  prompts: p.prompts ?? [],
});

/**
 * The state of a profile form: its values, which fields were touched, the schema's messages (shown
 * once a field is touched or the form submitted) and the server's (shown until the field changes).
 * `schema` validates the payload the form would send; `onEdit` hears of every change;
 * `serverErrors` are the messages a submission already got (a page rendered after it).
 */
export function useProfileForm(
  profile: Profile,
  schema: z.ZodType,
  {
    onEdit,
    serverErrors: initialServerErrors = {},
  }: { onEdit?: () => void; serverErrors?: Record<string, string> } = {},
) {
  const [values, setValues] = useState<ProfileFormValues>(() => profileFormValues(profile));
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>(initialServerErrors);

  const payload: ProfileFormInput = useMemo(
    () => toProfilePayload(values, { hadLocation: Boolean(profile.location) }),
    [values, profile.location],
  );
  const clientErrors = useMemo(() => {
    const result = schema.safeParse(payload);
    return result.success ? {} : firstErrors(fieldErrors(result.error));
  }, [schema, payload]);

  // A nested key shows once it or a field around it was touched (`prompts.0.answer`: itself,
  // `prompts.0` or `prompts`).
  const show = (key: string) =>
    submitted || key.split(".").some((_, i, parts) => touched[parts.slice(0, i + 1).join(".")]);
  const errorFor = (key: string) =>
    (show(key) ? clientErrors[key] : undefined) ?? serverErrors[key];

  /** A new value; `touch: false` leaves its messages hidden until the field is left. */
  const set = <K extends keyof ProfileFormValues>(
    key: K,
    value: ProfileFormValues[K],
    { touch = true }: { touch?: boolean } = {},
  ) => {
    setValues((v) => ({ ...v, [key]: value }));
    if (touch) setTouched((t) => ({ ...t, [key]: true }));
    onEdit?.();
    setServerErrors((errors) =>
      Object.fromEntries(Object.entries(errors).filter(([k]) => k.split(".")[0] !== key)),
    );
  };
  const touch = (key: string) => setTouched((t) => ({ ...t, [key]: true }));

  /** After a save: start again from what the server stored, nothing touched. */
  const reset = (stored: Profile) => {
    setValues(profileFormValues(stored));
    setSubmitted(false);
    setTouched({});
    setServerErrors({});
  };

  return {
    values,
    payload,
    clientErrors,
    errorFor,
    set,
    touch,
    reset,
    setSubmitted,
    setServerErrors,
  };
}

export type ProfileFormState = ReturnType<typeof useProfileForm>;

type TextKey = "firstName" | "lastName" | "username" | "postalCode" | "gender" | "ethnicity";

export function ProfileTextField({
  form,
  name,
  label,
  autoComplete,
  hint,
  list,
  maxLength = 50,
}: {
  form: ProfileFormState;
  name: TextKey;
  label: string;
  autoComplete?: string;
  hint?: string;
  list?: string;
  maxLength?: number;
}) {
  const error = form.errorFor(name);
  const id = `profile-${name}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        className="input"
        value={form.values[name]}
        autoComplete={autoComplete}
        list={list}
        maxLength={maxLength}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => form.set(name, e.target.value)}
        onBlur={() => form.touch(name)}
      />
      {error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : hint ? (
        <p className="field-hint">{hint}</p>
      ) : null}
    </div>
  );
}

export function BioField({ form, rows = 5 }: { form: ProfileFormState; rows?: number }) {
  const error = form.errorFor("bio");
  return (
    <div className="field">
      <label htmlFor="profile-bio">Bio</label>
      <textarea
        id="profile-bio"
        name="bio"
        className="input textarea"
        rows={rows}
        maxLength={BIO_MAX}
        placeholder="What makes you smile? What are you looking for?"
        value={form.values.bio}
        aria-invalid={error ? true : undefined}
        aria-describedby="profile-bio-count"
        onChange={(e) => form.set("bio", e.target.value)}
        onBlur={() => form.touch("bio")}
      />
      <div className="field-foot">
        {error ? (
          <p className="field-error" role="alert">
            {error}
          </p>
        ) : (
          <span />
        )}
        <span id="profile-bio-count" className="field-hint">
          {form.values.bio.length} / {BIO_MAX}
        </span>
      </div>
    </div>
  );
}

export function InterestsField({ form }: { form: ProfileFormState }) {
  return (
    <TagInput
      id="profile-interests"
      label="Your interests"
      values={form.values.interests}
      onChange={(v) => form.set("interests", v)}
      onBlur={() => form.touch("interests")}
      placeholder="Add an interest"
      suggestions={INTEREST_SUGGESTIONS}
      error={form.errorFor("interests") ?? form.errorFor("interests.0")}
    />
  );
}

/** What the member looks for: preferences and the ages they would like to meet. */
export function LookingForFields({ form }: { form: ProfileFormState }) {
  return (
    <>
      <TagInput
        id="profile-preferences"
        label="Preferences"
        values={form.values.preferences}
        onChange={(v) => form.set("preferences", v)}
        onBlur={() => form.touch("preferences")}
        placeholder="Add a preference"
        suggestions={PREFERENCE_SUGGESTIONS}
        error={form.errorFor("preferences") ?? form.errorFor("preferences.0")}
      />
      <AgeRange
        id="profile-age-range"
        label="Ages you would like to meet"
        value={form.values.ageRange}
        onChange={(v) => form.set("ageRange", v)}
        onBlur={() => form.touch("ageRange")}
        minError={form.errorFor("ageRange.min") ?? form.errorFor("ageRange")}
        maxError={form.errorFor("ageRange.max")}
      />
    </>
  );
}
