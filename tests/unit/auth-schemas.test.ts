import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  confirmPasswordSchema,
  dateOfBirthField,
  emailField,
  forgotPasswordSchema,
  loginSchema,
  registerSchema,
  resetPasswordSchema,
  updatePasswordSchema,
  usernameField,
} from "~/schemas/auth";
import { fieldErrors } from "~/schemas/validation";

/**
 * The field-to-messages map a schema gives for some input (the `errors` of docs/api.md "Errors"),
 * or null.
 */
function errorsOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  return result.success ? null : fieldErrors(result.error);
}

function messagesOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.message);
}

/** YYYY-MM-DD of today (UTC) `years` ago, shifted by `days`. */
function birthday(years: number, days = 0) {
  const now = new Date();
  return new Date(
    Date.UTC(now.getUTCFullYear() - years, now.getUTCMonth(), now.getUTCDate() + days),
  )
    .toISOString()
    .slice(0, 10);
}

const valid = {
  username: "jane_doe",
  email: "jane@example.test",
  password: "correct horse battery",
  password_confirmation: "correct horse battery",
  dateOfBirth: birthday(30),
};

describe("username (docs/domain.md: Profile and photos)", () => {
  it.each([
    ["ab", "Username must be at least 3 characters"],
    ["", "Username must be at least 3 characters"],
    ["a".repeat(31), "Username must be at most 30 characters"],
    ["jane-doe", "Username can only contain letters, numbers, and underscores"],
    ["jane.doe", "Username can only contain letters, numbers, and underscores"],
    ["jané", "Username can only contain letters, numbers, and underscores"],
  ])("refuses %j with exactly %j", (value, message) => {
    expect(messagesOf(usernameField, value)).toEqual([message]);
  });

  it("accepts 3 to 30 letters, digits and underscores, trimmed", () => {
    expect(usernameField.parse("abc")).toBe("abc");
    expect(usernameField.parse("A_1".padEnd(30, "z"))).toHaveLength(30);
    expect(usernameField.parse("  jane_99  ")).toBe("jane_99");
  });

  it("asks for a username when none is given", () => {
    expect(messagesOf(usernameField, undefined)).toEqual([
      "Username must be at least 3 characters",
    ]);
  });
});

describe("email", () => {
  it("accepts an address and trims it", () => {
    expect(emailField.parse("  jane@example.test ")).toBe("jane@example.test");
  });

  it("refuses a missing, empty, malformed or overlong address", () => {
    expect(messagesOf(emailField, undefined)).toEqual(["The email field is required."]);
    expect(messagesOf(emailField, "")).toContain("The email field is required.");
    expect(messagesOf(emailField, "jane@")).toEqual([
      "The email field must be a valid email address.",
    ]);
    expect(messagesOf(emailField, `${"a".repeat(250)}@example.test`)).toContain(
      "The email field must not be greater than 254 characters.",
    );
  });
});

describe("date of birth", () => {
  it("accepts a member who is 18 today, and refuses one a day short of it", () => {
    expect(messagesOf(dateOfBirthField, birthday(18))).toEqual([]);
    expect(messagesOf(dateOfBirthField, birthday(18, 1))).toEqual([
      "You must be at least 18 years old",
    ]);
  });

  it("refuses a date in the future as under age", () => {
    expect(messagesOf(dateOfBirthField, birthday(-1))).toEqual([
      "You must be at least 18 years old",
    ]);
  });

  it("gives one message for a missing, impossible or implausible date", () => {
    for (const value of [undefined, "", "2000-02-30", "30/01/2000", birthday(121)]) {
      expect(messagesOf(dateOfBirthField, value), String(value)).toEqual([
        "Please select your date of birth",
      ]);
    }
  });
});

describe("registerSchema", () => {
  it("accepts a complete registration", () => {
    expect(errorsOf(registerSchema, valid)).toBeNull();
  });

  it("puts a confirmation mismatch on password_confirmation", () => {
    expect(errorsOf(registerSchema, { ...valid, password_confirmation: "something else" })).toEqual(
      { password_confirmation: ["The password field confirmation does not match."] },
    );
  });

  it("needs a password of 8 to 128 characters", () => {
    const short = errorsOf(registerSchema, {
      ...valid,
      password: "1234567",
      password_confirmation: "1234567",
    });
    expect(short?.password).toEqual(["The password field must be at least 8 characters."]);
    const long = "x".repeat(129);
    expect(
      errorsOf(registerSchema, { ...valid, password: long, password_confirmation: long })?.password,
    ).toEqual(["The password field must not be greater than 128 characters."]);
  });

  it("names every failing field", () => {
    expect(Object.keys(errorsOf(registerSchema, {}) ?? {}).sort()).toEqual([
      "dateOfBirth",
      "email",
      "password",
      "password_confirmation",
      "username",
    ]);
  });
});

describe("loginSchema", () => {
  it("reads remember me from a JSON boolean or a checkbox", () => {
    const base = { email: "jane@example.test", password: "x" };
    expect(loginSchema.parse(base).remember).toBe(false);
    expect(loginSchema.parse({ ...base, remember: true }).remember).toBe(true);
    expect(loginSchema.parse({ ...base, remember: "on" }).remember).toBe(true);
    expect(loginSchema.parse({ ...base, remember: false }).remember).toBe(false);
    expect(loginSchema.parse({ ...base, remember: "" }).remember).toBe(false);
  });

  it("needs an email and a password, but not the password rules of registration", () => {
    expect(errorsOf(loginSchema, { email: "jane@example.test", password: "short" })).toBeNull();
    expect(errorsOf(loginSchema, { email: "", password: "" })).toEqual({
      email: expect.arrayContaining(["The email field is required."]),
      password: ["The password field is required."],
    });
  });
});

describe("the other forms", () => {
  it("forgot password needs an email", () => {
    expect(errorsOf(forgotPasswordSchema, { email: "jane@example.test" })).toBeNull();
    expect(errorsOf(forgotPasswordSchema, {})).toEqual({
      email: ["The email field is required."],
    });
  });

  it("reset password needs a token, an email and a confirmed password", () => {
    const reset = {
      token: "abc",
      email: "jane@example.test",
      password: "new passphrase",
      password_confirmation: "new passphrase",
    };
    expect(errorsOf(resetPasswordSchema, reset)).toBeNull();
    expect(errorsOf(resetPasswordSchema, { ...reset, token: "" })).toEqual({
      token: ["This password reset token is invalid."],
    });
    expect(errorsOf(resetPasswordSchema, { ...reset, password_confirmation: "nope" })).toEqual({
      password_confirmation: ["The password field confirmation does not match."],
    });
  });

  it("confirm password needs a password", () => {
    expect(errorsOf(confirmPasswordSchema, { password: "x" })).toBeNull();
    expect(errorsOf(confirmPasswordSchema, { password: "" })).toEqual({
      password: ["The password field is required."],
    });
  });

  it("a password change needs the current password and a valid, confirmed new one", () => {
    expect(
      errorsOf(updatePasswordSchema, {
        current_password: "old passphrase",
        password: "new passphrase",
        password_confirmation: "new passphrase",
      }),
    ).toBeNull();
    expect(
      errorsOf(updatePasswordSchema, {
        password: "new passphrase",
        password_confirmation: "new passphrase",
      }),
    ).toEqual({ current_password: ["The current password field is required."] });
    expect(
      errorsOf(updatePasswordSchema, {
        current_password: "old passphrase",
        password: "new passphrase",
        password_confirmation: "other",
      }),
    ).toEqual({ password_confirmation: ["The password field confirmation does not match."] });
  });
});
