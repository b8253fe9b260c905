import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { CheckoutResult, moneyLinks } from "~/components/money";
import { usePollWhile } from "~/lib/poll";
import { titleMeta } from "~/lib/title";
import { creditBalance, paymentOf } from "~/server/credits.server";
import { requireVerifiedUser, safeRedirect } from "~/server/guards.server";
import { isTestPayments } from "~/server/payments.server";

export const meta: MetaFunction = () => titleMeta("Payment Received");
export const links = moneyLinks;
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/**
 * Where a credit purchase returns to (`?payment=` from the test provider, `?session_id=` from
 * Stripe Checkout). Stripe's webhook may land a moment after the redirect: until the payment is
 * completed the page says so and checks again, and shows a balance only once it includes it.
 */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const url = new URL(request.url);
  const payment = await paymentOf(context.env, user.id, {
    id: url.searchParams.get("payment") ?? undefined,
    session: url.searchParams.get("session_id") ?? undefined,
  });
  const completed = payment?.kind === "credits" && payment.status === "completed";
  return json(
    {
      found: payment?.kind === "credits",
      completed,
      credits: payment?.credits ?? null,
      balance: completed ? (await creditBalance(context.env, user.id)).balance : null,
      returnTo: safeRedirect(url.searchParams.get("return_to"), "") || null,
      testPayments: isTestPayments(context.env),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export default function CreditsSuccessPage() {
  const data = useLoaderData<typeof loader>();
  const gaveUp = usePollWhile(data.found && !data.completed);
  return (
    <CheckoutResult
      live
      testPayments={data.testPayments}
      returnTo={data.returnTo}
      fallback={{ to: "/my/credits", label: "Go to credits" }}
    >
      {data.completed ? (
        <>
          <h1>Thank you!</h1>
          <p>
            {data.credits} credits were added. Your balance is{" "}
            <strong data-testid="balance">{data.balance}</strong> credits.
          </p>
        </>
      ) : data.found ? (
        <>
          <h1>Confirming your payment…</h1>
          <p className="muted">
            {gaveUp
              ? "This is taking longer than usual. Your credits will appear on the credits page as soon as the payment is confirmed."
              : "Your credits appear here as soon as the payment is confirmed."}
          </p>
        </>
      ) : (
        <>
          <h1>No payment found</h1>
          <p className="muted">
            We could not find this payment. Nothing was added or charged here.
          </p>
        </>
      )}
    </CheckoutResult>
  );
}
