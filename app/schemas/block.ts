import { z } from "./zod";
import { safeText } from "./text";

/** docs/api.md "Blocking": the reasons a member can give. */
export const BLOCK_REASON_TYPES = [
  "spam",
  "harassment",
  "inappropriate",
  "fake_profile",
  "other",
] as const;
export type BlockReasonType = (typeof BLOCK_REASON_TYPES)[number];

/** How each reason reads in a form. */
export const BLOCK_REASON_LABELS: Record<BlockReasonType, string> = {
  spam: "Spam",
  harassment: "Harassment",
  inappropriate: "Inappropriate content",
  fake_profile: "Fake profile",
  other: "Something else",
};

export const blockSchema = z.object({
  user_id: z
    .string({ error: "Please choose a member to block." })
    .trim()
    .min(1, "Please choose a member to block."),
  reason_type: z.enum(BLOCK_REASON_TYPES, { error: "Please choose a reason." }),
  reason: safeText(
    z.string().trim().max(500, "The reason may not be longer than 500 characters."),
    { multiline: true },
  )
    .optional()
    .transform((v) => (v ? v : undefined)),
});
export type BlockInput = z.infer<typeof blockSchema>;
