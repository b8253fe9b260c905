import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { CheckoutResult, moneyLinks } from "~/components/money";
import { titleMeta } from "~/lib/title";
import { requireVerifiedUser, safeRedirect } from "~/server/guards.server";

export const meta: MetaFunction = () => titleMeta("Payment Cancelled");
export const links = moneyLinks;

/** Where a cancelled credit checkout returns to. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  requireVerifiedUser(context, request);
  const returnTo = safeRedirect(new URL(request.url).searchParams.get("return_to"), "") || null;
  return json({ returnTo });
}

export default function CreditsCancelPage() {
  const { returnTo } = useLoaderData<typeof loader>();
  return (
    <CheckoutResult returnTo={returnTo} fallback={{ to: "/my/credits", label: "Back to credits" }}>
      <h1>Payment cancelled</h1>
      <p>Nothing was charged, and your balance is unchanged.</p>
    </CheckoutResult>
  );
}
