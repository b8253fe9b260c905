import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { BackLinks } from "~/components/money";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { requireVerifiedUser } from "~/server/guards.server";
import moneyStyles from "~/styles/money.css?url";

export const meta: MetaFunction = () => titleMeta("Checkout Cancelled");
export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

/** Where a cancelled subscription checkout returns to. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  requireVerifiedUser(context, request);
  return null;
}

export default function SubscriptionCancelPage() {
  return (
    <AppShell>
      <div className="container narrow money">
        <div className="card money-result">
          <h1>Checkout cancelled</h1>
          <p>Nothing was charged, and your plan is unchanged.</p>
          <BackLinks
            returnTo={null}
            fallback={{ to: "/my/subscription", label: "Back to plans" }}
          />
        </div>
      </div>
    </AppShell>
  );
}
