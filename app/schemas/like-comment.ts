/**
 * A like's comment and what it lands on (docs/api.md "Distance, travel and prompts"): the limits,
 * messages and shapes, without the schema (app/schemas/likes.ts), for the pages that show likes or
 * send one and never load zod for it.
 */
import type { PhotoUrls } from "~/lib/photos";
import type { SafetyNote } from "./message-safety";

export const LIKE_COMMENT_MAX = 300;

export const LIKE_MESSAGES = {
  member: "Please choose a member to like.",
  comment: "Please write your comment as text.",
  commentMax: "Your comment must be at most 300 characters.",
  target: "Please choose one of this member's photos or prompts.",
  photo: "This photo is not one of this member's.",
  prompt: "This member has not answered this prompt.",
} as const;

/** What a like lands on, as it is sent: one of the liked member's photos or answered prompts. */
export type LikeTargetInput = { photo_id: string } | { prompt_id: string };

/**
 * What a like landed on, as GET /my/likes shows it: the photo (and where it is served) or the
 * prompt with its text and the answer; null when it landed on neither or that photo or answer has
 * since gone.
 */
export type LikeTarget =
  | { photo_id: string; photo_url: string; photo_urls: PhotoUrls }
  | { prompt_id: string; text: string; answer: string };

/**
 * The comment and target a like carries, on a card of GET /my/likes; on a like received, what
 * message safety warns its reader of in the comment (a message's `safety`), or null.
 */
export interface LikeNote {
  comment: string | null;
  target: LikeTarget | null;
  comment_safety?: SafetyNote | null;
}
