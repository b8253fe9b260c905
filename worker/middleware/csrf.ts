import { createMiddleware } from "hono/factory";
import { csrfMismatch } from "~/server/errors.server";
import { isValidCsrfToken, submittedCsrfToken } from "~/server/csrf.server";
import type { AppBindings } from "../types";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
/** Signed by their sender (Stripe), or by us in an email's link, instead of a page's token. */
const EXEMPT = [/^\/webhooks\/stripe$/, /^\/email\/unsubscribe$/];

/** Every state-changing request carries the page's CSRF token (docs/api.md "CSRF"). */
export const csrf = createMiddleware<AppBindings>(async (c, next) => {
  if (SAFE.has(c.req.method) || EXEMPT.some((re) => re.test(c.req.path))) return next();
  const token = await submittedCsrfToken(c.req.raw);
  // The request context made the token of this request's secret already (empty for an upgrade).
  const expected = c.get("rc").csrfToken;
  if (!(await isValidCsrfToken(c.env, c.get("csrfSecret"), token, expected))) throw csrfMismatch();
  return next();
});
