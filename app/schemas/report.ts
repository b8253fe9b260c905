import { z } from "./zod";
import {
  REPORT_DETAILS_MAX,
  REPORT_REASON_LABELS,
  REPORT_REASON_TYPES,
  type ReportReasonType,
} from "./report-reasons";
import { safeText } from "./text";

export { REPORT_DETAILS_MAX, REPORT_REASON_LABELS, REPORT_REASON_TYPES, type ReportReasonType };

/**
 * What a report weighs, by its reporter's standing (docs/decisions/021): an account whose email
 * was verified less than NEW_DAYS ago weighs nothing (a mob of fresh accounts hides nobody);
 * then ESTABLISHED, or SEASONED after SEASONED_DAYS; plus one per report of theirs a moderator
 * upheld (at most UPHELD_BONUS_MAX), minus one per report dismissed; never below 0 nor above MAX.
 */
export const REPORT_WEIGHT = {
  NEW_DAYS: 7,
  ESTABLISHED: 1,
  SEASONED_DAYS: 90,
  SEASONED: 2,
  UPHELD_BONUS_MAX: 2,
  MAX: 4,
} as const;

/**
 * Open reports weighing this much together hide a member from search until a moderator reviews
 * them. The triggers of migrations/0023_report_weights.sql apply it: a change here needs a
 * migration there (tests/safety/reports.test.ts fails until both agree).
 */
export const REPORT_HIDE_WEIGHT = 6;

/** How many seasoned members (with no record either way) it takes to hide a member. */
export const REPORT_HIDE_THRESHOLD = REPORT_HIDE_WEIGHT / REPORT_WEIGHT.SEASONED;

/** POST /reports. */
export const reportSchema = z.object({
  user_id: z
    .string({ error: "Please choose a member to report." })
    .trim()
    .min(1, "Please choose a member to report.")
    .max(64, "Please choose a member to report."),
  reason_type: z.enum(REPORT_REASON_TYPES, { error: "Please choose a reason." }),
  details: safeText(
    z
      .string({ error: "The details must be text." })
      .trim()
      .max(
        REPORT_DETAILS_MAX,
        `The details may not be longer than ${REPORT_DETAILS_MAX} characters.`,
      ),
    { multiline: true },
  )
    .optional()
    .nullable()
    .transform((v) => (v ? v : undefined)),
  message_id: z
    .string({ error: "The message is not valid." })
    .trim()
    .max(64, "The message is not valid.")
    .optional()
    .nullable()
    .transform((v) => (v ? v : undefined)),
});
export type ReportInput = z.infer<typeof reportSchema>;

export const REPORTED_MESSAGE = "Thank you. Our moderators will review your report.";
