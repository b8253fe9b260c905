import { photoAt, type PhotoUrls } from "~/lib/photos";
import { HIGH_FETCH_PRIORITY } from "~/lib/fetch-priority";
import { Link } from "@remix-run/react";
import { TimeAgo } from "~/components/time-ago";
import { useState, type ReactNode } from "react";
import { displayName, locationLabel, type MemberCardView } from "~/lib/members";
import type { ProfilePhoto } from "~/schemas/profile";
import { useIsOnline } from "~/state/presence";
import { OnlineDot } from "../online-dot";
import { VerifiedBadge } from "../verification/badge";
import { useBrowserLocale } from "~/lib/use-browser-locale";
import { formatDistance } from "~/lib/distance";

/** A round photo or, without one, the member's initial on the brand gradient. */
export function Avatar({
  name,
  urls,
  size = 48,
}: {
  name: string;
  /** The photo's signed addresses (a card's `photo_urls`), or null for the initial. */
  urls: PhotoUrls | null;
  size?: number;
}) {
  return urls ? (
    <img
      className="member-avatar"
      src={photoAt(urls, size * 2 <= 160 ? 160 : 400)}
      alt=""
      width={size}
      height={size}
      loading="lazy"
    />
  ) : (
    <span
      className="member-avatar member-avatar-empty"
      style={{ width: size, height: size, fontSize: size * 0.42 }}
      aria-hidden="true"
    >
      {name.slice(0, 1).toUpperCase()}
    </span>
  );
}

/** "Online now" or when last seen; live from the presence room when `memberId` is given. */
export function OnlineBadge({
  memberId,
  online: rendered,
  lastSeenAt,
}: {
  memberId?: string;
  online: boolean;
  lastSeenAt: string | null;
}) {
  const online = useIsOnline(memberId ?? null, rendered);
  if (online) {
    return (
      <span className="presence presence-online">
        <span className="presence-dot" aria-hidden="true" /> Online now
      </span>
    );
  }
  return (
    <span className="presence">
      <span className="presence-dot" aria-hidden="true" />
      {lastSeenAt ? <TimeAgo iso={lastSeenAt} prefix="Active " /> : "Offline"}
    </span>
  );
}

/** One row of a member list (viewers, likes…): photo, name, age, place, and a time. */
export function MemberRow({ member, meta }: { member: MemberCardView; meta?: ReactNode }) {
  const name = displayName(member);
  const place = locationLabel(member.location);
  return (
    <Link to={`/members/${encodeURIComponent(member.username)}`} className="member-row">
      <span className="member-row-photo">
        <Avatar name={name} urls={member.photo_urls} size={52} />
        <OnlineDot memberId={member.id} online={member.online} />
      </span>
      <span className="member-row-body">
        <strong>
          {name}, {member.age} <VerifiedBadge verified={member.verified} />
        </strong>
        <span className="muted small">{place ?? `@${member.username}`}</span>
      </span>
      {meta ? <span className="member-row-meta muted small">{meta}</span> : null}
    </Link>
  );
}

/**
 * A main photo with thumbnails to switch between the member's photos; `photoAction`, a control on
 * the photo shown (the like with a comment).
 */
export function PhotoGallery({
  photos,
  name,
  photoAction,
}: {
  photos: ProfilePhoto[];
  name: string;
  photoAction?: (photo: ProfilePhoto, index: number) => ReactNode;
}) {
  const [index, setIndex] = useState(0);
  const current = photos[Math.min(index, photos.length - 1)];
  if (!current) {
    return (
      <div className="gallery gallery-empty" aria-label={`${name} has no photos yet`}>
        <span className="gallery-initial" aria-hidden="true">
          {name.slice(0, 1).toUpperCase()}
        </span>
        <p className="muted">No photos yet</p>
      </div>
    );
  }
  return (
    <div className="gallery">
      <div className="gallery-main">
        <img
          src={photoAt(current.urls, 720)}
          alt={`${name}, photo ${index + 1} of ${photos.length}`}
          {...HIGH_FETCH_PRIORITY}
        />
        {photoAction ? (
          <div className="gallery-action" key={current.id}>
            {photoAction(current, Math.min(index, photos.length - 1))}
          </div>
        ) : null}
        {photos.length > 1 ? (
          <>
            <button
              type="button"
              className="gallery-nav gallery-prev"
              aria-label="Previous photo"
              onClick={() => setIndex((i) => (i - 1 + photos.length) % photos.length)}
            >
              ‹
            </button>
            <button
              type="button"
              className="gallery-nav gallery-next"
              aria-label="Next photo"
              onClick={() => setIndex((i) => (i + 1) % photos.length)}
            >
              ›
            </button>
          </>
        ) : null}
      </div>
      {photos.length > 1 ? (
        <ul className="gallery-thumbs" aria-label="Photos">
          {photos.map((p, i) => (
            <li key={p.id}>
              <button
                type="button"
                className="gallery-thumb"
                aria-label={`Show photo ${i + 1}`}
                aria-current={i === index ? true : undefined}
                onClick={() => setIndex(i)}
              >
                <img src={photoAt(p.urls, 160)} alt="" loading="lazy" />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Chips({ items, tone }: { items: string[]; tone?: "brand" }) {
  if (items.length === 0) return <p className="muted">Nothing added yet.</p>;
  return (
    <ul className="chips">
      {items.map((item) => (
        <li key={item} className={tone === "brand" ? "chip chip-brand" : "chip"}>
          {item}
        </li>
      ))}
    </ul>
  );
}

/**
 * Where a member lives (and how far that is from the viewer's place, in miles where the browser's
 * locale uses them; "Travelling" when they are found there through travel), their gender and the
 * ages they would like to meet.
 */
export function ProfileFacts({
  place,
  gender,
  ageRange,
  distanceKm = null,
  travelling = false,
}: {
  place: string | null;
  gender: string | null;
  ageRange: { min: number; max: number };
  distanceKm?: number | null;
  travelling?: boolean;
}) {
  const locale = useBrowserLocale();
  return (
    <ul className="facts">
      {place || distanceKm !== null ? (
        <li>
          <FactIcon kind="place" />
          <span>
            {travelling ? <span className="pill pill-travel">Travelling</span> : null}
            {[place, distanceKm !== null ? formatDistance(distanceKm, locale) : null]
              .filter(Boolean)
              .join(" · ")}
          </span>
        </li>
      ) : null}
      {gender ? (
        <li>
          <FactIcon kind="gender" />
          <span>{gender}</span>
        </li>
      ) : null}
      <li>
        <FactIcon kind="ages" />
        <span>{`Looking for ages ${ageRange.min}–${ageRange.max}`}</span>
      </li>
    </ul>
  );
}

/** Small line icons for the facts of a profile (emoji fonts are missing on many desktops). */
function FactIcon({ kind }: { kind: "place" | "gender" | "ages" }) {
  const paths = {
    place: (
      <>
        <path d="M12 21s-7-6.2-7-11.5a7 7 0 0 1 14 0C19 14.8 12 21 12 21z" />
        <circle cx="12" cy="9.5" r="2.5" />
      </>
    ),
    gender: (
      <>
        <circle cx="12" cy="8" r="4" />
        <path d="M4 21c1.5-4 4.5-6 8-6s6.5 2 8 6" />
      </>
    ),
    ages: (
      <path d="M12 20s-7.5-4.6-7.5-10A4.5 4.5 0 0 1 12 7a4.5 4.5 0 0 1 7.5 3c0 5.4-7.5 10-7.5 10z" />
    ),
  };
  return (
    <svg
      className="fact-icon"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      {paths[kind]}
    </svg>
  );
}
