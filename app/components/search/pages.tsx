import type { LinksFunction } from "@remix-run/cloudflare";
import { Form, Link, useSearchParams } from "@remix-run/react";
import { TimeAgo } from "~/components/time-ago";
import { useMemo, useState, type ReactNode } from "react";
import { FormAlert } from "~/components/form";
import { EmptyState } from "~/components/empty-state";
import { AppLink } from "~/components/link";
import { OnlineCount } from "~/components/online-count";
import { OnlineDot } from "~/components/online-dot";
import { Avatar } from "~/components/profile/member";
import { Icon } from "~/components/icons";
import { usePresenceWatch } from "~/realtime/use-presence-watch";
import { AppShell } from "~/components/shell";
import { displayName, type MemberCardView } from "~/lib/members";
import type { ConversationView } from "~/schemas/chat";
import type { SearchScope } from "~/schemas/search";
import type { LikedMember } from "~/state/likes";
import { pageSearchState, type SearchPageData } from "~/state/search";
import { FIRST_ROW, MemberCard } from "./member-card";
import { MemberSearch } from "./member-search";
import cardStyles from "~/styles/cards.css?url";
import searchStyles from "~/styles/search.css?url";

/** The stylesheets of the pages with a member search (the dashboard and the matches page). */
export const searchPageLinks: LinksFunction = () => [
  { rel: "stylesheet", href: searchStyles },
  { rel: "stylesheet", href: cardStyles },
];

interface DashboardProps {
  name: string;
  search: SearchPageData;
  summary: {
    new_likes: { members: LikedMember[]; total: number };
    new_matches: { members: LikedMember[]; total: number };
    unread_conversations: ConversationView[];
    profile_views: number;
  };
  /** The newest members who viewed mine (GET /my/profile-viewers' first page). */
  viewers: (MemberCardView & { viewed_at: string })[];
}

/** GET /dashboard/search as a page: the dashboard's search, with its filters and results. */
export function DashboardSearchPage({ search }: { search: SearchPageData }) {
  return (
    <SearchPage
      scope="dashboard"
      search={search}
      head={<h1>Search</h1>}
      action={{ to: "/dashboard", label: "Back to today" }}
    />
  );
}

/**
 * The dashboard is "today": who liked me, new matches, conversations waiting for me, who viewed
 * me and a few suggestions, faces first. Its search bar opens /dashboard/search; Discover is where
 * browsing with filters happens.
 */
