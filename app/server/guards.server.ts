import { redirect, type AppLoadContext } from "@remix-run/cloudflare";
import { isPasswordRecentlyConfirmed } from "./session.server";

/** Control characters, every kind of whitespace, and the backslash (browsers read it as "/"). */
const UNSAFE_IN_REDIRECT =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0020\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff\\]/;
const ORIGIN = "http://heartline.invalid";

/**
 * A same-site path to go back to (after signing in or confirming the password), or `fallback`.
 * Browsers strip tab, CR and LF from a URL and read `\` as `/`, so `/\t/evil.example` would land on
 * `//evil.example`: a path with any control character, whitespace or backslash, in itself or
 * percent-encoded, is refused; so is anything that does not resolve to a path of this origin
 * starting with a single slash. The value returned is the normalised path (safe in a header).
 */
export function safeRedirect(
  to: FormDataEntryValue | string | null | undefined,
  fallback = "/dashboard",
) {
  if (typeof to !== "string" || to.length > 2048 || !to.startsWith("/") || to.startsWith("//")) {
    return fallback;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(to);
  } catch {
    return fallback;
  }
  if (UNSAFE_IN_REDIRECT.test(to) || UNSAFE_IN_REDIRECT.test(decoded)) return fallback;
  const url = new URL(to, ORIGIN);
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (url.origin !== ORIGIN || !path.startsWith("/") || path.startsWith("//")) return fallback;
  return path;
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

/**
 * Discovery (the dashboard, Discover): a member who has neither finished nor skipped onboarding is
 * led to it first.
 */
export function requireOnboardedUser(context: AppLoadContext, request: Request) {
  const result = requireVerifiedUser(context, request);
  if (result.user.onboarding === "pending") {
    // Straight from the verification link: the first step says the address is verified.
    const verified = new URL(request.url).searchParams.has("verified");
    throw redirect(verified ? "/onboarding?verified=1" : "/onboarding");
  }
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
