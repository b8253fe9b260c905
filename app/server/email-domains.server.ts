import { disposableEmailBlocklistSet } from "disposable-email-domains-js";

/**
 * Disposable (throwaway) email domains, refused at registration (docs/api.md "Authentication",
 * docs/domain.md "Members and accounts"): a member must be reachable at their address, and a banned
 * member must not come back with a fresh inbox a minute later. The list is the maintained
 * `disposable-email-domains-js` package (the disposable-email-domains project's blocklist), kept
 * current by updating the package, never by hand.
 */

export const DISPOSABLE_EMAIL =
  "Please use a permanent email address. Disposable email addresses are not accepted.";

// Built once per isolate on first use: the list is read-only data, not per-request state.
let domains: Set<string> | null = null;

/**
 * Whether the address is at a disposable domain or at any subdomain of one
 * (`x@inbox.mailinator.com` as well as `x@mailinator.com`).
 */
export function isDisposableEmail(email: string): boolean {
  const at = email.lastIndexOf("@");
  if (at < 0) return false;
  domains ??= disposableEmailBlocklistSet();
  const labels = email
    .slice(at + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, "")
    .split(".");
  for (let i = 0; i < labels.length - 1; i += 1) {
    if (domains.has(labels.slice(i).join("."))) return true;
  }
  return false;
}
