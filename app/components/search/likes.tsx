import { MessageButton } from "~/components/chat/message-button";
import { TimeAgo } from "~/components/time-ago";
import { SafetyWarning } from "~/components/safety/warning";
import { MemberRow } from "~/components/profile/member";
import { displayName } from "~/lib/members";
import { photoAt } from "~/lib/photos";
import type { LikeTarget } from "~/schemas/like-comment";
import type { LikedMember, LikeListName } from "~/state/likes";
import { LikeButton, type TheirWords } from "./like-button";

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
  onLiked(member: LikedMember, isMatch: boolean, theirs: TheirWords | null): void;
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
      {list !== "matches" && (member.comment || member.target) ? (
        <LikeNoteView
          comment={member.comment ?? null}
          target={member.target ?? null}
          mine={list === "sent"}
          name={name}
        />
      ) : null}
      {list === "received" && member.comment && member.comment_safety ? (
        <SafetyWarning
          senderId={member.id}
          comment={member.comment}
          safety={member.comment_safety}
        />
      ) : null}
      <div className="liked-actions">
        {list === "matches" ? <MessageButton userId={member.id} name={name} /> : null}
        <LikeButton
          memberId={member.id}
          name={name}
          liked={list !== "received"}
          likesMe={list === "received"}
          size="sm"
          onChange={(liked, isMatch, theirs) =>
            liked ? onLiked(member, isMatch, theirs ?? null) : onUnliked(member)
          }
        />
      </div>
    </li>
  );
}

/**
 * What a like said and what it landed on: the photo (small) or the prompt and its answer, then
 * the comment. `mine`: a like I sent (on their photo or answer), else one I received (on mine).
 */
function LikeNoteView({
  comment,
  target,
  mine,
  name,
}: {
  comment: string | null;
  target: LikeTarget | null;
  mine: boolean;
  name: string;
}) {
  const whose = mine ? `${name}'s` : "your";
  return (
    <div className="like-note">
      {target && "photo_id" in target ? (
        <p className="like-note-target">
          <img src={photoAt(target.photo_urls, 160)} alt="" className="like-note-photo" />
          <span>{mine ? `You liked ${whose} photo` : "Liked your photo"}</span>
        </p>
      ) : target ? (
        <div className="like-note-target">
          <p className="like-note-prompt">
            <span className="like-note-label">
              {mine ? `You liked ${whose} answer to` : "Liked your answer to"}
            </span>{" "}
            <span className="prompt-answer-q">{target.text}</span>
          </p>
          <p className="like-note-answer">{target.answer}</p>
        </div>
      ) : null}
      {comment ? (
        <blockquote className="like-comment">
          <span className="sr-only">{mine ? "You wrote: " : `${name} wrote: `}</span>
          {comment}
        </blockquote>
      ) : null}
    </div>
  );
}
