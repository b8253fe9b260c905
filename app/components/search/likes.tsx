import { MessageButton } from "~/components/chat/message-button";
import { TimeAgo } from "~/components/time-ago";
import { MemberRow } from "~/components/profile/member";
import { displayName } from "~/lib/members";
import type { LikedMember, LikeListName } from "~/state/likes";
import { LikeButton } from "./like-button";

/**
 * One member of a likes list: their row, when it happened, and what I can do: like back (they
 * liked me), take my like back (I liked them), or message (a match). The list it is in moves it
 * (a like back makes a match), and the page celebrates the match (MatchMoment).
 */
export function LikedMemberItem({
  member,
  list,
  onLiked,
  onUnliked,
}: {
  member: LikedMember;
  list: LikeListName;
  onLiked(member: LikedMember, isMatch: boolean): void;
  onUnliked(member: LikedMember): void;
}) {
  const name = displayName(member);
  const when = list === "matches" ? member.matched_at : member.liked_at;
  const meta = when ? (
    <TimeAgo
      iso={when}
      prefix={`${list === "matches" ? "Matched" : list === "received" ? "Liked you" : "Liked"} `}
    />
  ) : undefined;
  return (
    <li className="liked-item">
      <MemberRow member={member} meta={meta} />
      <div className="liked-actions">
        {list === "matches" ? <MessageButton userId={member.id} name={name} /> : null}
        <LikeButton
          memberId={member.id}
          name={name}
          liked={list !== "received"}
          likesMe={list === "received"}
          size="sm"
          onChange={(liked, isMatch) => (liked ? onLiked(member, isMatch) : onUnliked(member))}
        />
      </div>
    </li>
  );
}
