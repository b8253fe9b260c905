/**
 * One Like button's state, optimistic: a press shows the new state at once, the server's answer
 * confirms it, and a failure puts the old state back with the server's message. The transitions
 * are pure; app/components/search/like-button.tsx runs them.
 */
export interface LikeToggleState {
  /** What the button shows. */
  liked: boolean;
  /** The state before the press still waiting for the server (null when none waits). */
  before: boolean | null;
  error: string | null;
}

export const likeToggleInitial = (liked: boolean): LikeToggleState => ({
  liked,
  before: null,
  error: null,
});

/** The member pressed: the new state shows now. A press while one is in flight changes nothing. */
export const likePressed = (s: LikeToggleState): LikeToggleState =>
  s.before !== null ? s : { liked: !s.liked, before: s.liked, error: null };

/** The server agreed. */
export const likeConfirmed = (s: LikeToggleState): LikeToggleState => ({ ...s, before: null });

/** The server refused or could not be reached: back to what it was, with its message. */
export const likeFailed = (s: LikeToggleState, message: string): LikeToggleState =>
  s.before === null ? s : { liked: s.before, before: null, error: message };

/** The page's own state changed (another list, a reload): follow it unless a press is in flight. */
export const likeSynced = (s: LikeToggleState, liked: boolean): LikeToggleState =>
  s.before !== null || s.liked === liked ? s : { ...s, liked };
