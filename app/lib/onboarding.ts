/**
 * Onboarding: the steps a new member is guided through after verifying their email, before
 * discovery. Whether a step is done is read from the profile itself, so the progress is the same
 * wherever the member filled it in (here or in the profile settings).
 */

export const ONBOARDING_STEPS = [
  { id: "photos", label: "Photos", title: "Show your best side" },
  { id: "about", label: "About you", title: "Introduce yourself" },
  { id: "interests", label: "Interests", title: "What do you love?" },
  { id: "looking-for", label: "Looking for", title: "What are you looking for?" },
] as const;

export type OnboardingStep = (typeof ONBOARDING_STEPS)[number]["id"];
/**
 * An optional step offered once the others are done (or skipped): answers to prompts. It is not
 * counted in the progress and never holds onboarding open.
 */
export const OPTIONAL_PROMPTS_STEP = {
  id: "prompts",
  label: "Prompts",
  title: "Give them something to answer",
} as const;

/**
 * The page after the steps: all set, or what is left and the choice to skip it for now; and the
 * optional prompts step.
 */
export type OnboardingView = OnboardingStep | "prompts" | "review";

export type OnboardingState = "pending" | "skipped" | "done";

export interface OnboardingProfile {
  photos: readonly unknown[];
  bio: string;
  interests: readonly string[];
  preferences: readonly string[];
}

export function stepsDone(profile: OnboardingProfile): Record<OnboardingStep, boolean> {
  return {
    photos: profile.photos.length > 0,
    about: profile.bio.trim().length > 0,
    interests: profile.interests.length > 0,
    "looking-for": profile.preferences.length > 0,
  };
}

export const doneCount = (done: Record<OnboardingStep, boolean>) =>
  ONBOARDING_STEPS.filter((s) => done[s.id]).length;

export const isComplete = (done: Record<OnboardingStep, boolean>) =>
  doneCount(done) === ONBOARDING_STEPS.length;

export function isOnboardingView(value: string | null): value is OnboardingView {
  return value === "review" || value === "prompts" || ONBOARDING_STEPS.some((s) => s.id === value);
}

/** Where a member starts: the first step not done yet, or the review when all are. */
export function firstOpenStep(done: Record<OnboardingStep, boolean>): OnboardingView {
  return ONBOARDING_STEPS.find((s) => !done[s.id])?.id ?? "review";
}

/** The page after `step`: the next step in order, then the review. */
export function stepAfter(step: OnboardingStep): OnboardingView {
  const i = ONBOARDING_STEPS.findIndex((s) => s.id === step);
  return ONBOARDING_STEPS[i + 1]?.id ?? "review";
}

export function stepBefore(step: OnboardingView): OnboardingStep | null {
  if (step === "review") return ONBOARDING_STEPS[ONBOARDING_STEPS.length - 1]!.id;
  const i = ONBOARDING_STEPS.findIndex((s) => s.id === step);
  return i > 0 ? ONBOARDING_STEPS[i - 1]!.id : null;
}

export const onboardingPath = (view: OnboardingView) => `/onboarding?step=${view}`;
