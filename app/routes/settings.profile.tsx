import { useNow } from "~/state/clock";
import { latestAdultBirthday } from "~/lib/age";
import type {
  HeadersFunction,
  LinksFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData, useRevalidator } from "@remix-run/react";
import { useEffect, useState, type FormEvent } from "react";
import { FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import { LocationPicker } from "~/components/location-picker";
import { PhotoManager } from "~/components/profile/photo-manager";
import { PromptsEditor } from "~/components/profile/prompts-editor";
import {
  BioField,
  ETHNICITIES,
  InterestsField,
  LookingForFields,
  ProfileTextField,
  useProfileForm,
} from "~/components/profile/profile-fields";
import { GENDER_OPTIONS } from "~/lib/members";
import { titleMeta } from "~/lib/title";
import photoStyles from "~/styles/photos.css?url";
import { profileSchema } from "~/schemas/profile";
import { firstErrors } from "~/schemas/validation";
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
export const links: LinksFunction = () => [{ rel: "stylesheet", href: photoStyles }];

/** Personal pages: never stored by a shared cache or kept for the back button. */
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** Profile editing is open before the email is verified (docs/api.md "Access levels"). */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireUser(context, request);
  return json(
    { profile: await loadProfile(context.env, user.id) },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

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
  const [saved, setSaved] = useState(false);
  const form = useProfileForm(profile, profileSchema, { onEdit: () => setSaved(false) });

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    form.setSubmitted(true);
    setSaved(false);
    if (Object.keys(form.clientErrors).length > 0) {
      document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    const errors = await updateProfile(form.payload);
    if (errors) {
      form.setServerErrors(firstErrors(errors));
      return;
    }
    setSaved(true);
    // The header shows the member's name: refresh the page data around the form.
    revalidator.revalidate();
  };

  // After a save, show what the server stored (its canonical location, trimmed texts).
  const { reset } = form;
  useEffect(() => {
    if (saved && state.data) reset(state.data);
    // `reset` is a new function each render; the stored data is what matters.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [saved, state.data]);

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
            <ProfileTextField
              form={form}
              name="firstName"
              label="First name"
              autoComplete="given-name"
            />
            <ProfileTextField
              form={form}
              name="lastName"
              label="Last name"
              autoComplete="family-name"
              hint="Only your first name is shown to other members."
            />
            <ProfileTextField
              form={form}
              name="username"
              label="Username"
              autoComplete="username"
              maxLength={30}
              hint="3 to 30 letters, numbers or underscores."
            />
            <div className="field">
              <label htmlFor="profile-dateOfBirth">Date of birth</label>
              <input
                id="profile-dateOfBirth"
                name="dateOfBirth"
                type="date"
                className="input"
                max={latestAdultBirthday(now)}
                value={form.values.dateOfBirth}
                aria-invalid={form.errorFor("dateOfBirth") ? true : undefined}
                aria-describedby={
                  form.errorFor("dateOfBirth") ? "profile-dateOfBirth-error" : undefined
                }
                onChange={(e) => form.set("dateOfBirth", e.target.value)}
                onBlur={() => form.touch("dateOfBirth")}
              />
              {form.errorFor("dateOfBirth") ? (
                <p id="profile-dateOfBirth-error" className="field-error" role="alert">
                  {form.errorFor("dateOfBirth")}
                </p>
              ) : (
                <p className="field-hint">Members see your age, never your birthday.</p>
              )}
            </div>
            <ProfileTextField form={form} name="gender" label="Gender" list="gender-options" />
            <ProfileTextField
              form={form}
              name="ethnicity"
              label="Ethnicity"
              list="ethnicity-options"
            />
          </div>
          <datalist id="gender-options">
            {GENDER_OPTIONS.map((g) => (
              <option key={g} value={g} />
            ))}
          </datalist>
          <datalist id="ethnicity-options">
            {ETHNICITIES.map((e) => (
              <option key={e} value={e} />
            ))}
          </datalist>
          <BioField form={form} />
        </section>

        <section className="card" aria-labelledby="prompts-heading">
          <h2 id="prompts-heading">Prompts</h2>
          <PromptsEditor form={form} />
        </section>

        <section className="card" aria-labelledby="location-heading">
          <h2 id="location-heading">Location</h2>
          <LocationPicker
            value={form.values.location}
            onChange={(location) => form.set("location", location)}
            error={form.errorFor("location")}
          />
          <div className="form-grid">
            <ProfileTextField
              form={form}
              name="postalCode"
              label="Postal code"
              autoComplete="postal-code"
              maxLength={20}
              hint="Optional. Never shown to other members."
            />
          </div>
        </section>

        <section className="card" aria-labelledby="interests-heading">
          <h2 id="interests-heading">Interests</h2>
          <InterestsField form={form} />
        </section>

        <section className="card" aria-labelledby="looking-heading">
          <h2 id="looking-heading">What you are looking for</h2>
          <LookingForFields form={form} />
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
