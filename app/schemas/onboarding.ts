import { z } from "./zod";
import { profileSchema } from "./profile";

/**
 * The onboarding steps that edit the profile, each a small form asking for some of the profile
 * form's fields (docs/domain.md "Profile and photos"): the step's page validates with its schema as
 * the member types, and the server parses the step's submission with the same one.
 */
export const onboardingStepSchemas = {
  about: profileSchema.pick({ firstName: true, bio: true }),
  interests: profileSchema.pick({ interests: true }),
  "looking-for": profileSchema.pick({ preferences: true, ageRange: true }),
  /** Optional, after the others: answers to Heartline's prompts. */
  prompts: profileSchema.pick({ prompts: true }),
} as const;

export type OnboardingFormStep = keyof typeof onboardingStepSchemas;

export const ONBOARDING_MESSAGES = {
  step: "Please choose a step of your profile to save.",
  payload: "The request body must be a JSON object.",
} as const;

/** A step's submission: which step, and its fields as the JSON the profile form builds. */
export const onboardingSaveSchema = z.object({
  step: z.enum(["about", "interests", "looking-for", "prompts"], {
    error: ONBOARDING_MESSAGES.step,
  }),
  payload: z
    .string({ error: ONBOARDING_MESSAGES.payload })
    .max(16_000, ONBOARDING_MESSAGES.payload)
    .transform((text, ctx): Record<string, unknown> => {
      try {
        const value: unknown = JSON.parse(text);
        if (value && typeof value === "object" && !Array.isArray(value)) {
          return value as Record<string, unknown>;
        }
      } catch {
        // Reported below.
      }
      ctx.addIssue({ code: "custom", message: ONBOARDING_MESSAGES.payload });
      return z.NEVER;
    }),
});
