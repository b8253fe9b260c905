import type { ChatMessageView } from "~/realtime/chat";
import {
  attachmentFormSchema,
  ATTACHMENT_REQUIRED,
  ATTACHMENT_TEXT,
  ATTACHMENT_TYPE,
  CHAT_PHOTO_MAX_BYTES,
  CHAT_PHOTO_TOO_LARGE,
  VOICE_MAX_BYTES,
  VOICE_MAX_MS,
  VOICE_SLACK_MS,
  VOICE_TOO_LARGE,
  VOICE_TOO_LONG,
  VOICE_UNREADABLE,
  type AttachmentFormInput,
} from "~/schemas/chat";
import {
  CONTENT_TYPES,
  IMAGE_TOO_LARGE_MESSAGE,
  imageDimensions,
  isTooLarge,
  sniffImageType,
  SNIFF_BYTES,
} from "~/lib/image-type";
import { conversationOfMessage, conversationRoom } from "./chat-rooms.server";
import { conversationForAttachments, unwrap } from "./chat.server";
import { newId } from "./crypto.server";
import type { Env } from "./env.server";
import { readConfig } from "./env.server";
import { HttpError, notFound, ValidationError } from "./errors.server";
import { stripImageMetadata } from "./photo-metadata.server";
import type { StoredAttachment } from "./room-api.server";
import { parseInput, readBytesCapped } from "./validation.server";
import { inspectVoiceNote } from "./voice-notes.server";

/**
 * Photos and voice notes in chat (docs/api.md "Chat: reactions, delivery, photos, voice, calls").
 * An upload is checked from its bytes (a photo's type, size and pixels as for profile photos, and
 * stored without its metadata; a voice note's container, codec and duration), stored in R2 under
 * its conversation, and sent by the conversation's room as a message (idempotent by client id,
 * in the room's one order). The room alone says who may open it: the two members, while neither
 * has blocked the other, until it is deleted; a view-once photo once, by its recipient.
 */

/** The multipart framing a request may add to the largest file. */
const FRAMING_BYTES = 64 * 1024;

const CHAT_KEY_PREFIX = "chat";
const attachmentKey = (conversationId: string) => `${CHAT_KEY_PREFIX}/${conversationId}/${newId()}`;

/** The part of a stored attachment that its bytes decide. */
type Inspected = Omit<StoredAttachment, "key" | "view_once" | "opened_at"> & { bytes: Uint8Array };

export interface AttachmentUpload {
  bytes: Uint8Array;
  input: AttachmentFormInput;
}

/** Reads POST …/attachments: `file`, `client_id`, `view_once` (413 past the largest allowed). */
export async function readAttachmentUpload(request: Request): Promise<AttachmentUpload> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data") || !request.body) {
    throw new ValidationError({ file: [ATTACHMENT_REQUIRED] });
  }
  const body = await readBytesCapped(request, CHAT_PHOTO_MAX_BYTES + FRAMING_BYTES);
  if (!body) throw new HttpError(413, CHAT_PHOTO_TOO_LARGE, { file: [CHAT_PHOTO_TOO_LARGE] });
  let form: FormData;
  try {
    form = await new Response(body, { headers: { "Content-Type": type } }).formData();
  } catch {
    throw new ValidationError({ file: [ATTACHMENT_REQUIRED] });
  }
  const file = form.get("file");
  if (file === null || typeof file === "string" || file.size === 0) {
    throw new ValidationError({ file: [ATTACHMENT_REQUIRED] });
  }
  const field = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : undefined;
  };
  const input = parseInput(attachmentFormSchema, {
    client_id: field("client_id"),
    view_once: field("view_once"),
  });
  return { bytes: new Uint8Array(await file.arrayBuffer()), input };
}

const refuse = (status: number, message: string) =>
  new HttpError(status, message, { file: [message] });

