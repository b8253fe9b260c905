import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { AppLink } from "~/components/link";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";

export const meta: MetaFunction = () => titleMeta("Account Deleted");

/** A signed-in member has an account: this page is not about them. */
export function loader({ context }: LoaderFunctionArgs) {
  if (context.user) throw redirect("/dashboard");
  return null;
}

/** Where a member lands after deleting their account (signed out). */
export default function AccountDeletedPage() {
  return (
    <AppShell>
      <section className="error-page">
        <div>
          <h1>Your account has been deleted</h1>
          <p className="muted">
            Your profile, photos and messages are gone. Thank you for having been part of Heartline.
          </p>
          <AppLink to="/" className="btn btn-primary">
            Back to Heartline
          </AppLink>
        </div>
      </section>
    </AppShell>
  );
}
