import type { LikedMember } from "~/state/likes";
import type {
  HeadersFunction,
  LinksFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData, useLocation } from "@remix-run/react";
import { useState } from "react";
import { MatchMoment, type TheirWords } from "~/components/search/like-button";
import { LikedMemberItem } from "~/components/search/likes";
import { EmptyState } from "~/components/empty-state";
import { AppLink } from "~/components/link";
import { AppShell } from "~/components/shell";
import { api } from "~/lib/http";
import { displayName } from "~/lib/members";
import { titleMeta } from "~/lib/title";
import { usePresenceWatch } from "~/realtime/use-presence-watch";
import { requireVerifiedUser } from "~/server/guards.server";
import { likesOverview } from "~/server/likes.server";
import { Provider, useAtom, useHydrateAtoms } from "~/state/jotai";
import {
  initialLikesState,
  likesLoaded,
  likesLoadFailure,
  likesLoadStart,
  LIKES_ERRORS,
  likesStateAtom,
  memberLiked,
  memberUnliked,
  type LikeListName,
  type LikesResponse,
  type LikesState,
} from "~/state/likes";
import { errorMessage } from "~/state/profile";
import searchStyles from "~/styles/search.css?url";

export const meta: MetaFunction = () => titleMeta("Likes");
export const links: LinksFunction = () => [{ rel: "stylesheet", href: searchStyles }];
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** Who liked me, whom I liked, and my matches. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const likes = await likesOverview(context.env, user.id);
  return json({ likes }, { headers: { "Cache-Control": "private, no-store" } });
}

/** Each list, and what its empty state suggests doing. */
const SECTIONS: {
  list: LikeListName;
  title: string;
  empty: string;
  action: { to: string; label: string };
}[] = [
  {
    list: "matches",
    title: "Matches",
    empty: "No matches yet. When you and someone like each other, they show here.",
    action: { to: "/my/matches", label: "Find someone to like" },
  },
  {
    list: "received",
    title: "Liked you",
    empty:
      "No one is waiting for an answer. A clear main photo and a few interests bring more likes.",
    action: { to: "/settings/profile", label: "Improve your profile" },
  },
  {
    list: "sent",
    title: "You liked",
    empty: "No likes waiting for an answer. Like members you would like to meet.",
    action: { to: "/my/matches", label: "Discover members" },
  },
];

export default function LikesPage() {
  const { likes } = useLoaderData<typeof loader>();
  const location = useLocation();
  return (
    <Provider key={location.key}>
      <Likes initial={likesLoaded(initialLikesState, likes as LikesResponse)} />
    </Provider>
  );
}

function Likes({ initial }: { initial: LikesState }) {
  useHydrateAtoms([[likesStateAtom, initial]]);
  const [state, setState] = useAtom(likesStateAtom);
  const [lastMatch, setLastMatch] = useState<{
    member: LikedMember;
    comment: TheirWords | null;
  } | null>(null);
  usePresenceWatch(SECTIONS.flatMap(({ list }) => state[list].map((m) => m.id)));

  const loadMore = async (list: LikeListName) => {
    setState((s) => likesLoadStart(s, list));
    try {
      const res = await api<LikesResponse>(
        `/my/likes?list=${list}&page=${state.meta[list].page + 1}`,
      );
      setState((s) => likesLoaded(s, res));
    } catch (error) {
      setState((s) =>
        likesLoadFailure(s, errorMessage(error, LIKES_ERRORS.load, LIKES_ERRORS.load)),
      );
    }
  };

  return (
    <AppShell>
      <div className="container">
        <div className="page-head">
          <div>
            <h1>Likes</h1>
            <p className="muted">Who liked you, whom you liked, and your matches.</p>
          </div>
          <AppLink to="/my/matches" className="btn btn-primary">
            Discover members
          </AppLink>
        </div>
        {lastMatch ? (
          <MatchMoment
            key={lastMatch.member.id}
            name={displayName(lastMatch.member)}
            memberId={lastMatch.member.id}
            photoUrls={lastMatch.member.photo_urls}
            comment={lastMatch.comment}
          />
        ) : null}
        {state.error ? (
          <div className="alert alert-error" role="alert">
            {state.error}
          </div>
        ) : null}
        <div className="likes-sections">
          {SECTIONS.map(({ list, title, empty, action }) => (
            <section key={list} className="card" aria-labelledby={`likes-${list}`} id={list}>
              <div className="card-head">
                <h2 id={`likes-${list}`} className="h3">
                  {title} <span className="pill">{state.meta[list].total}</span>
                </h2>
              </div>
              {state[list].length === 0 ? (
                <EmptyState
                  className="empty-state"
                  actions={[{ to: action.to, label: action.label }]}
                >
                  <p>{empty}</p>
                </EmptyState>
              ) : (
                <ul className="liked-list" aria-label={title}>
                  {state[list].map((member) => (
                    <LikedMemberItem
                      key={member.id}
                      member={member}
                      list={list}
                      onLiked={(m, isMatch, theirs) => {
                        setState((s) => memberLiked(s, m, isMatch));
                        // What they wrote with their like, as the server says or as the card held it.
                        setLastMatch(
                          isMatch
                            ? {
                                member: m,
                                comment:
                                  theirs ??
                                  (m.comment
                                    ? { comment: m.comment, safety: m.comment_safety ?? null }
                                    : null),
                              }
                            : null,
                        );
                      }}
                      onUnliked={(m) => setState((s) => memberUnliked(s, m))}
                    />
                  ))}
                </ul>
              )}
              {state.meta[list].has_more ? (
                <div className="load-more">
                  <button
                    type="button"
                    className="btn btn-secondary btn-sm"
                    disabled={state.loading === list}
                    onClick={() => void loadMore(list)}
                  >
                    {state.loading === list ? "Loading…" : "Load more"}
                  </button>
                </div>
              ) : null}
            </section>
          ))}
        </div>
      </div>
    </AppShell>
  );
}
