import { LikeButton, type TheirWords } from "./like-button";

/**
 * Like on another member's profile: says when they liked me already. The page holds whether I like
 * them (the hearts on their photos and answers like them too) and shows the match moment.
 */
export function MemberLikeAction({
  memberId,
  name,
  liked,
  likedMe,
  onChange,
}: {
  memberId: string;
  name: string;
  liked: boolean;
  likedMe: boolean;
  onChange(liked: boolean, isMatch: boolean, theirs: TheirWords | null): void;
}) {
  const isMatch = liked && likedMe;
  return (
    <div className="member-like">
      <LikeButton
        memberId={memberId}
        name={name}
        liked={liked}
        likesMe={likedMe && !liked}
        onChange={(nowLiked, match, theirs) => onChange(nowLiked, match, theirs ?? null)}
      />
      {isMatch ? (
        <p className="muted small">You like each other.</p>
      ) : likedMe ? (
        <p className="muted small">{name} likes you.</p>
      ) : null}
    </div>
  );
}
