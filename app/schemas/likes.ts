import { z } from "./zod";
import { LIKE_COMMENT_MAX, LIKE_MESSAGES } from "./like-comment";
import { safeText } from "./text";

export * from "./like-comment";

const id = (message: string) =>
  z.string({ error: message }).trim().min(1, message).max(64, message);

/**
 * POST /my/likes: whom, and optionally a comment (trimmed, up to 300 characters; empty is none)
 * and what the like lands on (`{photo_id}` or `{prompt_id}`; the server checks it is that
 * member's).
 */
export const likeSchema = z.object({
  user_id: id(LIKE_MESSAGES.member),
  comment: safeText(
    z
      .string({ error: LIKE_MESSAGES.comment })
      .trim()
      .max(LIKE_COMMENT_MAX, LIKE_MESSAGES.commentMax),
    { multiline: true },
  )
    .nullable()
    .optional()
    .transform((v) => (v ? v : null)),
  target: z
    .union(
      [
        z.strictObject({ photo_id: id(LIKE_MESSAGES.photo) }),
        z.strictObject({ prompt_id: id(LIKE_MESSAGES.prompt) }),
      ],
      { error: LIKE_MESSAGES.target },
    )
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  /** The sender saw the comment's "Are you sure?" (409, message safety) and sends it anyway. */
  confirm: z.boolean().optional(),
});

export type LikeInput = z.output<typeof likeSchema>;
