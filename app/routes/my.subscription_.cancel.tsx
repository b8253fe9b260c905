import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { CheckoutResult, moneyLinks } from "~/components/money";
import { titleMeta } from "~/lib/title";
import { requireVerifiedUser } from "~/server/guards.server";

export const meta: MetaFunction = () => titleMeta("Checkout Cancelled");
export const links = moneyLinks;

/** Where a cancelled subscription checkout returns to. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  requireVerifiedUser(context, request);
  return null;
}

export default function SubscriptionCancelPage() {
  return (
    <CheckoutResult returnTo={null} fallback={{ to: "/my/subscription", label: "Back to plans" }}>
      <h1>Checkout cancelled</h1>
      <p>Nothing was charged, and your plan is unchanged.</p>
    </CheckoutResult>
  );
}