/** What an upload is, from its bytes alone: a clean photo, a voice note, or a refusal. */
export function inspectAttachment(bytes: Uint8Array): Inspected {
  const imageType = sniffImageType(bytes.subarray(0, SNIFF_BYTES));
  if (imageType === "jpeg" || imageType === "png" || imageType === "webp") {
    if (bytes.byteLength >= CHAT_PHOTO_MAX_BYTES) throw refuse(422, CHAT_PHOTO_TOO_LARGE);
    const dimensions = imageDimensions(bytes, imageType);
    if (dimensions && isTooLarge(dimensions)) throw refuse(422, IMAGE_TOO_LARGE_MESSAGE);
    // Stored without metadata (GPS, camera, time): photo-metadata.server.ts.
    const clean = dimensions ? stripImageMetadata(bytes, imageType) : null;
    if (!dimensions || !clean) throw refuse(415, ATTACHMENT_TYPE);
    return {
      kind: "photo",
      bytes: clean,
      content_type: CONTENT_TYPES[imageType],
      size: clean.byteLength,
      width: dimensions.width,
      height: dimensions.height,
    };
  }
  if (imageType === "other-image") throw refuse(415, ATTACHMENT_TYPE);
  const voice = inspectVoiceNote(bytes);
  if (!voice.ok) {
    if (voice.problem === "not-audio" || voice.problem === "wrong-codec") {
      throw refuse(415, ATTACHMENT_TYPE);
    }
    throw refuse(422, VOICE_UNREADABLE);
  }
  if (bytes.byteLength >= VOICE_MAX_BYTES) throw refuse(422, VOICE_TOO_LARGE);
  if (voice.info.durationMs > VOICE_MAX_MS + VOICE_SLACK_MS) throw refuse(422, VOICE_TOO_LONG);
  return {
    kind: "voice",
    bytes,
    content_type: voice.info.contentType,
    size: bytes.byteLength,
    duration_ms: Math.max(1, Math.min(voice.info.durationMs, VOICE_MAX_MS)),
  };
}

/**
 * POST /chat/conversations/{id}/attachments: checks the conversation (a match, no block) and the
 * bytes, stores them in R2 and sends the message. The same client id again answers the stored
 * message and keeps nothing new; a refused send keeps nothing either.
 */
export async function sendAttachment(
  env: Env,
  me: string,
  conversationId: string,
  { bytes, input }: AttachmentUpload,
): Promise<{ message: ChatMessageView; created: boolean }> {
  await conversationForAttachments(env, me, conversationId);
  const { bytes: clean, ...inspected } = inspectAttachment(bytes);
  const attachment: StoredAttachment = {
    ...inspected,
    key: attachmentKey(conversationId),
    // View once is for photos (a voice note is listened to again).
    view_once: inspected.kind === "photo" && input.view_once,
  };
  await env.PHOTOS.put(attachment.key, clean, {
    httpMetadata: { contentType: attachment.content_type },
  });
  let result: { message: ChatMessageView; created: boolean } | null = null;
  try {
    result = unwrap(
      await conversationRoom(env, conversationId).send({
        conversationId,
        senderId: me,
        text: ATTACHMENT_TEXT[attachment.kind],
        clientId: input.client_id ?? null,
        gift: null,
        attachment,
        limit: readConfig(env).rateLimits.chat_send_account,
      }),
    );
    return result;
  } finally {
    // Refused, or a retry answered with the message stored before: this copy is not used.
    if (!result?.created) await env.PHOTOS.delete(attachment.key);
  }
}

/**
 * GET /chat/attachments/{messageId}: the object, for a member the room lets open it (404 for
 * anyone else, after a block or a deletion; 410 for a view-once photo already opened). A view-once
 * photo is read whole and deleted before it is served.
 */
export async function openAttachment(env: Env, me: string, messageId: string) {
  const conversationId = await conversationOfMessage(env, messageId);
  if (!conversationId) throw notFound("Attachment not found.");
  const { attachment, consume } = unwrap(
    await conversationRoom(env, conversationId).openAttachment(conversationId, me, messageId),
  );
  const object = await env.PHOTOS.get(attachment.key);
  if (!object) throw notFound("Attachment not found.");
  if (!consume) return { attachment, body: object.body, etag: object.httpEtag, consume };
  const bytes = new Uint8Array(await object.arrayBuffer());
  await env.PHOTOS.delete(attachment.key);
  return { attachment, body: bytes, etag: object.httpEtag, consume };
}
