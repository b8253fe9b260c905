import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { requireVerifiedUser } from "~/server/guards.server";

export const meta: MetaFunction = () => titleMeta("Dashboard");

export function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  return json({ username: user.username });
}

export default function DashboardPage() {
  const { username } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  return (
    <AppShell>
      <div className="container">
        {params.has("verified") ? (
          <div className="banner">
            <FormAlert
              message="Your email address is verified. Welcome to Heartline!"
              tone="success"
            />
          </div>
        ) : null}
        <div className="page-head">
          <div>
            <h1>Hi {username}</h1>
            <p className="muted">Here is what is happening on Heartline today.</p>
          </div>
        </div>
        <div className="grid-2">
          <section className="card">
            <h2>Your account</h2>
            <p className="muted">Keep your password fresh and pick the look you like.</p>
            <AppLink to="/settings/password" className="btn btn-secondary">
              Change password
            </AppLink>
          </section>
          <section className="card">
            <h2>Appearance</h2>
            <p className="muted">Dark, light, or follow your device.</p>
            <AppLink to="/settings/appearance" className="btn btn-secondary">
              Choose a theme
            </AppLink>
          </section>
        </div>
      </div>
    </AppShell>
  );
}
