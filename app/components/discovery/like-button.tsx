import { useState } from "react";
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
  return (
    <div className="like-control">
      <button
        type="button"
        className={`btn ${liked ? "btn-secondary" : "btn-primary"}${size === "sm" ? " btn-sm" : ""}`}
        aria-pressed={liked}
        aria-label={liked ? `Unlike ${name}` : `${likesMe ? "Like back" : "Like"} ${name}`}
        title={liked ? `You like ${name}. Press to take it back.` : undefined}
        disabled={busy}
        onClick={toggle}
      >
        <span aria-hidden="true">{liked ? "♥" : "♡"}</span> {label}
      </button>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** "It's a match!": shown where a like made a match. */
export function MatchNote({ name }: { name: string }) {
  return (
    <p className="alert alert-success match-note" role="status">
      It&apos;s a match! You and {name} like each other.
    </p>
  );
}
