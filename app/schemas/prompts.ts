import { z } from "./zod";
import { PROMPT_ANSWER_MAX, PROMPT_MESSAGES, PROMPTS_MAX, promptTexts } from "./prompt-catalog";
import { safeText } from "./text";

export * from "./prompt-catalog";

const promptEntry = z.object(
  {
    prompt_id: z
      .string({ error: PROMPT_MESSAGES.unknown })
      .refine((id) => promptTexts.has(id), PROMPT_MESSAGES.unknown),
    answer: safeText(
      z
        .string({ error: PROMPT_MESSAGES.answer })
        .trim()
        .min(1, PROMPT_MESSAGES.answer)
        .max(PROMPT_ANSWER_MAX, PROMPT_MESSAGES.answerMax),
      { multiline: true },
    ),
  },
  { error: PROMPT_MESSAGES.list },
);

/**
 * A profile's `prompts`: up to three answers, each to a prompt of the catalog and to a prompt not
 * answered already in the list, trimmed, 1–300 characters. Messages go on dotted keys
 * (`prompts.0.answer`, `prompts.1.prompt_id`), on `prompts` for the list as a whole.
 */
export const promptsField = z
  .array(promptEntry, { error: PROMPT_MESSAGES.list })
  .superRefine((entries, ctx) => {
    // Here rather than `.max()`, which zod also runs on a string (it has a length).
    if (entries.length > PROMPTS_MAX) {
      ctx.addIssue({ code: "custom", message: PROMPT_MESSAGES.tooMany });
      return;
    }
    const seen = new Set<string>();
    entries.forEach((entry, i) => {
      if (typeof entry?.prompt_id !== "string") return;
      if (seen.has(entry.prompt_id)) {
        ctx.addIssue({
          code: "custom",
          path: [i, "prompt_id"],
          message: PROMPT_MESSAGES.duplicate,
        });
      }
      seen.add(entry.prompt_id);
    });
  });
