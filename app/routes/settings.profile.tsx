import { useNow } from "~/state/clock";
import { latestAdultBirthday } from "~/lib/age";
import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData, useRevalidator } from "@remix-run/react";
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import { AgeRange } from "~/components/profile/age-range";
import { LocationPicker } from "~/components/profile/location-picker";
import { PhotoManager } from "~/components/profile/photo-manager";
import { TagInput } from "~/components/profile/tag-input";
import { titleMeta } from "~/lib/title";
import {
  BIO_MAX,
  profileSchema,
  toProfilePayload,
  type Location,
  type Profile,
} from "~/schemas/profile";
import { fieldErrors, firstErrors } from "~/schemas/validation";
import { requireUser } from "~/server/guards.server";
import { loadProfile } from "~/server/profiles.server";
import { useAtom, useHydrateAtoms, useSetAtom } from "~/state/jotai";
import {
  fetchSuccess,
  initialProfileState,
  photosChanged,
  profileStateAtom,
  updateProfileAtom,
} from "~/state/profile";

export const meta: MetaFunction = () => titleMeta("Profile Settings");

/** Personal pages: never stored by a shared cache or kept for the back button. */
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** Profile editing is open before the email is verified (API.md). */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireUser(context, request);
  return json(
    { profile: await loadProfile(context.env, user.id) },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

const INTEREST_SUGGESTIONS = [
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

const PREFERENCE_SUGGESTIONS = [
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

const GENDERS = [
  "Woman",
  "Man",
  "Non-binary",
  "Trans woman",
  "Trans man",
  "Genderqueer",
  "Agender",
];
const ETHNICITIES = [
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

interface FormValues {
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
}

const formValues = (p: Profile): FormValues => ({
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
});

export default function ProfileSettingsPage() {
  const { profile } = useLoaderData<typeof loader>();
  const now = useNow();
  useHydrateAtoms([[profileStateAtom, fetchSuccess(initialProfileState, profile, 0)]]);
  const [state, setState] = useAtom(profileStateAtom);
  const updateProfile = useSetAtom(updateProfileAtom);
  const revalidator = useRevalidator();

  // A later visit brings fresh loader data into the store this page reads.
  useEffect(() => {
    setState((s) => fetchSuccess(s, profile));
  }, [profile, setState]);

  const data = state.data ?? profile;
  const [values, setValues] = useState<FormValues>(() => formValues(profile));
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);

  const payload = useMemo(
    () => toProfilePayload(values, { hadLocation: Boolean(data.location) }),
    [values, data.location],
  );
  const clientErrors = useMemo(() => {
    const result = profileSchema.safeParse(payload);
    return result.success ? {} : firstErrors(fieldErrors(result.error));
  }, [payload]);

  const show = (key: string) => submitted || touched[key] || touched[key.split(".")[0]!];
  const errorFor = (key: string) =>
    (show(key) ? clientErrors[key] : undefined) ?? serverErrors[key];

  const set = <K extends keyof FormValues>(key: K, value: FormValues[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    setTouched((t) => ({ ...t, [key]: true }));
    setSaved(false);
    setServerErrors((errors) =>
      Object.fromEntries(Object.entries(errors).filter(([k]) => k.split(".")[0] !== key)),
    );
  };
  const touch = (key: string) => setTouched((t) => ({ ...t, [key]: true }));

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    setSaved(false);
    if (Object.keys(clientErrors).length > 0) {
      document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    const errors = await updateProfile(payload);
    if (errors) {
      setServerErrors(firstErrors(errors));
      return;
    }
    setServerErrors({});
    setSubmitted(false);
    setTouched({});
    setSaved(true);
    // The header shows the username: refresh the page data around the form.
    revalidator.revalidate();
  };

  // After a save, show what the server stored (its canonical location, trimmed texts).
  useEffect(() => {
    if (saved && state.data) setValues(formValues(state.data));
  }, [saved, state.data]);

  const textField = (
    key: "firstName" | "lastName" | "username" | "postalCode" | "gender" | "ethnicity",
    label: string,
    extra: { autoComplete?: string; hint?: string; list?: string; maxLength?: number } = {},
  ) => {
    const error = errorFor(key);
    const id = `profile-${key}`;
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          name={key}
          className="input"
          value={values[key]}
          autoComplete={extra.autoComplete}
          list={extra.list}
          maxLength={extra.maxLength ?? 50}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onChange={(e) => set(key, e.target.value)}
          onBlur={() => touch(key)}
        />
        {error ? (
          <p id={`${id}-error`} className="field-error" role="alert">
            {error}
          </p>
        ) : extra.hint ? (
          <p className="field-hint">{extra.hint}</p>
        ) : null}
      </div>
    );
  };

  return (
    <div className="profile-settings">
      <section className="card" aria-labelledby="photos-heading">
        <div className="card-head">
          <div>
            <h2 id="photos-heading">Photos</h2>
            <p className="muted">Members with photos get far more replies. Show your face!</p>
          </div>
          <span className="pill">{data.photos.length} / 5</span>
        </div>
        <PhotoManager
          photos={data.photos}
          onPhotosChange={(photos) => setState((s) => photosChanged(s, photos))}
        />
      </section>

      <form
        className="form profile-form"
        noValidate
        onSubmit={onSubmit}
        aria-busy={state.isUpdating}
      >
        <section className="card" aria-labelledby="about-heading">
          <h2 id="about-heading">About you</h2>
          <div className="form-grid">
            {textField("firstName", "First name", { autoComplete: "given-name" })}
            {textField("lastName", "Last name", {
              autoComplete: "family-name",
              hint: "Only your first name is shown to other members.",
            })}
            {textField("username", "Username", {
              autoComplete: "username",
              maxLength: 30,
              hint: "3 to 30 letters, numbers or underscores.",
            })}
            <div className="field">
              <label htmlFor="profile-dateOfBirth">Date of birth</label>
              <input
                id="profile-dateOfBirth"
                name="dateOfBirth"
                type="date"
                className="input"
                max={latestAdultBirthday(now)}
                value={values.dateOfBirth}
                aria-invalid={errorFor("dateOfBirth") ? true : undefined}
                aria-describedby={errorFor("dateOfBirth") ? "profile-dateOfBirth-error" : undefined}
                onChange={(e) => set("dateOfBirth", e.target.value)}
                onBlur={() => touch("dateOfBirth")}
              />
              {errorFor("dateOfBirth") ? (
                <p id="profile-dateOfBirth-error" className="field-error" role="alert">
                  {errorFor("dateOfBirth")}
                </p>
              ) : (
                <p className="field-hint">Members see your age, never your birthday.</p>
              )}
            </div>
            {textField("gender", "Gender", { list: "gender-options" })}
            {textField("ethnicity", "Ethnicity", { list: "ethnicity-options" })}
          </div>
          <datalist id="gender-options">
            {GENDERS.map((g) => (
              <option key={g} value={g} />
            ))}
          </datalist>
          <datalist id="ethnicity-options">
            {ETHNICITIES.map((e) => (
              <option key={e} value={e} />
            ))}
          </datalist>
          <div className="field">
            <label htmlFor="profile-bio">Bio</label>
            <textarea
              id="profile-bio"
              name="bio"
              className="input textarea"
              rows={5}
              maxLength={BIO_MAX}
              placeholder="What makes you smile? What are you looking for?"
              value={values.bio}
              aria-invalid={errorFor("bio") ? true : undefined}
              aria-describedby="profile-bio-count"
              onChange={(e) => set("bio", e.target.value)}
              onBlur={() => touch("bio")}
            />
            <div className="field-foot">
              {errorFor("bio") ? (
                <p className="field-error" role="alert">
                  {errorFor("bio")}
                </p>
              ) : (
                <span />
              )}
              <span id="profile-bio-count" className="field-hint">
                {values.bio.length} / {BIO_MAX}
              </span>
            </div>
          </div>
        </section>

        <section className="card" aria-labelledby="location-heading">
          <h2 id="location-heading">Location</h2>
          <LocationPicker
            value={values.location}
            onChange={(location) => set("location", location)}
            error={errorFor("location")}
          />
          <div className="form-grid">
            {textField("postalCode", "Postal code", {
              autoComplete: "postal-code",
              maxLength: 20,
              hint: "Optional. Never shown to other members.",
            })}
          </div>
        </section>

        <section className="card" aria-labelledby="interests-heading">
          <h2 id="interests-heading">Interests</h2>
          <TagInput
            id="profile-interests"
            label="Your interests"
            values={values.interests}
            onChange={(v) => set("interests", v)}
            onBlur={() => touch("interests")}
            placeholder="Add an interest"
            suggestions={INTEREST_SUGGESTIONS}
            error={errorFor("interests") ?? errorFor("interests.0")}
          />
        </section>

        <section className="card" aria-labelledby="looking-heading">
          <h2 id="looking-heading">What you are looking for</h2>
          <TagInput
            id="profile-preferences"
            label="Preferences"
            values={values.preferences}
            onChange={(v) => set("preferences", v)}
            onBlur={() => touch("preferences")}
            placeholder="Add a preference"
            suggestions={PREFERENCE_SUGGESTIONS}
            error={errorFor("preferences") ?? errorFor("preferences.0")}
          />
          <AgeRange
            id="profile-age-range"
            label="Ages you would like to meet"
            value={values.ageRange}
            onChange={(v) => set("ageRange", v)}
            onBlur={() => touch("ageRange")}
            minError={errorFor("ageRange.min") ?? errorFor("ageRange")}
            maxError={errorFor("ageRange.max")}
          />
        </section>

        <div className="save-bar">
          <div className="save-bar-status" aria-live="polite">
            {state.error ? <FormAlert message={state.error} /> : null}
            {saved && !state.error ? (
              <FormAlert message="Your profile has been saved." tone="success" />
            ) : null}
          </div>
          <div className="save-bar-actions">
            <AppLink to="/my/profile" className="btn btn-ghost">
              View my profile
            </AppLink>
            <button type="submit" className="btn btn-primary" disabled={state.isUpdating}>
              {state.isUpdating ? "Saving…" : "Save profile"}
            </button>
          </div>
        </div>
      </form>
    </div>
  );
}
