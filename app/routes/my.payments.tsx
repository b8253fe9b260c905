import type {
  ActionFunctionArgs,
  HeadersFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { CsrfInput, FormAlert } from "~/components/form";
import { moneyLinks, TestPaymentsNote } from "~/components/money";
import { Pager } from "~/components/pager";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { formatPrice } from "~/schemas/credits";
import { PAYMENT_STATUS_LABELS } from "~/schemas/payments";
import { pageOf } from "~/schemas/query";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { billingPortal, listPayments } from "~/server/billing.server";
import { requireVerifiedUser } from "~/server/guards.server";
import { isTestPayments, siteUrl } from "~/server/payments.server";
import { dayText } from "~/lib/dates";

export const meta: MetaFunction = () => titleMeta("Payments and receipts");
export const links = moneyLinks;
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** The member's payments, newest first, with each one's status and receipt. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const list = await listPayments(context.env, user.id, { page: pageOf(request) });
  return json(
    { ...list, testPayments: isTestPayments(context.env) },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

/** "Manage cards and invoices": on to Stripe's customer portal. */
export function action({ context, request }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requireVerifiedUser(context, request);
    const { url } = await billingPortal(context.env, user.id, siteUrl(request, "/my/payments"));
    return redirect(url);
  });
}

export default function PaymentsPage() {
  const { payments, meta, testPayments } = useLoaderData<typeof loader>();
  const data = useActionData<ActionErrors>();
  return (
    <AppShell>
      <div className="container narrow money">
        <div className="page-head">
          <div>
            <h1>Payments and receipts</h1>
            <p className="muted">Every payment you made, newest first, and what became of it.</p>
          </div>
        </div>
        <TestPaymentsNote test={testPayments} />
        <section className="card" aria-labelledby="portal-heading">
          <h2 id="portal-heading">Cards and invoices</h2>
          <FormAlert message={data?.message} />
          <Form method="post">
            <CsrfInput />
            <button type="submit" className="btn btn-secondary">
              Manage cards and invoices
            </button>
          </Form>
        </section>
        <section className="card" aria-labelledby="payments-heading">
          <h2 id="payments-heading">Payments</h2>
          {payments.length === 0 ? (
            <p className="muted">No payments yet.</p>
          ) : (
            <ol className="money-transactions" data-testid="payments">
              {payments.map((p) => (
                <li key={p.id}>
                  <span>{p.description}</span>
                  <span className="muted small">{dayText(p.created_at, "short")}</span>
                  <span className={`badge payment-${p.status}`}>
                    {PAYMENT_STATUS_LABELS[p.status]}
                  </span>
                  <strong>{formatPrice(p.amount_cents, p.currency)}</strong>
                  {p.receipt_url ? (
                    <a href={p.receipt_url} target="_blank" rel="noreferrer">
                      Receipt
                    </a>
                  ) : null}
                </li>
              ))}
            </ol>
          )}
          <Pager meta={meta} href={(page) => `/my/payments?page=${page}`} />
        </section>
      </div>
    </AppShell>
  );
}
