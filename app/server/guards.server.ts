import { redirect, type AppLoadContext } from "@remix-run/cloudflare";
import { isPasswordRecentlyConfirmed } from "./session.server";

/** A same-site path to go back to, never another origin. */
export function safeRedirect(
  to: FormDataEntryValue | string | null | undefined,
  fallback = "/dashboard",
) {
  if (
    typeof to !== "string" ||
    !to.startsWith("/") ||
    to.startsWith("//") ||
    to.startsWith("/\\")
  ) {
    return fallback;
  }
  return to;
}

function here(request: Request) {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
}

/** Pages: the signed-in member, or a redirect to sign in and come back. */
export function requireUser(context: AppLoadContext, request: Request) {
  const { user, session } = context;
  if (!user || !session) {
    throw redirect(`/login?redirectTo=${encodeURIComponent(here(request))}`);
  }
  return { user, session };
}

/** Pages that need a verified email send an unverified member to the verification notice. */
export function requireVerifiedUser(context: AppLoadContext, request: Request) {
  const result = requireUser(context, request);
  if (!result.user.emailVerifiedAt) throw redirect("/verify-email");
  return result;
}

/** Pages for visitors (sign in, register) send a signed-in member to the dashboard. */
export function requireGuest(context: AppLoadContext) {
  if (context.user) throw redirect("/dashboard");
}

/** Sensitive pages ask for the password again when the last confirmation is over 3 hours old. */
export function requirePasswordConfirmed(context: AppLoadContext, request: Request) {
  const result = requireUser(context, request);
  if (!isPasswordRecentlyConfirmed(result.session)) {
    throw redirect(`/confirm-password?redirectTo=${encodeURIComponent(here(request))}`);
  }
  return result;
}
