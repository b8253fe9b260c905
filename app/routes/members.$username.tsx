import type {
  HeadersFunction,
  LinksFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useState } from "react";
import { MessageButton } from "~/components/chat/message-button";
import { MatchMoment, type TheirWords } from "~/components/search/like-button";
import { MemberLikeAction } from "~/components/search/member-like";
import { LikeWithComment } from "~/components/profile/like-comment";
import { AppLink } from "~/components/link";
import { Chips, ProfileFacts, OnlineBadge, PhotoGallery } from "~/components/profile/member";
import { VerifiedBadge } from "~/components/verification/badge";
import { PromptAnswers } from "~/components/profile/prompt-answers";
import { MemberSafetyActions } from "~/components/safety/menus";
import { AppShell } from "~/components/shell";
import { displayName, locationLabel } from "~/lib/members";
import { photoAt } from "~/lib/photos";
import { usePresenceWatch } from "~/realtime/use-presence-watch";
import { titleMeta } from "~/lib/title";
import { HttpError } from "~/server/errors.server";
import { requireVerifiedUser } from "~/server/guards.server";
import { likeStatus } from "~/server/likes.server";
import { isInAppVisit, visitMember } from "~/server/profile-views.server";
import menuStyles from "~/styles/menu.css?url";
import profileStyles from "~/styles/profile.css?url";

export const meta: MetaFunction<typeof loader> = ({ data }) =>
  titleMeta(data ? displayName(data.member) : "Member");

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: profileStyles },
  { rel: "stylesheet", href: menuStyles },
];

/** Personal pages: never stored by a shared cache or kept for the back button. */
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** Another member's public profile; a visit from inside the app records a view (one a day). */
export async function loader({ context, request, params }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  try {
    const member = await visitMember(context.env, user.id, params.username ?? "", {
      recordView: isInAppVisit(request, false),
    });
    const isSelf = member.id === user.id;
    const likes = isSelf ? null : await likeStatus(context.env, user.id, member.id);
    return json({ member, isSelf, likes }, { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) {
      throw new Response("Not found", { status: 404 });
    }
    throw error;
  }
}

export default function MemberPage() {
  const { member, isSelf, likes } = useLoaderData<typeof loader>();
  const name = displayName(member);
  const place = locationLabel(member.location);
  usePresenceWatch([member.id]);
  // Whether I like them (the Like button and every heart), the hearts that landed, and a match
  // made here with what they wrote, if anything.
  const [liked, setLiked] = useState(likes?.liked ?? false);
  const [landed, setLanded] = useState<ReadonlySet<string>>(() => new Set());
  const [match, setMatch] = useState<{ comment: TheirWords | null } | null>(null);
  const likedHere = (key: string) => (isMatch: boolean, comment: TheirWords | null) => {
    setLiked(true);
    setLanded((s) => new Set(s).add(key));
    if (isMatch && !(liked && likes?.liked_me)) setMatch({ comment });
  };
  const canLike = likes !== null && !isSelf;
  return (
    <AppShell>
      <div className="container">
        {isSelf ? (
          <div className="banner">
            <p className="muted">This is how other members see your profile.</p>
            <AppLink to="/settings/profile" className="btn btn-secondary btn-sm">
              Edit profile
            </AppLink>
          </div>
        ) : null}
        {match ? (
          <MatchMoment
            name={name}
            memberId={member.id}
            photoUrls={member.photo_urls}
            comment={match.comment}
          />
        ) : null}
        <div className="profile-layout">
          <div className="profile-media">
            <PhotoGallery
              photos={member.photos}
              name={name}
              photoAction={
                canLike
                  ? (photo, i) => (
                      <LikeWithComment
                        memberId={member.id}
                        name={name}
                        target={{ photo_id: photo.id }}
                        kind="photo"
                        what={`photo ${i + 1}`}
                        sent={landed.has(`photo:${photo.id}`)}
                        preview={
                          <img
                            className="like-sheet-photo"
                            src={photoAt(photo.urls, 400)}
                            alt={`${name}, photo ${i + 1}`}
                          />
                        }
                        onLiked={likedHere(`photo:${photo.id}`)}
                      />
                    )
                  : undefined
              }
            />
          </div>
          <div className="profile-info">
            <section className="card profile-summary" aria-labelledby="member-name">
              <div className="profile-summary-head">
                <h1 id="member-name" className="profile-name">
                  {name}, {member.age} <VerifiedBadge verified={member.verified} />
                </h1>
                <OnlineBadge
                  memberId={member.id}
                  online={member.online}
                  lastSeenAt={member.last_seen_at}
                />
                {isSelf ? null : <MemberSafetyActions member={{ id: member.id, name }} />}
              </div>
              <p className="muted">@{member.username}</p>
              {likes || !isSelf ? (
                <div className="profile-actions">
                  {likes ? (
                    <MemberLikeAction
                      memberId={member.id}
                      name={name}
                      liked={liked}
                      likedMe={likes.liked_me}
                      onChange={(nowLiked, isMatch, comment) => {
                        setLiked(nowLiked);
                        // Taking the like back takes back what the hearts said.
                        if (!nowLiked) setLanded(new Set());
                        setMatch(nowLiked && isMatch ? { comment } : null);
                      }}
                    />
                  ) : null}
                  {isSelf ? null : <MessageButton userId={member.id} name={name} />}
                </div>
              ) : null}
              <ProfileFacts
                place={place}
                gender={member.gender}
                ageRange={member.ageRange}
                distanceKm={member.distance_km}
                travelling={member.travelling}
              />
            </section>
            <section className="card">
              <h2 className="h3">About {name}</h2>
              {member.bio ? (
                <p className="bio">{member.bio}</p>
              ) : (
                <p className="muted">{name} has not written a bio yet.</p>
              )}
              {member.prompts.length > 0 ? (
                <>
                  <h2 className="h3">In {name}&apos;s words</h2>
                  <PromptAnswers
                    prompts={member.prompts}
                    action={
                      canLike
                        ? (p) => (
                            <LikeWithComment
                              memberId={member.id}
                              name={name}
                              target={{ prompt_id: p.prompt_id }}
                              kind="answer"
                              what={`answer to “${p.text}”`}
                              sent={landed.has(`prompt:${p.prompt_id}`)}
                              preview={
                                <div className="prompt-answer">
                                  <p className="prompt-answer-q">{p.text}</p>
                                  <p className="prompt-answer-a">{p.answer}</p>
                                </div>
                              }
                              onLiked={likedHere(`prompt:${p.prompt_id}`)}
                            />
                          )
                        : undefined
                    }
                  />
                </>
              ) : null}
              <h2 className="h3">Interests</h2>
              <Chips items={member.interests} tone="brand" />
              <h2 className="h3">Looking for</h2>
              <Chips items={member.preferences} />
            </section>
          </div>
        </div>
      </div>
    </AppShell>
  );
}
