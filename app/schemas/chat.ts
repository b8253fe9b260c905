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

// ---------------------------------------------------------------------------------------------
// Photos and voice notes (docs/api.md "Chat: reactions, delivery, photos, voice, calls")

/** A photo in chat follows the profile photos' types and size (app/schemas/photos.ts). */
export const CHAT_PHOTO_MAX_BYTES = 4 * 1024 * 1024;
/** A voice note: at most a minute, and 1 MB. */
export const VOICE_MAX_MS = 60_000;
export const VOICE_MAX_BYTES = 1024 * 1024;
/**
 * What a recording may run past VOICE_MAX_MS by (the recorder stops on a timer; its last
 * frame may end a little after it).
 */
export const VOICE_SLACK_MS = 500;
/** The recorder's MIME types, best first (Opus in WebM or Ogg; AAC in MP4 on Safari). */
export const VOICE_RECORDING_TYPES = [
  "audio/webm;codecs=opus",
  "audio/ogg;codecs=opus",
  "audio/mp4;codecs=mp4a.40.2",
  "audio/mp4",
] as const;

export const ATTACHMENT_REQUIRED = "Please choose a photo or record a voice note.";
export const ATTACHMENT_TYPE =
  "Only JPEG, PNG and WebP photos, or voice notes (Opus in WebM or Ogg, AAC in MP4), can be sent.";
export const CHAT_PHOTO_TOO_LARGE = "The photo must be less than 4MB.";
export const VOICE_TOO_LONG = "A voice note may be at most 60 seconds long.";
export const VOICE_TOO_LARGE = "A voice note must be less than 1MB.";
export const VOICE_UNREADABLE = "This voice note could not be read. Please record it again.";
export const ATTACHMENTS_NEED_MATCH = "You can send photos and voice notes once you have matched.";

/** The text a photo or voice note carries in lists, notifications and exports. */
export const ATTACHMENT_TEXT = { photo: "📷 Photo", voice: "🎤 Voice note" } as const;

/**
 * POST /chat/conversations/{id}/attachments, besides its `file`: the client id (idempotency, as
 * for messages) and whether a photo is view-once (a form's "on"/"true"/"1").
 */
export const attachmentFormSchema = z.object({
  client_id: clientId,
  view_once: z
    .enum(["on", "true", "1", "false", "0", ""], { error: "View once must be true or false." })
    .optional()
    .transform((v) => v === "on" || v === "true" || v === "1"),
});
export type AttachmentFormInput = z.infer<typeof attachmentFormSchema>;
