import { useEffect, useId, useState } from "react";
import { MessageButton } from "~/components/chat/message-button";
import { Avatar } from "~/components/profile/member";
import { Modal } from "~/components/modal";
import { PushOffer } from "~/components/push-controls";
import { SafetyWarning } from "~/components/safety/warning";
import type { SafetyNote } from "~/schemas/message-safety";
import { useRootData } from "~/lib/root-data";
import type { PhotoUrls } from "~/lib/photos";
import { useSetAtom } from "~/state/jotai";
import { matchCelebrated, notificationsStateAtom } from "~/state/notifications";
import { usePageStore } from "~/state/presence";
import { api, ApiError } from "~/lib/http";
import {
  likeConfirmed,
  likeFailed,
  likePressed,
  likeSynced,
  likeToggleInitial,
} from "~/state/like-toggle";

/** POST /my/likes's answer. */
export interface LikeAnswer {
  liked: boolean;
  is_match: boolean;
  /** A match: what the other member's like said, when it said something. */
  match_comment?: string;
  /** What its reader is warned of in it (message safety), when anything. */
  match_comment_safety?: SafetyNote;
}

/** What the other member's like said, as the match moment shows it: the words and their warning. */
export interface TheirWords {
  comment: string;
  safety: SafetyNote | null;
}

/** The other member's words from POST /my/likes's answer, when it made a match with some. */
export const theirWords = (answer: LikeAnswer): TheirWords | null =>
  answer.match_comment
    ? { comment: answer.match_comment, safety: answer.match_comment_safety ?? null }
    : null;

export const LIKE_ERRORS = {
  like: "Failed to like this member",
  unlike: "Failed to unlike this member",
} as const;

interface LikeButtonProps {
  memberId: string;
  name: string;
  liked: boolean;
  /**
   * Called after the server agreed; `isMatch` when the like made a match, and `theirs` what the
   * other member's like said, when it said something.
   */
  onChange(liked: boolean, isMatch: boolean, theirs?: TheirWords | null): void;
  size?: "sm";
  /** "Like back" instead of "Like" (the member liked me first). */
  likesMe?: boolean;
}

/**
 * Like / unlike another member (POST /my/likes, DELETE /my/likes/{id}), optimistically: the button
 * turns at once (app/state/like-toggle.ts), the page hears of it once the server agreed, and a
 * refusal turns it back with the server's message (the daily limit's, say). A like that makes a
 * match says so.
 */
export function LikeButton({ memberId, name, liked, onChange, size, likesMe }: LikeButtonProps) {
  const [state, setState] = useState(() => likeToggleInitial(liked));
  const [popped, setPopped] = useState(false);
  const describedBy = useId();

  useEffect(() => {
    setState((s) => likeSynced(s, liked));
  }, [liked]);

  const toggle = async () => {
    if (state.before !== null) return;
    const wasLiked = state.liked;
    setState(likePressed);
    setPopped(!wasLiked);
    try {
      if (wasLiked) {
        await api(`/my/likes/${encodeURIComponent(memberId)}`, { method: "DELETE" });
        setState(likeConfirmed);
        onChange(false, false);
      } else {
        const res = await api<LikeAnswer>("/my/likes", {
          method: "POST",
          body: { user_id: memberId },
        });
        setState(likeConfirmed);
        onChange(true, res.is_match, theirWords(res));
      }
    } catch (e) {
      const fallback = wasLiked ? LIKE_ERRORS.unlike : LIKE_ERRORS.like;
      setState((s) => likeFailed(s, e instanceof ApiError && e.message ? e.message : fallback));
      setPopped(false);
    }
  };

  const shown = state.liked;
  const label = shown ? "Liked" : likesMe ? "Like back" : "Like";
  // The name is the visible label, nothing more (WCAG 2.5.3); whom it likes is its description.
  return (
    <div className="like-control">
      <button
        type="button"
        className={`btn ${shown ? "btn-secondary" : "btn-primary"}${size === "sm" ? " btn-sm" : ""}`}
        aria-pressed={shown}
        aria-describedby={describedBy}
        title={shown ? `You like ${name}. Press to take it back.` : undefined}
        aria-busy={state.before !== null || undefined}
        data-popped={popped && shown ? true : undefined}
        onClick={toggle}
      >
        <span aria-hidden="true" className="like-heart">
          {shown ? "♥" : "♡"}
        </span>{" "}
        {label}
      </button>
      <span id={describedBy} hidden>
        {shown ? `You like ${name}. Press to take it back.` : `${label} ${name}`}
      </span>
      {state.error ? (
        <p className="field-error" role="alert">
          {state.error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The match moment, and the only one: a dialog with both photos that meet in the middle, what the
 * other member wrote with their like when they wrote something, "Send a message" (on to the
 * conversation) and "Keep browsing" (focus moves into it and returns to the Like button when it
 * closes). The match notification the member channel brings meanwhile gets no
 * toast on top (`matchCelebrated`). Motion only where the member has not asked for less.
 */
export function MatchMoment({
  name,
  memberId,
  photoUrls,
  comment,
}: {
  name: string;
  memberId: string;
  photoUrls: PhotoUrls | null;
  /** What the other member wrote with the like that led here. */
  comment?: TheirWords | null;
}) {
  const [open, setOpen] = useState(true);
  const [myPhoto, setMyPhoto] = useState<PhotoUrls | null>(null);
  const myName = useRootData()?.user?.name ?? "You";
  // The page's store: the search keeps a store of its own, the member channel feeds the page's.
  const setNotifications = useSetAtom(notificationsStateAtom, { store: usePageStore() });
  useEffect(() => {
    setNotifications((s) => matchCelebrated(s, memberId));
  }, [memberId, setNotifications]);
  useEffect(() => {
    api<{ profile: { photos: { urls: PhotoUrls }[] } }>("/my/profile")
      .then((res) => setMyPhoto(res.profile.photos[0]?.urls ?? null))
      .catch(() => {});
  }, []);
  return (
    <Modal open={open} onClose={() => setOpen(false)} title="It's a match!" className="match-modal">
      <div className="match-photos" aria-hidden="true">
        <span className="match-photo match-photo-mine">
          <Avatar name={myName} urls={myPhoto} size={112} />
        </span>
        <span className="match-heart">♥</span>
        <span className="match-photo match-photo-theirs">
          <Avatar name={name} urls={photoUrls} size={112} />
        </span>
      </div>
      <p className="match-text">You and {name} like each other. Say hello while it&apos;s fresh.</p>
      {comment ? (
        <figure className="match-comment">
          <blockquote>{comment.comment}</blockquote>
          <figcaption>{name} wrote with their like</figcaption>
        </figure>
      ) : null}
      {comment?.safety ? (
        <SafetyWarning senderId={memberId} comment={comment.comment} safety={comment.safety} />
      ) : null}
      <div className="match-actions">
        <MessageButton userId={memberId} name={name} label="Send a message" />
        <button type="button" className="btn btn-secondary" onClick={() => setOpen(false)}>
          Keep browsing
        </button>
      </div>
      <PushOffer name={name} />
    </Modal>
  );
}
