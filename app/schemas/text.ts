import type { z } from "zod";

/**
 * What members may not put in text others read (names, bios, interests, messages, reasons):
 * - C0 and C1 control characters and DEL: NUL, the ESC that starts an ANSI escape sequence, …
 *   (a multi-line field keeps tab and line feed; a carriage return is allowed before a line feed);
 * - bidirectional overrides, embeddings and isolates (U+202A–U+202E, U+2066–U+2069, U+061C,
 *   U+200E/U+200F), which reorder what surrounds them ("gpj.exe" shown as "exe.jpg");
 * - lone UTF-16 surrogates, which are no character at all, and the noncharacters U+FFFE/U+FFFF;
 * - in a one-line field, line and paragraph separators (U+2028, U+2029) too.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_MULTILINE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NONCHARACTER = /[\ufffe\uffff]/;

export const UNSAFE_TEXT_MESSAGE = "This text contains characters that are not allowed.";

export function isSafeText(value: string, { multiline = false } = {}): boolean {
  return !(
    (multiline ? CONTROL_MULTILINE : CONTROL_ONE_LINE).test(value) ||
    BIDI.test(value) ||
    LONE_SURROGATE.test(value) ||
    NONCHARACTER.test(value)
  );
}

/**
 * The one refinement every member-written text field goes through:
 * `safeText(z.string()…)`, or `safeText(…, {multiline: true})` for bios, messages and reasons.
 */
export const safeText = <T extends z.ZodType<string, string>>(
  schema: T,
  { multiline = false, message = UNSAFE_TEXT_MESSAGE } = {},
): T => schema.refine((value) => isSafeText(value, { multiline }), { message }) as T;

/** A list without repeats, ignoring case: the first spelling of each item stays, in order. */
export function dedupe(items: string[]): string[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = item.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
