import { TimeAgo } from "~/components/time-ago";
import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData, useNavigate } from "@remix-run/react";
import { useEffect } from "react";
import { FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import { moneyLinks, TestPaymentsNote } from "~/components/money";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { formatPrice, transactionLabel } from "~/schemas/credits";
import { creditStatus, listPacks } from "~/server/credits.server";
import { requireVerifiedUser, safeRedirect } from "~/server/guards.server";
import { isTestPayments } from "~/server/payments.server";
import {
  creditsStateAtom,
  fetchPacksSuccess,
  fetchStatusSuccess,
  initialCreditsState,
  purchaseCreditsAtom,
} from "~/state/credits";
import { useAtom, useHydrateAtoms, useSetAtom } from "~/state/jotai";

export const meta: MetaFunction = () => titleMeta("Credits");
export const links = moneyLinks;
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** The balance, the packs on sale and the newest transactions. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const returnTo = safeRedirect(new URL(request.url).searchParams.get("return_to"), "") || null;
  const [status, packs] = await Promise.all([
    creditStatus(context.env, user.id),
    listPacks(context.env),
  ]);
  return json(
    { status, packs, returnTo, testPayments: isTestPayments(context.env) },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export default function CreditsPage() {
  const loaded = useLoaderData<typeof loader>();
  useHydrateAtoms([
    [
      creditsStateAtom,
      fetchPacksSuccess(fetchStatusSuccess(initialCreditsState, loaded.status, 0), loaded.packs),
    ],
  ]);
  const [state, setState] = useAtom(creditsStateAtom);
  const purchase = useSetAtom(purchaseCreditsAtom);
  const navigate = useNavigate();

  useEffect(() => {
    setState((s) => fetchPacksSuccess(fetchStatusSuccess(s, loaded.status), loaded.packs));
  }, [loaded, setState]);

  const buy = async (packId: string) => {
    const res = await purchase({ packId, returnTo: loaded.returnTo });
    if (!res) return;
    if ("checkout_url" in res) {
      window.location.assign(res.checkout_url);
      return;
    }
    const params = new URLSearchParams({ payment: res.payment_id ?? "" });
    if (loaded.returnTo) params.set("return_to", loaded.returnTo);
    navigate(`/my/credits/success?${params.toString()}`);
  };

  const { userCredit } = state;
  return (
    <AppShell>
      <div className="container narrow money">
        <div className="page-head">
          <div>
            <h1>Credits</h1>
            <p className="muted">Credits pay for gifts in chat. Prices include everything.</p>
            <p className="small">
              <AppLink to="/my/payments">Payments and receipts</AppLink>
            </p>
          </div>
        </div>
        <TestPaymentsNote test={loaded.testPayments} />
        <section className="card money-balance" aria-labelledby="balance-heading">
          <h2 id="balance-heading" className="sr-only">
            Your balance
          </h2>
          <p>
            <span className="money-balance-number" data-testid="balance">
              {userCredit.balance}
            </span>{" "}
            credits
          </p>
          <p className="muted small">
            {userCredit.lifetime_earned} bought in all · {userCredit.lifetime_spent} spent
          </p>
        </section>

        <section aria-labelledby="packs-heading">
          <h2 id="packs-heading">Buy credits</h2>
          <FormAlert message={state.error} />
          <ul className="money-grid">
            {state.availablePacks.map((pack) => (
              <li key={pack.id} className="card money-pack">
                <h3>{pack.name}</h3>
                <p className="money-pack-credits">{pack.credits} credits</p>
                <p className="money-price">{formatPrice(pack.price_cents, pack.currency)}</p>
                <button
                  type="button"
                  className="btn btn-primary btn-block"
                  disabled={state.isPurchasing}
                  aria-label={`Buy ${pack.name}: ${pack.credits} credits for ${formatPrice(pack.price_cents, pack.currency)}`}
                  onClick={() => void buy(pack.id)}
                >
                  Buy
                </button>
              </li>
            ))}
          </ul>
        </section>

        <section className="card" aria-labelledby="transactions-heading">
          <h2 id="transactions-heading">Recent transactions</h2>
          {state.recentTransactions.length === 0 ? (
            <p className="muted">No transactions yet.</p>
          ) : (
            <ol className="money-transactions">
              {state.recentTransactions.map((t) => (
                <li key={t.id}>
                  <span>{transactionLabel(t)}</span>
                  <span className="muted small">
                    <TimeAgo iso={t.created_at} />
                  </span>
                  <strong className={t.direction === "in" ? "money-in" : "money-out"}>
                    {t.direction === "in" ? "+" : "−"}
                    {t.amount}
                  </strong>
                </li>
              ))}
            </ol>
          )}
        </section>
      </div>
    </AppShell>
  );
}
