import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { TimeAgo } from "~/components/time-ago";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import { FormAlert } from "~/components/form";
import { Avatar } from "~/components/profile/member";
import { displayName } from "~/lib/members";
import { titleMeta } from "~/lib/title";
import { BLOCK_REASON_LABELS } from "~/schemas/block";
import { listBlocked } from "~/server/blocks.server";
import { requireUser } from "~/server/guards.server";
import {
  blockingStateAtom,
  fetchBlockedSuccess,
  fetchBlockedUsersAtom,
  initialBlockingState,
  unblockUserAtom,
} from "~/state/blocking";
import { useAtom, useHydrateAtoms, useSetAtom } from "~/state/jotai";

export const meta: MetaFunction = () => titleMeta("Blocked Members");

export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** The members I blocked, with Unblock. Blocking needs a verified email, so before that it is empty. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireUser(context, request);
  const blocked = user.emailVerifiedAt
    ? await listBlocked(context.env, user.id)
    : { blocked_users: [], meta: { page: 1, per_page: 0, has_more: false } };
  return json(
    { blocked, verified: Boolean(user.emailVerifiedAt) },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export default function BlockedMembersPage() {
  const loaded = useLoaderData<typeof loader>();
  useHydrateAtoms([
    [blockingStateAtom, fetchBlockedSuccess(initialBlockingState, loaded.blocked, 0)],
  ]);
  const [state, setState] = useAtom(blockingStateAtom);
  const refresh = useSetAtom(fetchBlockedUsersAtom);
  const unblock = useSetAtom(unblockUserAtom);
  const [pending, setPending] = useState<string | null>(null);

  useEffect(() => {
    setState((s) => fetchBlockedSuccess(s, loaded.blocked));
  }, [loaded, setState]);

  const onUnblock = async (id: string) => {
    setPending(id);
    // Unblocking changes only the flags; the list is refreshed on its own afterwards.
    if (await unblock(id)) await refresh(1);
    setPending(null);
  };

  return (
    <section className="card" aria-labelledby="blocked-heading">
      <h2 id="blocked-heading">Blocked members</h2>
      <p className="muted">
        You and the members you block cannot find, see or message each other. Unblocking lets you
        see each other again; likes removed by the block do not come back.
      </p>
      <FormAlert message={state.message} tone="success" />
      <FormAlert message={state.error} />
      {!loaded.verified ? (
        <FormAlert tone="warning" message="Verify your email address to block members." />
      ) : state.blockedUsers.length === 0 && !state.isLoading ? (
        <p className="empty-state">You have not blocked anyone.</p>
      ) : (
        <ul className="blocked-list" aria-label="Blocked members">
          {state.blockedUsers.map((member) => {
            const name = displayName(member);
            return (
              <li key={member.id} className="blocked-row">
                <Avatar name={name} urls={member.photo_urls} size={44} />
                <span className="member-row-body">
                  <strong>{name}</strong>
                  <span className="muted small">
                    @{member.username} · {BLOCK_REASON_LABELS[member.reason_type]} · blocked{" "}
                    <TimeAgo iso={member.blocked_at} />
                  </span>
                </span>
                <button
                  type="button"
                  className="btn btn-secondary btn-sm"
                  disabled={pending !== null}
                  aria-label={`Unblock ${name}`}
                  onClick={() => void onUnblock(member.id)}
                >
                  {pending === member.id ? "Unblocking…" : "Unblock"}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {state.hasMore ? (
        <div className="load-more">
          <button
            type="button"
            className="btn btn-secondary"
            disabled={state.isLoading}
            onClick={() => void refresh(state.page + 1)}
          >
            {state.isLoading ? "Loading…" : "Show more"}
          </button>
        </div>
      ) : null}
    </section>
  );
}
