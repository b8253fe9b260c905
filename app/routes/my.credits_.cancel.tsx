import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { BackLinks } from "~/components/money";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { requireVerifiedUser, safeRedirect } from "~/server/guards.server";
import moneyStyles from "~/styles/money.css?url";

export const meta: MetaFunction = () => titleMeta("Payment Cancelled");
export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

/** Where a cancelled credit checkout returns to. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  requireVerifiedUser(context, request);
  const returnTo = safeRedirect(new URL(request.url).searchParams.get("return_to"), "") || null;
  return json({ returnTo });
}

export default function CreditsCancelPage() {
  const { returnTo } = useLoaderData<typeof loader>();
  return (
    <AppShell>
      <div className="container narrow money">
        <div className="card money-result">
          <h1>Payment cancelled</h1>
          <p>Nothing was charged, and your balance is unchanged.</p>
          <BackLinks
            returnTo={returnTo}
            fallback={{ to: "/my/credits", label: "Back to credits" }}
          />
        </div>
      </div>
    </AppShell>
  );
}
