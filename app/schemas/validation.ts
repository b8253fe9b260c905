import type { z } from "zod";

export type FieldErrorMap = Record<string, string[]>;

/**
 * Turns a zod error into the field-to-messages map of docs/api.md "Errors" (dotted keys for nested
 * fields).
 */
export function fieldErrors(error: z.ZodError): FieldErrorMap {
  const out: FieldErrorMap = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join(".") || "_";
    const list = (out[key] ??= []);
    if (!list.includes(issue.message)) list.push(issue.message);
  }
  return out;
}

/** The first message for each field, for showing beside form inputs. */
export function firstErrors(errors: FieldErrorMap | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(errors ?? {})) if (v[0]) out[k] = v[0];
  return out;
}
