export type FieldErrors = Record<string, string[]>;

/**
 * An error that maps to one HTTP status and the `{message, errors?}` body of docs/api.md "Errors".
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  toJSON() {
    return this.errors ? { message: this.message, errors: this.errors } : { message: this.message };
  }
}

export class ValidationError extends HttpError {
  constructor(errors: FieldErrors) {
    const first = Object.values(errors).flat()[0] ?? "The given data was invalid.";
    super(422, first, errors);
  }
}

export const unauthenticated = () => new HttpError(401, "Unauthenticated.");
export const emailNotVerified = () => new HttpError(403, "Your email address is not verified.");
export const forbidden = (message = "This action is unauthorized.") => new HttpError(403, message);
export const notFound = (message = "Not found.") => new HttpError(404, message);
export const csrfMismatch = () => new HttpError(419, "CSRF token mismatch.");
export const passwordConfirmationRequired = () =>
  new HttpError(423, "Password confirmation required.");
export const tooManyRequests = (retryAfter: number) =>
  new HttpError(429, "Too many attempts. Please try again later.", undefined, {
    "Retry-After": String(Math.max(1, retryAfter)),
  });
