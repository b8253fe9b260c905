import type {
  ActionFunctionArgs,
  HeadersFunction,
  LinksFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSubmit } from "@remix-run/react";
import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { CsrfInput, FormAlert, useCsrfToken } from "~/components/form";
import { Icon } from "~/components/icons";
import { AppLink } from "~/components/link";
import { PhotoManager } from "~/components/profile/photo-manager";
import { PromptsEditor } from "~/components/profile/prompts-editor";
import {
  BioField,
  InterestsField,
  LookingForFields,
  ProfileTextField,
  useProfileForm,
  type ProfileFormState,
} from "~/components/profile/profile-fields";
import { Logo, SiteFooter } from "~/components/shell";
import { displayName } from "~/lib/members";
import {
  doneCount,
  firstOpenStep,
  isComplete,
  isOnboardingView,
  onboardingPath,
  ONBOARDING_STEPS,
  OPTIONAL_PROMPTS_STEP,
  stepAfter,
  stepBefore,
  type OnboardingStep,
  type OnboardingView,
} from "~/lib/onboarding";
import { titleMeta } from "~/lib/title";
import {
  onboardingSaveSchema,
  onboardingStepSchemas,
  type OnboardingFormStep,
} from "~/schemas/onboarding";
import type { Profile, ProfilePhoto } from "~/schemas/profile";
import { firstErrors } from "~/schemas/validation";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { requireVerifiedUser } from "~/server/guards.server";
import { onboardingStatus, saveOnboardingStep, skipOnboarding } from "~/server/onboarding.server";
import { parseInput, readBody } from "~/server/validation.server";
import onboardingStyles from "~/styles/onboarding.css?url";
import photoStyles from "~/styles/photos.css?url";

export const meta: MetaFunction = () => titleMeta("Welcome to Heartline");
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: photoStyles },
  { rel: "stylesheet", href: onboardingStyles },
];
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/**
 * Onboarding: a just-verified member adds photos, a bio, interests and what they look for, one
 * step at a time with their progress in view, before discovery. Done once, it never shows again.
 */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const url = new URL(request.url);
  const asked = url.searchParams.get("step");
  const { profile, done, state } = await onboardingStatus(context.env, user.id, user.onboarding);
  // Once done, the review and the optional prompts step stay open; the other steps do not.
  if (state === "done" && asked !== "review" && asked !== "prompts") throw redirect("/dashboard");
  const view: OnboardingView = isOnboardingView(asked) ? asked : firstOpenStep(done);
  return json(
    { profile, done, view, name: displayName(profile), verified: url.searchParams.has("verified") },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requireVerifiedUser(context, request);
    const body = await readBody(request);
    if (body.intent === "skip") {
      await skipOnboarding(context.env, user.id);
      return redirect("/dashboard");
    }
    const { step, payload } = parseInput(onboardingSaveSchema, body);
    const { complete } = await saveOnboardingStep(context.env, user.id, step, payload);
    if (step === "prompts") return redirect(onboardingPath("review"));
    return redirect(onboardingPath(complete ? "review" : stepAfter(step)));
  });
}

export default function OnboardingPage() {
  const { profile, done, view, name, verified } = useLoaderData<typeof loader>();
  const count = doneCount(done);
  const total = ONBOARDING_STEPS.length;
  const complete = isComplete(done);
  return (
    <div className="onboarding">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="onboarding-header">
        <Logo to="/dashboard" />
        {complete ? null : (
          <AppLink to={onboardingPath("review")} className="btn btn-ghost">
            Skip for now
          </AppLink>
        )}
      </header>
      <main id="main" className="onboarding-main">
        <FormAlert message={verified ? "Your email address is verified." : null} tone="success" />
        <div className="onboarding-progress">
          <p className="onboarding-count" id="onboarding-progress-label">
            {complete ? "Your profile is complete" : `${count} of ${total} steps done`}
          </p>
          <div
            className="onboarding-bar"
            role="progressbar"
            aria-labelledby="onboarding-progress-label"
            aria-valuemin={0}
            aria-valuemax={total}
            aria-valuenow={count}
          >
            <span style={{ width: `${(count / total) * 100}%` }} />
          </div>
          <ol className="onboarding-steps">
            {ONBOARDING_STEPS.map((s, i) => (
              <li
                key={s.id}
                className={done[s.id] ? "is-done" : undefined}
                aria-current={s.id === view ? "step" : undefined}
              >
                <AppLink to={onboardingPath(s.id)} className="onboarding-step-link">
                  <span className="onboarding-step-mark" aria-hidden="true">
                    {done[s.id] ? "✓" : i + 1}
                  </span>
                  <span>
                    {s.label}
                    <span className="sr-only">{done[s.id] ? ", done" : ", to do"}</span>
                  </span>
                </AppLink>
              </li>
            ))}
          </ol>
        </div>
        <section className="onboarding-card" aria-labelledby="onboarding-title">
          {view === "review" ? (
            <Review name={name} done={done} hasPrompts={profile.prompts.length > 0} />
          ) : view === "photos" ? (
            <PhotosStep photos={profile.photos} name={name} />
          ) : (
            <FieldsStep key={view} step={view} profile={profile} />
          )}
        </section>
      </main>
      <SiteFooter />
    </div>
  );
}

