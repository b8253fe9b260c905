import { TimeAgo } from "~/components/time-ago";
import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { z } from "~/schemas/zod";
import { EmptyState } from "~/components/empty-state";
import { AppLink } from "~/components/link";
import { Avatar } from "~/components/profile/member";
import { Pager } from "~/components/pager";
import { AppShell } from "~/components/shell";
import { displayName } from "~/lib/members";
import { moneyLinks } from "~/components/money";
import { titleMeta } from "~/lib/title";
import { GIFT_LISTS } from "~/schemas/credits";
import { creditBalance } from "~/server/credits.server";
import { listGiftHistory } from "~/server/gifts.server";
import { requireVerifiedUser } from "~/server/guards.server";

export const meta: MetaFunction = () => titleMeta("Gifts");
export const links = moneyLinks;
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

const query = z.object({
  list: z.enum(GIFT_LISTS).catch("received"),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
});

/** Gifts received and sent: who, when and the price. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const { list, page } = query.parse(Object.fromEntries(new URL(request.url).searchParams));
  const [history, credit] = await Promise.all([
    listGiftHistory(context.env, user.id, list, { page }),
    creditBalance(context.env, user.id),
  ]);
  return json(
    { list, ...history, balance: credit.balance },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export default function GiftsPage() {
  const { list, gifts, meta, balance } = useLoaderData<typeof loader>();
  return (
    <AppShell>
      <div className="container narrow money">
        <div className="page-head">
          <div>
            <h1>Gifts</h1>
            <p className="muted">
              Send gifts from any conversation. You have {balance} credits ·{" "}
              <AppLink to="/my/credits">Buy credits</AppLink>
            </p>
          </div>
        </div>
        <nav className="money-tabs" aria-label="Gifts">
          {GIFT_LISTS.map((l) => (
            <AppLink
              key={l}
              to={`/my/gifts?list=${l}`}
              className={list === l ? "active" : undefined}
              aria-current={list === l ? "page" : undefined}
            >
              {l === "received" ? "Received" : "Sent"}
            </AppLink>
          ))}
        </nav>
        {gifts.length === 0 ? (
          <EmptyState className="card empty-state" actions={[{ to: "/chat", label: "Open chat" }]}>
            <p>
              {list === "received"
                ? "No gifts received yet. Gifts arrive in your conversations."
                : "You have not sent a gift yet. Send one from a conversation with the 🎁 button."}
            </p>
          </EmptyState>
        ) : (
          <ol
            className="money-gifts"
            aria-label={list === "received" ? "Gifts received" : "Gifts sent"}
          >
            {gifts.map((g) => {
              const name = g.user ? displayName(g.user) : "a member";
              return (
                <li key={g.id} className="card money-gift">
                  <span className="money-gift-icon" aria-hidden="true">
                    {g.gift.icon}
                  </span>
                  {g.user ? <Avatar name={name} urls={g.user.photo_urls} size={36} /> : null}
                  <span className="money-gift-body">
                    <span>
                      {list === "received" ? (
                        <>
                          <strong>{g.gift.name}</strong> from {name}
                        </>
                      ) : (
                        <>
                          <strong>{g.gift.name}</strong> to {name}
                        </>
                      )}
                    </span>
                    <span className="muted small">
                      <TimeAgo iso={g.sent_at} />
                    </span>
                  </span>
                  <span className="money-gift-price">{g.price_credits} credits</span>
                  {g.user ? (
                    <AppLink to={`/chat/${g.conversation_id}`} className="btn btn-sm btn-secondary">
                      Chat
                    </AppLink>
                  ) : null}
                </li>
              );
            })}
          </ol>
        )}
        <Pager meta={meta} href={(page) => `?list=${list}&page=${page}`} />
      </div>
    </AppShell>
  );
}
