import { and, eq, ne } from "drizzle-orm";
import { isComplete, stepsDone, type OnboardingState } from "~/lib/onboarding";
import { onboardingStepSchemas, type OnboardingFormStep } from "~/schemas/onboarding";
import type { Profile } from "~/schemas/profile";
import { getDb, nowIso, schema } from "./db.server";
import type { Env } from "./env.server";
import { loadProfile, updateProfile } from "./profiles.server";

/**
 * Onboarding: a new member (registered as `pending`) is guided through photos, bio, interests and
 * what they look for before discovery. Finishing every step makes it `done` for good; skipping
 * makes it `skipped`, and discovery then nudges them back until they finish.
 */

async function setState(env: Env, userId: string, state: OnboardingState) {
  await getDb(env.DB)
    .update(schema.users)
    .set({ onboarding: state, updatedAt: nowIso() })
    // `done` is final: nothing brings it back.
    .where(and(eq(schema.users.id, userId), ne(schema.users.onboarding, "done")));
}

/**
 * The member's profile and where they are in onboarding. A profile completed anywhere (the
 * profile settings too) finishes onboarding.
 */
export async function onboardingStatus(env: Env, userId: string, state: OnboardingState) {
  const profile = await loadProfile(env, userId);
  const done = stepsDone(profile);
  if (state !== "done" && isComplete(done)) {
    await setState(env, userId, "done");
    return { profile, done, state: "done" as const };
  }
  return { profile, done, state };
}

/** Saves one step's fields (validated with that step's schema) and finishes when all are done. */
export async function saveOnboardingStep(
  env: Env,
  userId: string,
  step: OnboardingFormStep,
  fields: Record<string, unknown>,
): Promise<{ profile: Profile; complete: boolean }> {
  const profile = await updateProfile(env, userId, fields, onboardingStepSchemas[step]);
  const complete = isComplete(stepsDone(profile));
  if (complete) await setState(env, userId, "done");
  return { profile, complete };
}

/** "Skip for now": discovery opens, with a reminder, until the member finishes. */
export async function skipOnboarding(env: Env, userId: string) {
  await setState(env, userId, "skipped");
}
