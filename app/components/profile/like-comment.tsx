import { useEffect, useId, useState, type FormEvent, type ReactNode } from "react";
import { Modal } from "~/components/modal";
import {
  LIKE_ERRORS,
  theirWords,
  type LikeAnswer,
  type TheirWords,
} from "~/components/search/like-button";
import { api, ApiError, joinFieldErrors } from "~/lib/http";
import { LIKE_COMMENT_MAX, type LikeTargetInput } from "~/schemas/like-comment";
import {
  likeConfirmed,
  likeFailed,
  likePressed,
  likeSynced,
  likeToggleInitial,
} from "~/state/like-toggle";

/**
 * A heart on one of another member's photos or answers: it opens a small sheet with an optional
 * comment, and sends a like that lands there (POST /my/likes with `comment` and `target`). Like the
 * Like button (app/state/like-toggle.ts), it is optimistic: the heart fills and the sheet closes at
 * once, the page hears of it once the server agreed, and a refusal opens the sheet again with the
 * server's message and the comment as it was.
 */
export function LikeWithComment({
  memberId,
  name,
  target,
  kind,
  what,
  preview,
  sent: sentBefore = false,
  onLiked,
}: {
  memberId: string;
  /** The member's name, for the labels. */
  name: string;
  target: LikeTargetInput;
  kind: "photo" | "answer";
  /** What the heart likes, in words: "photo 2", "answer to “A perfect Saturday…”". */
  what: string;
  /** What the sheet shows of it (the photo, the prompt and answer). */
  preview: ReactNode;
  /** A like already landed here (the page remembers it while the heart is out of view). */
  sent?: boolean;
  onLiked(isMatch: boolean, theirs: TheirWords | null): void;
}) {
  const [state, setState] = useState(() => likeToggleInitial(sentBefore));
  const [open, setOpen] = useState(false);
  const [comment, setComment] = useState("");
  // The server asked "Are you sure?" of this comment (409, message safety): the next send confirms.
  const [confirming, setConfirming] = useState(false);
  const [popped, setPopped] = useState(false);
  const fieldId = useId();
  const sent = state.liked;

  // The page's own state changed (the like was taken back): follow it unless a send is in flight.
  useEffect(() => {
    setState((s) => likeSynced(s, sentBefore));
  }, [sentBefore]);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (state.before !== null) return;
    setState(likePressed);
    setPopped(true);
    setOpen(false);
    try {
      const res = await api<LikeAnswer>("/my/likes", {
        method: "POST",
        body: {
          user_id: memberId,
          comment: comment.trim() || null,
          target,
          ...(confirming ? { confirm: true } : {}),
        },
      });
      setConfirming(false);
      setState(likeConfirmed);
      onLiked(res.is_match, theirWords(res));
    } catch (e) {
      const message =
        e instanceof ApiError
          ? joinFieldErrors(e.errors) || e.message || LIKE_ERRORS.like
          : LIKE_ERRORS.like;
      setConfirming(e instanceof ApiError && e.status === 409);
      setState((s) => likeFailed(s, message));
      setPopped(false);
      setOpen(true);
    }
  };

  const label = sent ? `You liked ${name}'s ${what}` : `Like ${name}'s ${what}`;
  return (
    <>
      <button
        type="button"
        className="like-target"
        aria-label={label}
        aria-haspopup="dialog"
        aria-pressed={sent}
        aria-busy={state.before !== null || undefined}
        data-popped={popped && sent ? true : undefined}
        onClick={() => setOpen(true)}
      >
        <span aria-hidden="true" className="like-heart">
          {sent ? "♥" : "♡"}
        </span>
      </button>
      <Modal
        open={open}
        onClose={() => setOpen(false)}
        title={`Like ${name}'s ${kind}`}
        className="like-sheet"
      >
        <form className="form" noValidate onSubmit={submit}>
          {/* Only while open: a closed sheet repeats nothing of the page. */}
          <div className="like-sheet-preview">{open ? preview : null}</div>
          <div className="field">
            <label htmlFor={fieldId}>Add a comment (optional)</label>
            <textarea
              id={fieldId}
              name="comment"
              className="input textarea"
              rows={3}
              maxLength={LIKE_COMMENT_MAX}
              placeholder={`Say something to ${name}`}
              value={comment}
              aria-invalid={state.error ? true : undefined}
              aria-describedby={`${fieldId}-count`}
              onChange={(e) => {
                setComment(e.target.value);
                setConfirming(false);
              }}
            />
            <div className="field-foot">
              {state.error ? (
                <p className="field-error" role="alert">
                  {state.error}
                </p>
              ) : (
                <span />
              )}
              <span id={`${fieldId}-count`} className="field-hint">
                {comment.length} / {LIKE_COMMENT_MAX}
              </span>
            </div>
          </div>
          <div className="modal-actions">
            <button type="button" className="btn btn-ghost" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="submit" className="btn btn-primary" disabled={state.before !== null}>
              <span aria-hidden="true">♥</span>{" "}
              {confirming ? "Send anyway" : comment.trim() ? "Send like" : "Like"}
            </button>
          </div>
        </form>
      </Modal>
    </>
  );
}
