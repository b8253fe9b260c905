import { AppLink } from "./link";

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
export function BackLinks({
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