function StepHeading({
  step,
  children,
}: {
  step: OnboardingFormStep | "photos";
  children?: ReactNode;
}) {
  if (step === "prompts") {
    return (
      <>
        <p className="onboarding-eyebrow">Optional</p>
        <h1 id="onboarding-title">{OPTIONAL_PROMPTS_STEP.title}</h1>
        {children ? <p className="lead">{children}</p> : null}
      </>
    );
  }
  const index = ONBOARDING_STEPS.findIndex((s) => s.id === step);
  return (
    <>
      <p className="onboarding-eyebrow">
        Step {index + 1} of {ONBOARDING_STEPS.length}
      </p>
      <h1 id="onboarding-title">{ONBOARDING_STEPS[index]!.title}</h1>
      {children ? <p className="lead">{children}</p> : null}
    </>
  );
}

/** Back, "Not now" (the next step without saving) and the step's main action. */
function StepActions({
  step,
  primary,
}: {
  step: OnboardingFormStep | "photos";
  primary: ReactNode;
}) {
  // The optional prompts step comes from the review and goes back to it.
  const before = step === "prompts" ? null : stepBefore(step);
  const after = step === "prompts" ? "review" : stepAfter(step);
  return (
    <div className="onboarding-actions">
      {before ? (
        <AppLink to={onboardingPath(before)} className="btn btn-ghost">
          Back
        </AppLink>
      ) : (
        <span />
      )}
      <div className="onboarding-actions-end">
        <AppLink to={onboardingPath(after)} className="btn btn-secondary">
          Not now
        </AppLink>
        {primary}
      </div>
    </div>
  );
}

function PhotosStep({ photos: initial, name }: { photos: ProfilePhoto[]; name: string }) {
  const [photos, setPhotos] = useState(initial);
  useEffect(() => setPhotos(initial), [initial]);
  return (
    <>
      <StepHeading step="photos">
        Hi {name}! Members with a clear photo of their face get far more likes. Add up to five; the
        first one is your main photo.
      </StepHeading>
      <PhotoManager photos={photos} onPhotosChange={setPhotos} />
      <StepActions
        step="photos"
        primary={
          photos.length > 0 ? (
            <AppLink to={onboardingPath(stepAfter("photos"))} className="btn btn-primary">
              Continue
            </AppLink>
          ) : null
        }
      />
    </>
  );
}

const STEP_INTRO: Record<OnboardingFormStep, string> = {
  about:
    "Your first name is how Heartline and other members greet you. A few honest lines about you start better conversations.",
  interests:
    "Pick a few things you love: members who share them find you, and they make easy first messages.",
  "looking-for":
    "Say what you hope to find and the ages you would like to meet, so the right people find you.",
  prompts:
    "Answer a prompt or two: they give members something to like and an easy way to start talking. You can skip this and add them later in your profile settings.",
};

function StepFields({ step, form }: { step: OnboardingFormStep; form: ProfileFormState }) {
  if (step === "about") {
    return (
      <>
        <ProfileTextField
          form={form}
          name="firstName"
          label="First name"
          autoComplete="given-name"
          hint="Only your first name is shown to other members."
        />
        <BioField form={form} rows={4} />
      </>
    );
  }
  if (step === "interests") return <InterestsField form={form} />;
  if (step === "prompts") return <PromptsEditor form={form} />;
  return <LookingForFields form={form} />;
}

