import type {
  ActionFunctionArgs,
  HeadersFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigate, useNavigation } from "@remix-run/react";
import { useEffect, useState, type FormEvent } from "react";
import { CsrfInput, FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import { moneyLinks, TestPaymentsNote } from "~/components/money";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { formatPrice } from "~/schemas/credits";
import {
  changePlanSchema,
  PAST_DUE_GRACE_DAYS,
  type BillingCycle,
  type CurrentSubscription,
  type PlanChangeQuote,
} from "~/schemas/subscription";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { requireVerifiedUser } from "~/server/guards.server";
import { isTestPayments } from "~/server/payments.server";
import { changePlan, planChangeQuotes } from "~/server/plan-changes.server";
import { subscriptionStatus } from "~/server/subscriptions.server";
import { parseInput, readBody } from "~/server/validation.server";
import { useAtom, useHydrateAtoms, useSetAtom } from "~/state/jotai";
import { useRootData } from "~/lib/root-data";
import {
  cancelSubscriptionAtom,
  createSubscriptionAtom,
  fetchSubscriptionSuccess,
  initialSubscriptionState,
  subscriptionStateAtom,
} from "~/state/subscription";
import { dayText } from "~/lib/dates";

export const meta: MetaFunction = () => titleMeta("Subscription");
export const links = moneyLinks;
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const [status, quotes] = await Promise.all([
    subscriptionStatus(context.env, user.id),
    planChangeQuotes(context.env, user.id),
  ]);
  return json(
    { ...status, quotes, testPayments: isTestPayments(context.env) },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

type ChangeAnswer = { changed: CurrentSubscription; pending: boolean };

/**
 * "Change plan": the same change as `PUT /my/subscription`, from the page's form. With Stripe the
 * page shows the new plan once Stripe's webhook has changed it (`pending`).
 */
export function action({ context, request }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requireVerifiedUser(context, request);
    const input = parseInput(changePlanSchema, await readBody(request));
    const changed = await changePlan(context.env, user.id, input);
    return json<ChangeAnswer>({ changed, pending: !isTestPayments(context.env) });
  });
}

const STATUS_TEXT = {
  active: "Active",
  cancelled: "Cancelled",
  past_due: "Payment failed",
} as const;

const per = (cycle: BillingCycle) => (cycle === "yearly" ? "a year" : "a month");

/** What a change costs, in words: paid now, or kept as credit; prorated either way. */
function quoteText(q: PlanChangeQuote): string {
  const price = (cents: number) => formatPrice(cents, q.currency);
  const then = `Then ${price(q.price_cents)} ${per(q.billing_cycle)} from ${dayText(q.renews_at)}.`;
  const span = q.new_period
    ? `a ${q.billing_cycle === "yearly" ? "year" : "month"} from today`
    : "the rest of this period";
  if (q.due_now_cents > 0) {
    const held = q.charge_cents - q.credit_cents - q.due_now_cents;
    return `Pay ${price(q.due_now_cents)} now: ${price(q.charge_cents)} for ${span}, less ${price(q.credit_cents)} for the unused part of your plan${held > 0 ? ` and ${price(held)} of your credit` : ""}. ${then}`;
  }
  if (q.credit_kept_cents > 0) {
    return `Nothing to pay now: ${price(q.charge_cents)} for ${span}, less ${price(q.credit_cents)} for the unused part of your plan; the ${price(q.credit_kept_cents)} left is credit toward your next payments. ${then}`;
  }
  return `Nothing to pay now: your credit covers ${price(q.charge_cents - q.credit_cents)} for ${span}. ${then}`;
}

/** The other plans and cycles, each with what changing to it costs now, and its button. */
function ChangePlan({
  current,
  quotes,
  testPayments,
}: {
  current: CurrentSubscription;
  quotes: PlanChangeQuote[];
  testPayments: boolean;
}) {
  const answer = useActionData<ChangeAnswer | ActionErrors>();
  const busy = useNavigation().state === "submitting";
  const error =
    answer && "errors" in answer
      ? (answer.errors.plan_id?.[0] ?? answer.errors.billing_cycle?.[0] ?? answer.message)
      : null;
  const done =
    answer && "changed" in answer
      ? answer.pending
        ? `Your change to ${answer.changed.plan.name} (${answer.changed.billing_cycle}) is with Stripe; this page shows it once Stripe confirms.`
        : `Your plan is now ${answer.changed.plan.name} (${answer.changed.billing_cycle}).`
      : null;
  return (
    <section className="money-change" aria-labelledby="change-heading">
      <h3 id="change-heading">Change plan</h3>
      <FormAlert message={error} />
      <FormAlert message={done} tone="success" />
      <p className="muted small">
        A change applies at once and is prorated: the unused part of this period counts toward the
        new price.
        {current.status === "cancelled" ? " Changing plan also resumes your subscription." : ""}
        {testPayments ? "" : " Stripe's invoice has the exact amounts."}
      </p>
      <ul className="money-change-options">
        {quotes.map((q) => {
          const id = `change-${q.plan_id}-${q.billing_cycle}`;
          return (
            <li key={id}>
              <p id={`${id}-cost`}>
                <strong>
                  {q.plan_name}, {q.billing_cycle}
                </strong>
                : {formatPrice(q.price_cents, q.currency)} {per(q.billing_cycle)}.{" "}
                <span className="muted small">{quoteText(q)}</span>
              </p>
              <Form method="post">
                <CsrfInput />
                <input type="hidden" name="plan_id" value={q.plan_id} />
                <input type="hidden" name="billing_cycle" value={q.billing_cycle} />
                <button
                  type="submit"
                  className="btn btn-secondary"
                  disabled={busy}
                  aria-describedby={`${id}-cost`}
                >
                  Change to {q.plan_name}, {q.billing_cycle}
                </button>
              </Form>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

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
  // Past its period end and not yet renewed: the renewal is on its way (docs/decisions/036).
  const serverNow = useRootData()?.now ?? 0;
  const renewing = renews && Date.parse(current.current_period_end) <= serverNow;
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
            <p className="small">
              <AppLink to="/my/payments">Payments and receipts</AppLink>
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
                {renewing
                  ? "Renewing now: your perks continue while the payment goes through."
                  : renews
                    ? `Renews on ${dayText(current.current_period_end)}.`
                    : current.status === "cancelled"
                      ? `Cancelled${current.cancelled_at ? ` on ${dayText(current.cancelled_at)}` : ""}. Your perks last until ${dayText(current.current_period_end)}; nothing renews.`
                      : `Your last payment failed. Your perks continue for ${PAST_DUE_GRACE_DAYS} days from the failed payment while your card is tried again; update your card under Payments and receipts to keep them.`}
              </p>
              {loaded.quotes.length > 0 ? (
                <ChangePlan
                  current={current}
                  quotes={loaded.quotes}
                  testPayments={loaded.testPayments}
                />
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
                      You keep your perks until {dayText(current.current_period_end)}, and nothing
                      is charged after.
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
