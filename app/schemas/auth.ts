import { z } from "./zod";
import { ageOn, isRealDate, MINIMUM_AGE } from "~/lib/age";

/**
 * One schema per authentication form, used by the page (client-side messages) and by the server
 * (422 with a field-to-messages map). Messages of docs/domain.md are word for word.
 */

export const USERNAME_MESSAGES = {
  min: "Username must be at least 3 characters",
  max: "Username must be at most 30 characters",
  chars: "Username can only contain letters, numbers, and underscores",
} as const;

export const usernameField = z
  .string({ error: USERNAME_MESSAGES.min })
  .trim()
  .min(3, USERNAME_MESSAGES.min)
  .max(30, USERNAME_MESSAGES.max)
  // `*`, not `+`: an empty username is too short, not made of the wrong characters.
  .regex(/^[A-Za-z0-9_]*$/, USERNAME_MESSAGES.chars);

/**
 * Names a member may not take: they would pass for the service or its staff in a conversation
 * or a notification (compared without case, underscores or trailing digits: "Admin_1" too).
 */
export const RESERVED_USERNAMES = [
  "admin",
  "administrator",
  "moderator",
  "mod",
  "support",
  "help",
  "helpdesk",
  "heartline",
  "root",
  "system",
  "sysadmin",
  "staff",
  "team",
  "official",
  "security",
  "safety",
  "trust",
  "abuse",
  "billing",
  "payments",
  "noreply",
  "postmaster",
  "webmaster",
  "hostmaster",
  "info",
  "contact",
  "owner",
  "operator",
  "service",
  "api",
  "www",
  "mail",
  "null",
  "undefined",
  "anonymous",
  "everyone",
  "here",
] as const;
export const USERNAME_RESERVED = "This username is reserved.";

const RESERVED = new Set<string>(RESERVED_USERNAMES);
export function isReservedUsername(username: string): boolean {
  const plain = username.toLowerCase().replace(/_/g, "").replace(/\d+$/, "");
  return RESERVED.has(plain);
}

/** A username a new member may take (reserved names are refused). */
export const newUsernameField = usernameField.refine((v) => !isReservedUsername(v), {
  message: USERNAME_RESERVED,
});

export const emailField = z
  .string({ error: "The email field is required." })
  .trim()
  .min(1, "The email field is required.")
  .max(254, "The email field must not be greater than 254 characters.")
  .pipe(z.email("The email field must be a valid email address."));

export const PASSWORD_MIN = 8;
export const passwordField = z
  .string({ error: "The password field is required." })
  .min(PASSWORD_MIN, `The password field must be at least ${PASSWORD_MIN} characters.`)
  .max(128, "The password field must not be greater than 128 characters.");

export const UNDERAGE_MESSAGE = "You must be at least 18 years old";
export const DOB_REQUIRED_MESSAGE = "Please select your date of birth";

export const dateOfBirthField = z
  .string({ error: DOB_REQUIRED_MESSAGE })
  .trim()
  // A date that does not exist has no age: stop there rather than also call it under 18.
  .refine(isRealDate, { message: DOB_REQUIRED_MESSAGE, abort: true })
  .refine((v) => ageOn(v) >= MINIMUM_AGE, UNDERAGE_MESSAGE)
  .refine((v) => ageOn(v) <= 120, DOB_REQUIRED_MESSAGE);

const confirmed = <T extends { password: string; password_confirmation: string }>(v: T) =>
  v.password === v.password_confirmation;
const CONFIRMATION_MESSAGE = "The password field confirmation does not match.";

export const registerSchema = z
  .object({
    username: newUsernameField,
    email: emailField,
    password: passwordField,
    password_confirmation: z.string({ error: CONFIRMATION_MESSAGE }),
    dateOfBirth: dateOfBirthField,
  })
  .refine(confirmed, { path: ["password_confirmation"], message: CONFIRMATION_MESSAGE });
export type RegisterInput = z.infer<typeof registerSchema>;

const checkbox = z
  .union([z.boolean(), z.literal("on"), z.literal("true"), z.literal("1"), z.literal("")])
  .optional()
  .transform((v) => v === true || v === "on" || v === "true" || v === "1");

export const loginSchema = z.object({
  email: emailField,
  password: z
    .string({ error: "The password field is required." })
    .min(1, "The password field is required."),
  remember: checkbox,
});
export type LoginInput = z.infer<typeof loginSchema>;

export const forgotPasswordSchema = z.object({ email: emailField });

export const resetPasswordSchema = z
  .object({
    token: z
      .string({ error: "This password reset token is invalid." })
      .min(1, "This password reset token is invalid."),
    email: emailField,
    password: passwordField,
    password_confirmation: z.string({ error: CONFIRMATION_MESSAGE }),
  })
  .refine(confirmed, { path: ["password_confirmation"], message: CONFIRMATION_MESSAGE });

export const confirmPasswordSchema = z.object({
  password: z
    .string({ error: "The password field is required." })
    .min(1, "The password field is required."),
});

export const CURRENT_PASSWORD_REQUIRED = "The current password field is required.";
export const CURRENT_PASSWORD_INCORRECT = "The provided password is incorrect.";

/** Changing the password asks for the current one, whatever the session's last confirmation. */
export const updatePasswordSchema = z
  .object({
    current_password: z
      .string({ error: CURRENT_PASSWORD_REQUIRED })
      .min(1, CURRENT_PASSWORD_REQUIRED)
      .max(128, CURRENT_PASSWORD_INCORRECT),
    password: passwordField,
    password_confirmation: z.string({ error: CONFIRMATION_MESSAGE }),
  })
  .refine(confirmed, { path: ["password_confirmation"], message: CONFIRMATION_MESSAGE });
