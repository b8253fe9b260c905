import type { LinksFunction } from "@remix-run/cloudflare";
import type { ReactNode } from "react";
import moneyStyles from "~/styles/money.css?url";
import { AppLink } from "./link";
import { AppShell } from "./shell";

/** The stylesheet of the credit, subscription and gift pages. */
export const moneyLinks: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

/** The line every payment page carries while payments run through the local test provider. */
export function TestPaymentsNote({ test }: { test: boolean }) {
  if (!test) return null;
  return (
    <p className="alert alert-warning money-test-note" role="note">
      Test payments: this is not a live shop, and nothing is charged to anyone.
    </p>
  );
}

/** Where a return page leads: back to the conversation the member came from, or on. */
function BackLinks({
  returnTo,
  fallback,
}: {
  returnTo: string | null;
  fallback: { to: string; label: string };
}) {
  return (
    <p className="money-actions">
      {returnTo ? (
        <AppLink to={returnTo} className="btn btn-primary">
          {returnTo.startsWith("/chat") ? "Back to the conversation" : "Back"}
        </AppLink>
      ) : null}
      <AppLink to={fallback.to} className={returnTo ? "btn btn-secondary" : "btn btn-primary"}>
        {fallback.label}
      </AppLink>
    </p>
  );
}

/**
 * The page a checkout returns to (paid, waiting for the payment, or cancelled): what happened in a
 * card, the test-payments note where it applies, and the way back. `live` announces an outcome
 * that changes while the page checks again.
 */
export function CheckoutResult({
  live = false,
  testPayments = false,
  returnTo,
  fallback,
  children,
}: {
  live?: boolean;
  testPayments?: boolean;
  returnTo: string | null;
  fallback: { to: string; label: string };
  children: ReactNode;
}) {
  return (
    <AppShell>
      <div className="container narrow money">
        <div className="card money-result" aria-live={live ? "polite" : undefined}>
          {children}
          <TestPaymentsNote test={testPayments} />
          <BackLinks returnTo={returnTo} fallback={fallback} />
        </div>
      </div>
    </AppShell>
  );
}
