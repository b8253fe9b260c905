import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { CheckoutResult, moneyLinks } from "~/components/money";
import { usePollWhile } from "~/lib/poll";
import { titleMeta } from "~/lib/title";
import { paymentOf } from "~/server/credits.server";
import { requireVerifiedUser } from "~/server/guards.server";
import { isTestPayments } from "~/server/payments.server";
import { currentSubscription } from "~/server/subscriptions.server";

export const meta: MetaFunction = () => titleMeta("Subscribed");
export const links = moneyLinks;
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/**
 * Where a subscription checkout returns to. With Stripe the subscription starts when its webhook
 * arrives, which may be a moment after the redirect: until then the page says so and checks again.
 */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const session = new URL(request.url).searchParams.get("session_id") ?? undefined;
  const [payment, subscription] = await Promise.all([
    session ? paymentOf(context.env, user.id, { session }) : null,
    currentSubscription(context.env, user.id),
  ]);
  const waiting = Boolean(payment && payment.status !== "completed");
  return json(
    {
      subscription: waiting ? null : subscription,
      waiting,
      testPayments: isTestPayments(context.env),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export default function SubscriptionSuccessPage() {
  const { subscription, waiting, testPayments } = useLoaderData<typeof loader>();
  const gaveUp = usePollWhile(waiting);
  return (
    <CheckoutResult
      live
      testPayments={testPayments}
      returnTo={null}
      fallback={{ to: "/my/subscription", label: "Your subscription" }}
    >
      {subscription && subscription.status === "active" ? (
        <>
          <h1>Welcome to {subscription.plan.name}!</h1>
          <p>Your perks are on now:</p>
          <ul className="money-perks">
            {subscription.plan.perks.map((perk) => (
              <li key={perk}>{perk}</li>
            ))}
          </ul>
        </>
      ) : waiting ? (
        <>
          <h1>Confirming your subscription…</h1>
          <p className="muted">
            {gaveUp
              ? "This is taking longer than usual. Your subscription page shows it as soon as the payment is confirmed."
              : "Your perks start as soon as the payment is confirmed."}
          </p>
        </>
      ) : (
        <>
          <h1>No new subscription</h1>
          <p className="muted">We could not find a subscription started here.</p>
        </>
      )}
    </CheckoutResult>
  );
}
