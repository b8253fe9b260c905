import { useState } from "react";
import { LikeButton, MatchMoment } from "./like-button";

/**
 * Like on another member's profile: says when they liked me already, and "It's a match!" when my
 * like makes one (the match moment).
 */
export function MemberLikeAction({
  memberId,
  name,
  photoUrl,
  liked: initiallyLiked,
  likedMe,
}: {
  memberId: string;
  name: string;
  photoUrl: string | null;
  liked: boolean;
  likedMe: boolean;
}) {
  const [liked, setLiked] = useState(initiallyLiked);
  const [matchedNow, setMatchedNow] = useState(false);
  const isMatch = liked && likedMe;
  return (
    <div className="member-like">
      <LikeButton
        memberId={memberId}
        name={name}
        liked={liked}
        likesMe={likedMe && !liked}
        onChange={(nowLiked, match) => {
          setLiked(nowLiked);
          setMatchedNow(nowLiked && match);
        }}
      />
      {matchedNow ? <MatchMoment name={name} memberId={memberId} photoUrl={photoUrl} /> : null}
      {isMatch ? (
        <p className="muted small">You like each other.</p>
      ) : likedMe ? (
        <p className="muted small">{name} likes you.</p>
      ) : null}
    </div>
  );
}