/** A step that edits profile fields: validated with the step's schema, saved, then the next step. */
function FieldsStep({ step, profile }: { step: OnboardingFormStep; profile: Profile }) {
  const schema = onboardingStepSchemas[step];
  const actionData = useActionData<ActionErrors>();
  const form = useProfileForm(profile, schema, {
    serverErrors: firstErrors(actionData?.errors),
  });
  const submit = useSubmit();
  const csrf = useCsrfToken();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";

  const { setServerErrors } = form;
  useEffect(() => {
    if (actionData?.errors) setServerErrors(firstErrors(actionData.errors));
  }, [actionData, setServerErrors]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    form.setSubmitted(true);
    if (Object.keys(form.clientErrors).length > 0) {
      requestAnimationFrame(() =>
        document.querySelector<HTMLElement>('.onboarding-card [aria-invalid="true"]')?.focus(),
      );
      return;
    }
    const fields = Object.fromEntries(
      Object.entries(form.payload).filter(([key]) => key in schema.shape),
    );
    submit(
      { _csrf: csrf, step, payload: JSON.stringify(fields) },
      { method: "post", action: onboardingPath(step) },
    );
  };

  const fieldErrorKeys = Object.keys(schema.shape);
  const otherError =
    actionData &&
    !Object.keys(actionData.errors).some((k) => fieldErrorKeys.includes(k.split(".")[0]!))
      ? actionData.message
      : null;

  return (
    <form className="form onboarding-form" noValidate onSubmit={onSubmit} aria-busy={busy}>
      <StepHeading step={step}>{STEP_INTRO[step]}</StepHeading>
      <FormAlert message={otherError} />
      <StepFields step={step} form={form} />
      <StepActions
        step={step}
        primary={
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy
              ? "Saving…"
              : step === "looking-for" || step === "prompts"
                ? "Save and finish"
                : "Save and continue"}
          </button>
        }
      />
    </form>
  );
}

/** The end: all set (to discovery), or what is left, with the choice to skip it knowingly. */
function Review({
  name,
  done,
  hasPrompts,
}: {
  name: string;
  done: Record<OnboardingStep, boolean>;
  hasPrompts: boolean;
}) {
  const navigation = useNavigation();
  const promptsOffer = hasPrompts ? null : (
    <div className="onboarding-optional">
      <p>
        <strong>Optional:</strong> answer a prompt or two, so members have something to like and to
        talk about.
      </p>
      <AppLink to={onboardingPath("prompts")} className="btn btn-secondary btn-sm">
        Answer a prompt
      </AppLink>
    </div>
  );
  if (isComplete(done)) {
    return (
      <div className="onboarding-finished">
        <span className="onboarding-finished-mark" aria-hidden="true">
          <Icon name="heart" size={34} />
        </span>
        <h1 id="onboarding-title">You are all set, {name}!</h1>
        <p className="lead">
          Your profile is ready. Browse members who share your interests, like the ones you like,
          and when it is mutual, say hello.
        </p>
        <div className="onboarding-finished-actions">
          <AppLink to="/my/matches" className="btn btn-primary">
            Start discovering
          </AppLink>
          <AppLink to="/my/profile" className="btn btn-secondary">
            See my profile
          </AppLink>
        </div>
        {promptsOffer}
      </div>
    );
  }
  const open = ONBOARDING_STEPS.filter((s) => !done[s.id]);
  return (
    <>
      <h1 id="onboarding-title">Almost there, {name}</h1>
      <p className="lead">
        {open.length === 1 ? "One step is" : `${open.length} steps are`} still open. Members with
        photos, a bio and interests get far more likes and replies.
      </p>
      <ul className="onboarding-open">
        {open.map((s) => (
          <li key={s.id}>
            <span>{s.label}</span>
            <AppLink to={onboardingPath(s.id)} className="btn btn-secondary btn-sm">
              Add {s.label.toLowerCase()}
            </AppLink>
          </li>
        ))}
      </ul>
      <div className="onboarding-actions">
        <AppLink to={onboardingPath(firstOpenStep(done))} className="btn btn-primary">
          Finish my profile
        </AppLink>
        <Form method="post">
          <CsrfInput />
          <input type="hidden" name="intent" value="skip" />
          <button type="submit" className="btn btn-ghost" disabled={navigation.state !== "idle"}>
            Skip for now
          </button>
        </Form>
      </div>
      {promptsOffer}
      <p className="muted small">
        Skipping takes you to your dashboard. You can finish any time: we will keep a reminder there
        until you do.
      </p>
    </>
  );
}
