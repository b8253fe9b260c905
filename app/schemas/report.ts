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
 * Open reports from this many distinct members hide a member from search until reviewed. The
 * triggers of migrations/0010_reports_hide.sql apply it: a change here needs a migration there
 * (tests/safety/reports.test.ts fails until both agree).
 */
export const REPORT_HIDE_THRESHOLD = 3;

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
