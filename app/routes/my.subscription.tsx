import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData, useNavigate } from "@remix-run/react";
import { useEffect, useState, type FormEvent } from "react";
import { FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import { moneyLinks, TestPaymentsNote } from "~/components/money";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { formatPrice } from "~/schemas/credits";
import { PAST_DUE_GRACE_DAYS, type BillingCycle } from "~/schemas/subscription";
import { requireVerifiedUser } from "~/server/guards.server";
import { isTestPayments } from "~/server/payments.server";
import { subscriptionStatus } from "~/server/subscriptions.server";
import { useAtom, useHydrateAtoms, useSetAtom } from "~/state/jotai";
import {
  cancelSubscriptionAtom,
  createSubscriptionAtom,
  fetchSubscriptionSuccess,
  initialSubscriptionState,
  subscriptionStateAtom,
} from "~/state/subscription";

export const meta: MetaFunction = () => titleMeta("Subscription");
export const links = moneyLinks;
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  return json(
    {
      ...(await subscriptionStatus(context.env, user.id)),
      testPayments: isTestPayments(context.env),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

const STATUS_TEXT = {
  active: "Active",
  cancelled: "Cancelled",
  past_due: "Payment failed",
} as const;

const day = (iso: string) =>
  new Date(iso).toLocaleDateString("en-US", {
    year: "numeric",
    month: "long",
    day: "numeric",
    timeZone: "UTC",
  });

export default function SubscriptionPage() {
  const loaded = useLoaderData<typeof loader>();
  useHydrateAtoms([
    [subscriptionStateAtom, fetchSubscriptionSuccess(initialSubscriptionState, loaded)],
  ]);
  const [state, setState] = useAtom(subscriptionStateAtom);
  const create = useSetAtom(createSubscriptionAtom);
  const cancel = useSetAtom(cancelSubscriptionAtom);
  const navigate = useNavigate();
  const [cycle, setCycle] = useState<BillingCycle>("monthly");
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState("");

  useEffect(() => {
    setState((s) => fetchSubscriptionSuccess(s, loaded));
  }, [loaded, setState]);

  const current = state.currentSubscription;
  const renews = current?.status === "active";
  const canSubscribe = !current || current.status === "cancelled";

  const subscribe = async (planId: string) => {
    const res = await create({ plan_id: planId, billing_cycle: cycle });
    if (!res) return;
    if ("checkout_url" in res) window.location.assign(res.checkout_url);
    else navigate("/my/subscription/success?started=1");
  };

  const onCancel = async (event: FormEvent) => {
    event.preventDefault();
    if (await cancel(reason)) {
      setConfirming(false);
      setReason("");
    }
  };

  return (
    <AppShell>
      <div className="container money">
        <div className="page-head">
          <div>
            <h1>Subscription</h1>
            <p className="muted">
              More likes, sharper search and private browsing. Cancel any time.
            </p>
          </div>
        </div>
        <TestPaymentsNote test={loaded.testPayments} />
        <FormAlert message={state.error} />

        <section className="card money-current" aria-labelledby="current-heading">
          <h2 id="current-heading">Your plan</h2>
          {current ? (
            <>
              <p>
                <strong>{current.plan.name}</strong>, billed {current.billing_cycle}:{" "}
                <span
                  className={`pill money-status-${current.status}`}
                  data-testid="subscription-status"
                >
                  {STATUS_TEXT[current.status]}
                </span>
              </p>
              <p className="muted">
                {renews
                  ? `Renews on ${day(current.current_period_end)}.`
                  : current.status === "cancelled"
                    ? `Cancelled${current.cancelled_at ? ` on ${day(current.cancelled_at)}` : ""}. Your perks last until ${day(current.current_period_end)}; nothing renews.`
                    : `Your last payment failed. Your perks continue for ${PAST_DUE_GRACE_DAYS} days from the failed payment while your card is tried again; update your card under Payments and receipts to keep them.`}
              </p>
              {current.status === "past_due" ? (
                <p>
                  <AppLink to="/my/payments">Payments and receipts</AppLink>
                </p>
              ) : null}
              {renews ? (
                confirming ? (
                  <form className="money-cancel" onSubmit={onCancel}>
                    <label className="label" htmlFor="cancel-reason">
                      Why are you cancelling?
                    </label>
                    <textarea
                      id="cancel-reason"
                      className="input"
                      rows={3}
                      maxLength={500}
                      required
                      value={reason}
                      onChange={(e) => setReason(e.target.value)}
                    />
                    <p className="muted small">
                      You keep your perks until {day(current.current_period_end)}, and nothing is
                      charged after.
                    </p>
                    <div className="money-actions">
                      <button
                        type="submit"
                        className="btn btn-danger"
                        disabled={state.isCancelling || !reason.trim()}
                      >
                        {state.isCancelling ? "Cancelling…" : "Confirm cancellation"}
                      </button>
                      <button
                        type="button"
                        className="btn btn-secondary"
                        onClick={() => setConfirming(false)}
                      >
                        Keep my subscription
                      </button>
                    </div>
                  </form>
                ) : (
                  <button
                    type="button"
                    className="btn btn-secondary"
                    onClick={() => setConfirming(true)}
                  >
                    Cancel subscription
                  </button>
                )
              ) : null}
            </>
          ) : (
            <p className="muted">
              You are on the free plan: 50 likes a day and the basic search filters.
            </p>
          )}
        </section>

        <section aria-labelledby="plans-heading">
          <div className="money-plans-head">
            <h2 id="plans-heading">Plans</h2>
            <div className="money-cycle" role="radiogroup" aria-label="Billing">
              {(["monthly", "yearly"] as const).map((c) => (
                <label key={c} className={cycle === c ? "active" : undefined}>
                  <input
                    type="radio"
                    name="billing_cycle"
                    value={c}
                    checked={cycle === c}
                    onChange={() => setCycle(c)}
                  />
                  {c === "monthly" ? "Monthly" : "Yearly"}
                </label>
              ))}
            </div>
          </div>
          <ul className="money-grid money-plans">
            {state.availablePlans.map((plan) => {
              const price = cycle === "yearly" ? plan.price_yearly_cents : plan.price_monthly_cents;
              const mine = current?.plan.id === plan.id;
              return (
                <li key={plan.id} className={`card money-plan${mine ? " money-plan-current" : ""}`}>
                  <h3>{plan.name}</h3>
                  <p className="money-price">
                    {formatPrice(price, plan.currency)}
                    <span className="muted small"> / {cycle === "yearly" ? "year" : "month"}</span>
                  </p>
                  <p className="muted small">
                    {formatPrice(plan.price_monthly_cents, plan.currency)} monthly or{" "}
                    {formatPrice(plan.price_yearly_cents, plan.currency)} yearly
                  </p>
                  <ul className="money-perks">
                    {plan.perks.map((perk) => (
                      <li key={perk}>{perk}</li>
                    ))}
                  </ul>
                  {mine && current?.status !== "cancelled" ? (
                    <p className="pill">Your plan</p>
                  ) : (
                    <button
                      type="button"
                      className="btn btn-primary btn-block"
                      disabled={!canSubscribe || state.isCreating}
                      aria-label={`Subscribe to ${plan.name}, ${cycle}, ${formatPrice(price, plan.currency)}`}
                      onClick={() => void subscribe(plan.id)}
                    >
                      Subscribe
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
          <p className="muted small">Who viewed you stays visible on every plan, free included.</p>
        </section>
      </div>
    </AppShell>
  );
}
