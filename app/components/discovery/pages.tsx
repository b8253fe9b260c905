import { Link, useSearchParams } from "@remix-run/react";
import { useMemo, useState } from "react";
import { FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import { OnlineCount } from "~/components/online-count";
import { OnlineDot } from "~/components/online-dot";
import { Avatar } from "~/components/profile/member";
import { usePresenceWatch } from "~/realtime/use-presence-watch";
import { AppShell } from "~/components/shell";
import { displayName, timeAgo, type MemberCardView } from "~/lib/members";
import type { ConversationView } from "~/schemas/chat";
import type { SearchResponse } from "~/schemas/search";
import {
  initialLikesState,
  likesLoaded,
  memberLiked,
  memberUnliked,
  type LikedMember,
  type LikeListMeta,
} from "~/state/likes";
import { pageSearchState, type SearchFilterState, type SearchRequestBody } from "~/state/search";
import { MatchNote } from "./like-button";
import { LikedMemberItem } from "./likes";
import { DiscoverySearch } from "./search";

/** The search part of a page's loader data (app/server/discovery-pages.server.ts). */
export interface SearchPageProps {
  searched: boolean;
  request: SearchRequestBody;
  filters: SearchFilterState;
  response: SearchResponse | null;
  error: string | null;
  ageRange: { min: number; max: number };
}

interface DashboardProps {
  username: string;
  search: SearchPageProps;
  summary: {
    new_likes: { members: LikedMember[]; total: number };
    new_matches: { members: LikedMember[]; total: number };
    unread_conversations: ConversationView[];
    profile_views: number;
  };
}

const listMeta = (total: number, shown: number): LikeListMeta => ({
  page: 1,
  per_page: shown,
  total,
  has_more: total > shown,
});

/** The signed-in home: what matters now, and the search. */
export function DashboardPage({ username, search, summary }: DashboardProps) {
  const [params] = useSearchParams();
  const initialSearch = useMemo(() => pageSearchState(search), [search]);
  const [likes, setLikes] = useState(() =>
    likesLoaded(initialLikesState, {
      received: summary.new_likes.members,
      matches: summary.new_matches.members,
      meta: {
        received: listMeta(summary.new_likes.total, summary.new_likes.members.length),
        matches: listMeta(summary.new_matches.total, summary.new_matches.members.length),
      },
    }),
  );
  const [lastMatch, setLastMatch] = useState<string | null>(null);
  const unread = summary.unread_conversations.reduce((n, c) => n + c.unread_count, 0);
  usePresenceWatch([
    ...likes.received.map((m) => m.id),
    ...likes.matches.map((m) => m.id),
    ...summary.unread_conversations.map((c) => c.user_id),
  ]);

  return (
    <AppShell>
      <div className="container">
        {params.has("verified") ? (
          <div className="banner">
            <FormAlert
              message="Your email address is verified. Welcome to Heartline!"
              tone="success"
            />
          </div>
        ) : null}
        <div className="page-head">
          <div>
            <h1 className="dashboard-title">Hi {username}</h1>
            <p className="muted">Here is what is happening on Heartline today.</p>
            <OnlineCount />
          </div>
        </div>
        <ul className="stat-grid" aria-label="At a glance">
          <Stat to="/my/likes" value={likes.meta.received.total} label="likes waiting for you" />
          <Stat to="/my/likes" value={likes.meta.matches.total} label="matches" />
          <Stat to="/chat" value={unread} label="unread messages" />
          <Stat to="/my/profile" value={summary.profile_views} label="profile views" />
        </ul>
        <div className="dashboard-grid">
          <div className="dashboard-main">
            <DiscoverySearch
              scope="dashboard"
              initial={initialSearch}
              ageRange={search.ageRange}
              heading="Members for you"
            />
          </div>
          <aside className="dashboard-side">
            {lastMatch ? <MatchNote name={lastMatch} /> : null}
            <section className="card" aria-labelledby="new-likes-heading">
              <div className="card-head">
                <h2 id="new-likes-heading" className="h3">
                  Liked you
                </h2>
                <AppLink to="/my/likes" className="small">
                  All likes
                </AppLink>
              </div>
              {likes.received.length === 0 ? (
                <p className="muted small">
                  No new likes yet. A great main photo and a few interests help.
                </p>
              ) : (
                <ul className="liked-list">
                  {likes.received.map((m) => (
                    <LikedMemberItem
                      key={m.id}
                      member={m}
                      list="received"
                      onLiked={(member, isMatch) => {
                        setLikes((s) => memberLiked(s, member, isMatch));
                        if (isMatch) setLastMatch(displayName(member));
                      }}
                      onUnliked={(member) => setLikes((s) => memberUnliked(s, member))}
                    />
                  ))}
                </ul>
              )}
            </section>
            <section className="card" aria-labelledby="new-matches-heading">
              <div className="card-head">
                <h2 id="new-matches-heading" className="h3">
                  New matches
                </h2>
                <AppLink to="/my/matches" className="small">
                  Discover
                </AppLink>
              </div>
              {likes.matches.length === 0 ? (
                <p className="muted small">When you and someone like each other, they show here.</p>
              ) : (
                <ul className="liked-list">
                  {likes.matches.map((m) => (
                    <LikedMemberItem
                      key={m.id}
                      member={m}
                      list="matches"
                      onLiked={() => {}}
                      onUnliked={(member) => setLikes((s) => memberUnliked(s, member))}
                    />
                  ))}
                </ul>
              )}
            </section>
            <section className="card" aria-labelledby="unread-heading">
              <div className="card-head">
                <h2 id="unread-heading" className="h3">
                  Unread messages
                </h2>
                <AppLink to="/chat" className="small">
                  Chat
                </AppLink>
              </div>
              {summary.unread_conversations.length === 0 ? (
                <p className="muted small">You are all caught up.</p>
              ) : (
                <ul className="unread-list">
                  {summary.unread_conversations.map((c) => (
                    <li key={c.id}>
                      <ConversationLink conversation={c} />
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </aside>
        </div>
      </div>
    </AppShell>
  );
}

function Stat({ to, value, label }: { to: string; value: number; label: string }) {
  return (
    <li>
      <AppLink to={to} className="stat">
        <strong>{value.toLocaleString("en")}</strong>
        <span className="muted small">{label}</span>
      </AppLink>
    </li>
  );
}

function ConversationLink({ conversation }: { conversation: ConversationView }) {
  const name = displayName(conversation.user);
  return (
    <Link to={`/chat?conversation=${encodeURIComponent(conversation.id)}`} className="member-row">
      <span className="member-row-photo">
        <Avatar name={name} url={conversation.user.photo_url} size={44} />
        <OnlineDot memberId={conversation.user_id} online={conversation.user.online} />
      </span>
      <span className="member-row-body">
        <strong>{name}</strong>
        <span className="muted small">{conversation.last_message ?? "New conversation"}</span>
      </span>
      <span className="member-row-meta">
        <span className="pill">{conversation.unread_count}</span>
        {conversation.last_message_time ? (
          <span className="muted small"> {timeAgo(conversation.last_message_time)}</span>
        ) : null}
      </span>
    </Link>
  );
}

interface MatchesProps {
  search: SearchPageProps;
  matches: { members: LikedMember[]; total: number };
}

/** The matches page: where members discover each other, with my matches on top. */
export function MatchesPage({ search, matches }: MatchesProps) {
  const initialSearch = useMemo(() => pageSearchState(search), [search]);
  return (
    <AppShell>
      <div className="container">
        <div className="page-head">
          <div>
            <h1>Discover</h1>
            <p className="muted">Search members, like the ones you like, and match.</p>
          </div>
          <AppLink to="/my/likes" className="btn btn-secondary">
            Your likes
          </AppLink>
        </div>
        {matches.members.length > 0 ? (
          <section className="card matches-strip" aria-labelledby="matches-heading">
            <div className="card-head">
              <h2 id="matches-heading" className="h3">
                Your matches <span className="pill">{matches.total}</span>
              </h2>
              <AppLink to="/my/likes" className="small">
                See all
              </AppLink>
            </div>
            <ul className="match-avatars">
              {matches.members.map((m) => (
                <li key={m.id}>
                  <MatchAvatar member={m} />
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        <DiscoverySearch
          scope="matches"
          initial={initialSearch}
          ageRange={search.ageRange}
          heading="Members for you"
        />
      </div>
    </AppShell>
  );
}

function MatchAvatar({ member }: { member: MemberCardView }) {
  const name = displayName(member);
  return (
    <Link to={`/members/${encodeURIComponent(member.username)}`} className="match-avatar">
      <Avatar name={name} url={member.photo_url} size={64} />
      <span className="small">{name}</span>
    </Link>
  );
}