export function DashboardPage({ name, search, summary, viewers }: DashboardProps) {
  const [params] = useSearchParams();
  const [suggested, setSuggested] = useState(() => search.response?.results ?? []);
  const unread = summary.unread_conversations.reduce((n, c) => n + c.unread_count, 0);
  usePresenceWatch([
    ...summary.new_likes.members.map((m) => m.id),
    ...summary.new_matches.members.map((m) => m.id),
    ...summary.unread_conversations.map((c) => c.user_id),
    ...viewers.map((m) => m.id),
  ]);

  return (
    <AppShell>
      <div className="container today">
        {params.has("verified") ? (
          <div className="banner">
            <FormAlert
              message="Your email address is verified. Welcome to Heartline!"
              tone="success"
            />
          </div>
        ) : null}
        <div className="today-head">
          <div>
            <h1 className="dashboard-title">Hi {name}</h1>
            <OnlineCount />
          </div>
          <Form
            method="get"
            action="/dashboard/search"
            role="search"
            aria-label="Search members"
            className="today-search"
          >
            <label htmlFor="dashboard-keywords" className="sr-only">
              Keywords
            </label>
            <input
              id="dashboard-keywords"
              className="input"
              type="search"
              name="keywords"
              maxLength={100}
              placeholder="Search by name or interest"
            />
            <button type="submit" className="btn btn-primary">
              Search
            </button>
          </Form>
        </div>
        <div className="today-grid">
          <div className="today-main">
            <FaceStrip
              id="new-likes-heading"
              title="Liked you"
              total={summary.new_likes.total}
              more={{ to: "/my/likes", label: "All likes" }}
              members={summary.new_likes.members.map((m) => ({
                member: m,
                at: m.liked_at,
                said: m.comment ? { comment: m.comment, warned: Boolean(m.comment_safety) } : null,
              }))}
              empty={
                <>
                  <p className="muted small">
                    No new likes yet. Members like profiles with a clear main photo and a few
                    interests to talk about.
                  </p>
                  <AppLink to="/settings/profile" className="btn btn-secondary btn-sm">
                    Improve your profile
                  </AppLink>
                </>
              }
            />
            <FaceStrip
              id="new-matches-heading"
              title="New matches"
              total={summary.new_matches.total}
              more={{ to: "/my/likes?list=matches", label: "All matches" }}
              members={summary.new_matches.members.map((m) => ({ member: m, at: m.matched_at }))}
              empty={
                <>
                  <p className="muted small">
                    When you and someone like each other, you match and they show here. Like a few
                    members below to get started.
                  </p>
                </>
              }
            />
            <section className="today-section" aria-labelledby="suggested-heading">
              <div className="card-head">
                <h2 id="suggested-heading" className="h3">
                  Suggested for you
                </h2>
                <AppLink to="/my/matches" className="small">
                  Discover more
                </AppLink>
              </div>
              {suggested.length === 0 ? (
                <EmptyState
                  actions={[
                    { to: "/settings/profile", label: "Change your age range" },
                    { to: "/my/matches", label: "Search everyone", primary: true },
                  ]}
                >
                  <p className="muted">
                    No suggestions right now: nobody fits the ages you are looking for yet.
                  </p>
                </EmptyState>
              ) : (
                <ul className="member-grid" aria-label="Suggested members">
                  {suggested.map((member, index) => (
                    <li key={member.id}>
                      <MemberCard
                        member={member}
                        firstRow={index < FIRST_ROW}
                        first={index === 0}
                        onLikedChange={(liked) =>
                          setSuggested((list) =>
                            list.map((m) => (m.id === member.id ? { ...m, liked } : m)),
                          )
                        }
                      />
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </div>
          <aside className="today-side" aria-label="Waiting for you">
            <section className="card" aria-labelledby="unread-heading">
              <div className="card-head">
                <h2 id="unread-heading" className="h3">
                  Conversations waiting {unread > 0 ? <span className="pill">{unread}</span> : null}
                </h2>
                <AppLink to="/chat" className="small">
                  Chat
                </AppLink>
              </div>
              {summary.unread_conversations.length === 0 ? (
                <EmptyState actions={[{ to: "/chat", label: "Open chat" }]}>
                  <p className="muted small">
                    You are all caught up. A first message to a new match is the best way to start.
                  </p>
                </EmptyState>
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
            <FaceStrip
              id="viewers-heading"
              title="Viewed you"
              total={summary.profile_views}
              more={{ to: "/my/profile", label: "All views" }}
              members={viewers.map((m) => ({ member: m, at: m.viewed_at }))}
              card
              empty={
                <p className="muted small">
                  Nobody has viewed your profile yet. Liking members and chatting makes you show up
                  in more searches.
                </p>
              }
            />
          </aside>
        </div>
      </div>
    </AppShell>
  );
}

/** A row of faces (likes, matches, viewers): photo, name, when; each opens the profile. */
function FaceStrip({
  id,
  title,
  total,
  more,
  members,
  empty,
  card = false,
}: {
  id: string;
  title: string;
  total: number;
  more: { to: string; label: string };
  /** `said`: what their like said (a badge; its words unless message safety warns of them). */
  members: {
    member: MemberCardView;
    at?: string | null;
    said?: { comment: string; warned: boolean } | null;
  }[];
  empty: ReactNode;
  card?: boolean;
}) {
  return (
    <section
      className={card ? "card face-section" : "today-section face-section"}
      aria-labelledby={id}
    >
      <div className="card-head">
        <h2 id={id} className="h3">
          {title} {total > 0 ? <span className="pill">{total.toLocaleString("en")}</span> : null}
        </h2>
        {total > 0 ? (
          <AppLink to={more.to} className="small">
            {more.label}
          </AppLink>
        ) : null}
      </div>
      {members.length === 0 ? (
        <div className="empty-help">{empty}</div>
      ) : (
        <ul className="face-strip" aria-labelledby={id}>
          {members.map(({ member, at, said }) => {
            const name = displayName(member);
            const words = said
              ? said.warned
                ? `${name} wrote with their like: read it in Likes`
                : `${name} wrote: “${said.comment}”`
              : undefined;
            return (
              <li key={member.id}>
                <Link
                  to={`/members/${encodeURIComponent(member.username)}`}
                  className="face"
                  title={words}
                >
                  <span className="face-photo">
                    <Avatar name={name} urls={member.photo_urls} size={68} />
                    <OnlineDot memberId={member.id} online={member.online} />
                    {said ? (
                      <span className="face-said">
                        <Icon name="chat" size={14} />
                      </span>
                    ) : null}
                  </span>
                  <span className="face-name">
                    {name}, {member.age}
                  </span>
                  {at ? (
                    <span className="face-when muted">
                      <TimeAgo iso={at} />
                    </span>
                  ) : null}
                  {words ? <span className="sr-only">{words}</span> : null}
                </Link>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function ConversationLink({ conversation }: { conversation: ConversationView }) {
  const name = displayName(conversation.user);
  return (
    <Link to={`/chat?conversation=${encodeURIComponent(conversation.id)}`} className="member-row">
      <span className="member-row-photo">
        <Avatar name={name} urls={conversation.user.photo_urls} size={44} />
        <OnlineDot memberId={conversation.user_id} online={conversation.user.online} />
      </span>
      <span className="member-row-body">
        <span className="waiting-line">
          <strong>{name}</strong>
          <span className="pill">
            {conversation.unread_count}
            <span className="sr-only"> unread</span>
          </span>
        </span>
        <span className="waiting-line muted small">
          <span>{conversation.last_message ?? "New conversation"}</span>
          {conversation.last_message_time ? <TimeAgo iso={conversation.last_message_time} /> : null}
        </span>
      </span>
    </Link>
  );
}

/** Discover: the search, with its filters and results, across the page's width. */
export function MatchesPage({ search }: { search: SearchPageData }) {
  return (
    <SearchPage
      scope="matches"
      search={search}
      head={
        <div>
          <h1>Discover</h1>
          <p className="muted page-intro">Search members, like the ones you like, and match.</p>
        </div>
      }
      action={{ to: "/my/likes", label: "Your likes" }}
    />
  );
}

/** A page that is a search: its heading and one way elsewhere, then the search itself. */
function SearchPage({
  scope,
  search,
  head,
  action,
}: {
  scope: SearchScope;
  search: SearchPageData;
  head: ReactNode;
  action: { to: string; label: string };
}) {
  const initialSearch = useMemo(() => pageSearchState(search), [search]);
  return (
    <AppShell>
      <div className="container">
        <div className="page-head">
          {head}
          <AppLink to={action.to} className="btn btn-secondary btn-sm">
            {action.label}
          </AppLink>
        </div>
        <MemberSearch
          scope={scope}
          initial={initialSearch}
          ageRange={search.ageRange}
          origin={search.origin}
          heading="Members for you"
        />
      </div>
    </AppShell>
  );
}
