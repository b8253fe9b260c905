import { useEffect, useId, useState } from "react";
import { MessageButton } from "~/components/chat/message-button";
import { Avatar } from "~/components/profile/member";
import { Modal } from "~/components/modal";
import { useRootData } from "~/lib/root-data";
import { api, ApiError } from "~/lib/http";

export const LIKE_ERRORS = {
  like: "Failed to like this member",
  unlike: "Failed to unlike this member",
} as const;

interface LikeButtonProps {
  memberId: string;
  name: string;
  liked: boolean;
  /** Called after the server agreed; `isMatch` when the like made a match. */
  onChange(liked: boolean, isMatch: boolean): void;
  size?: "sm";
  /** "Like back" instead of "Like" (the member liked me first). */
  likesMe?: boolean;
}

/**
 * Like / unlike another member (POST /my/likes, DELETE /my/likes/{id}). A like that makes a match
 * says so; the daily limit's message is shown as the server gives it.
 */
export function LikeButton({ memberId, name, liked, onChange, size, likesMe }: LikeButtonProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const describedBy = useId();

  const toggle = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      if (liked) {
        await api(`/my/likes/${encodeURIComponent(memberId)}`, { method: "DELETE" });
        onChange(false, false);
      } else {
        const res = await api<{ liked: boolean; is_match: boolean }>("/my/likes", {
          method: "POST",
          body: { user_id: memberId },
        });
        onChange(true, res.is_match);
      }
    } catch (e) {
      const fallback = liked ? LIKE_ERRORS.unlike : LIKE_ERRORS.like;
      setError(e instanceof ApiError && e.message ? e.message : fallback);
    } finally {
      setBusy(false);
    }
  };

  const label = liked ? "Liked" : likesMe ? "Like back" : "Like";
  // The name is the visible label, nothing more (WCAG 2.5.3); whom it likes is its description.
  return (
    <div className="like-control">
      <button
        type="button"
        className={`btn ${liked ? "btn-secondary" : "btn-primary"}${size === "sm" ? " btn-sm" : ""}`}
        aria-pressed={liked}
        aria-describedby={describedBy}
        title={liked ? `You like ${name}. Press to take it back.` : undefined}
        aria-disabled={busy || undefined}
        onClick={toggle}
      >
        <span aria-hidden="true">{liked ? "♥" : "♡"}</span> {label}
      </button>
      <span id={describedBy} hidden>
        {liked ? `You like ${name}. Press to take it back.` : `${label} ${name}`}
      </span>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The match moment: a dialog with both photos, "Send a message" and "Keep browsing" (focus moves
 * into it and returns to the Like button when it closes), then a line that stays on the page.
 */
export function MatchNote({
  name,
  memberId,
  photoUrl,
}: {
  name: string;
  memberId: string;
  photoUrl: string | null;
}) {
  const [open, setOpen] = useState(true);
  const [myPhoto, setMyPhoto] = useState<string | null>(null);
  const myName = useRootData()?.user?.name ?? "You";
  useEffect(() => {
    api<{ profile: { photos: { url: string }[] } }>("/my/profile")
      .then((res) => setMyPhoto(res.profile.photos[0]?.url ?? null))
      .catch(() => {});
  }, []);
  return (
    <>
      <p className="alert alert-success match-note" role="status">
        It&apos;s a match! You and {name} like each other.
      </p>
      <Modal
        open={open}
        onClose={() => setOpen(false)}
        title="It's a match!"
        className="match-modal"
      >
        <div className="match-photos" aria-hidden="true">
          <Avatar name={myName} url={myPhoto} size={112} />
          <span className="match-heart">♥</span>
          <Avatar name={name} url={photoUrl} size={112} />
        </div>
        <p className="match-text">
          You and {name} like each other. Say hello while it&apos;s fresh.
        </p>
        <div className="match-actions">
          <MessageButton userId={memberId} name={name} label="Send a message" />
          <button type="button" className="btn btn-secondary" onClick={() => setOpen(false)}>
            Keep browsing
          </button>
        </div>
      </Modal>
    </>
  );
}
