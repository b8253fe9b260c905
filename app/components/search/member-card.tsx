import { Link } from "@remix-run/react";
import { useState } from "react";
import { MessageButton } from "~/components/chat/message-button";
import { Chips, OnlineBadge } from "~/components/profile/member";
import { HIGH_FETCH_PRIORITY } from "~/lib/fetch-priority";
import { displayName, locationLabel } from "~/lib/members";
import { VerifiedBadge } from "../verification/badge";
import { photoAt } from "~/lib/photos";
import type { SearchCard } from "~/schemas/search";
import { formatDistance } from "~/lib/distance";
import { LikeButton, MatchMoment } from "./like-button";
import { useBrowserLocale } from "~/lib/use-browser-locale";

/** Cards on the first screen: their photos load at once (a lazy one would be the page's LCP). */
export const FIRST_ROW = 4;

/**
 * A member in a grid (search results, suggestions): a square photo, name and age, presence and
 * place on one line each, a few interests, and Like and Message at the bottom, in reach of a
 * thumb. Two fit side by side on a phone.
 */
export function MemberCard({
  member,
  onLikedChange,
  firstRow = false,
  first = false,
}: {
  member: SearchCard;
  onLikedChange(liked: boolean): void;
  /** On the first screen: the photo loads at once (a lazy one would be the page's LCP). */
  firstRow?: boolean;
  /** The grid's first card: its photo is the page's largest paint, fetched first. */
  first?: boolean;
}) {
  const [matched, setMatched] = useState(false);
  const name = displayName(member);
  const locale = useBrowserLocale();
  const place = [
    locationLabel(member.location),
    member.distance_km !== null ? formatDistance(member.distance_km, locale) : null,
  ]
    .filter(Boolean)
    .join(" · ");
  const prompt = member.prompts[0];
  const href = `/members/${encodeURIComponent(member.username)}`;
  return (
    <article className="member-card" aria-label={`${name}, ${member.age}`}>
      <Link to={href} className="member-card-photo" tabIndex={-1} aria-hidden="true">
        {member.photo_urls ? (
          <img
            src={photoAt(member.photo_urls, 400)}
            srcSet={`${photoAt(member.photo_urls, 400)} 400w, ${photoAt(member.photo_urls, 720)} 720w`}
            sizes="(max-width: 760px) 50vw, 240px"
            alt=""
            loading={firstRow || first ? "eager" : "lazy"}
            {...(first ? HIGH_FETCH_PRIORITY : null)}
          />
        ) : (
          <span className="member-card-initial">{name.slice(0, 1).toUpperCase()}</span>
        )}
      </Link>
      <div className="member-card-body">
        <h3 className="member-card-name">
          <Link to={href}>
            {name}, {member.age}
          </Link>{" "}
          <VerifiedBadge verified={member.verified} />
        </h3>
        <OnlineBadge memberId={member.id} online={member.online} lastSeenAt={member.last_seen_at} />
        {place || member.travelling ? (
          <p className="member-card-place muted small">
            {member.travelling ? <span className="pill pill-travel">Travelling</span> : null}
            {place}
          </p>
        ) : null}
        {prompt ? (
          <p className="member-card-prompt">
            <span className="member-card-prompt-q">{prompt.text}</span> {prompt.answer}
          </p>
        ) : member.bio ? (
          <p className="member-card-bio">{member.bio}</p>
        ) : null}
        {member.interests.length ? (
          <Chips items={member.interests.slice(0, 3)} tone="brand" />
        ) : null}
      </div>
      <div className="member-card-actions">
        <LikeButton
          memberId={member.id}
          name={name}
          liked={member.liked}
          size="sm"
          onChange={(liked, isMatch) => {
            setMatched(liked && isMatch);
            onLikedChange(liked);
          }}
        />
        <MessageButton userId={member.id} name={name} iconOnly />
      </div>
      {matched ? (
        <MatchMoment name={name} memberId={member.id} photoUrls={member.photo_urls} />
      ) : null}
    </article>
  );
}
