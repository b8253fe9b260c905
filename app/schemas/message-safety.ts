import { z } from "./zod";

/**
 * A note on a message (docs/api.md "Message safety"): for its
 * recipient (`off_platform`, `money`, `link`), shown as a warning with a one-tap report; for its
 * sender (`harassment`), the "Are you sure?" of a 409 before it is stored. The rules that set them
 * are app/server/message-safety.server.ts.
 */
export const SAFETY_KINDS = ["off_platform", "money", "link", "harassment"] as const;
export type SafetyKind = (typeof SAFETY_KINDS)[number];

export const safetyNote = z.object({ kind: z.enum(SAFETY_KINDS), note: z.string() });
export type SafetyNote = z.infer<typeof safetyNote>;

export const isSafetyKind = (value: unknown): value is SafetyKind =>
  typeof value === "string" && (SAFETY_KINDS as readonly string[]).includes(value);
