/**
 * What a report form offers, without the schema (app/schemas/report.ts): for the pages that show
 * the report dialog, which loads the schema only when a report is sent.
 */

/** Why a member is reported to the moderators. */
export const REPORT_REASON_TYPES = [
  "spam",
  "harassment",
  "inappropriate",
  "fake_profile",
  "underage",
  "scam",
  "other",
] as const;
export type ReportReasonType = (typeof REPORT_REASON_TYPES)[number];

export const REPORT_REASON_LABELS: Record<ReportReasonType, string> = {
  spam: "Spam",
  harassment: "Harassment or threats",
  inappropriate: "Inappropriate content",
  fake_profile: "Fake profile",
  underage: "Under 18",
  scam: "Scam or asking for money",
  other: "Something else",
};

export const REPORT_DETAILS_MAX = 1000;
