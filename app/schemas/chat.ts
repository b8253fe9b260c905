import { z } from "./zod";
import type { MemberCardView } from "~/lib/members";
import { safeText } from "./text";

/** The longest message a member may send, in characters. */
export const MESSAGE_MAX_LENGTH = 2000;
/** Messages in one page of GET …/messages. */
export const MESSAGES_PAGE_SIZE = 50;
/** Conversations in one page of the conversation lists. */
export const CONVERSATIONS_PAGE_SIZE = 50;
/**
 * How many messages a member may send to someone who has not replied yet; after that they wait
 * for a reply.
 */
export const UNANSWERED_MESSAGE_LIMIT = 3;

export const MESSAGE_REQUIRED = "The message field is required.";
export const MESSAGE_TOO_LONG = `The message may not be greater than ${MESSAGE_MAX_LENGTH} characters.`;
export const CLIENT_ID_INVALID = "The client id must be 1 to 64 letters, digits, - or _.";

const clientId = z
  .string({ error: CLIENT_ID_INVALID })
  .regex(/^[A-Za-z0-9_-]{1,64}$/, CLIENT_ID_INVALID)
  .optional();

const giftId = z
  .string({ error: "Please choose a gift." })
  .trim()
  .min(1, "Please choose a gift.")
  .max(64, "Please choose a gift.")
  .optional();

const text = safeText(
  z.string({ error: MESSAGE_REQUIRED }).trim().max(MESSAGE_MAX_LENGTH, MESSAGE_TOO_LONG),
  { multiline: true },
);

/** POST /chat/conversations/{id}/messages. A gift may come without text. */
export const sendMessageSchema = z
  .object({
    message: text.optional(),
    client_id: clientId,
    gift_id: giftId,
    /** Sends text the safety rules asked about ("Are you sure?", a 409) anyway. */
    confirm: z.boolean().optional(),
  })
  .superRefine((v, ctx) => {
    if (!v.message && !v.gift_id) {
      ctx.addIssue({ code: "custom", path: ["message"], message: MESSAGE_REQUIRED });
    }
  });
export type SendMessageInput = z.infer<typeof sendMessageSchema>;

/** POST /chat/conversations: start (or find) the conversation with a member, optionally sending. */
export const startConversationSchema = z.object({
  user_id: z
    .string({ error: "Please choose a member to message." })
    .trim()
    .min(1, "Please choose a member to message.")
    .max(64, "Please choose a member to message."),
  message: text.optional(),
  client_id: clientId,
  gift_id: giftId,
});
export type StartConversationInput = z.infer<typeof startConversationSchema>;

const seqParam = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * GET …/messages: no parameter gives the newest page; `cursor` (from `meta.next_cursor`) the page
 * before it; `after` (a sequence number) the messages after it, oldest first, for catching up.
 */
export const messagesQuerySchema = z.object({
  cursor: seqParam.min(1).optional(),
  after: seqParam.optional(),
});

/** POST /admin/chat/migrate: a batch of conversations after the cursor (a conversation id). */
export const chatMigrationSchema = z.object({
  after: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

export const conversationsQuerySchema = z.object({
  cursor: z.string().max(200).optional(),
});

export interface Gift {
  id: string;
  name: string;
  icon: string;
  price_credits: number;
}

/**
 * The Conversation of docs/api.md "Chat": the other member (`user_id`, `user`) and the list entry's
 * summary.
 */
export interface ConversationView {
  id: string;
  last_message: string | null;
  last_message_time: string | null;
  unread_count: number;
  user_id: string;
  user: MemberCardView;
}

export interface PageMeta {
  has_more: boolean;
  next_cursor: string | null;
}

export const REACTION_INVALID = "Please choose one emoji.";

/**
 * One emoji: a single grapheme made of pictographs (with their joiners, skin tones and variation
 * selectors, and flags), nothing else.
 */
const ONE_EMOJI =
  /^(?:\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3|\p{Extended_Pictographic}\uFE0F?\p{Emoji_Modifier}?(?:\u200D\p{Extended_Pictographic}\uFE0F?\p{Emoji_Modifier}?)*)$/u;

/** PUT /chat/messages/{id}/reaction. */
export const reactionSchema = z.object({
  emoji: z
    .string({ error: REACTION_INVALID })
    .trim()
    .max(32, REACTION_INVALID)
    .regex(ONE_EMOJI, REACTION_INVALID),
});
export type ReactionInput = z.infer<typeof reactionSchema>;

/** The reactions the message list offers in one tap (any one emoji may be sent). */
export const QUICK_REACTIONS = ["❤️", "😂", "😮", "😢", "👍", "🔥"] as const;
