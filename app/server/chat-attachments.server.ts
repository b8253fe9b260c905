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
import { sql } from "drizzle-orm";
import { conversationOfMessage, conversationRoom } from "./chat-rooms.server";
import { conversationForAttachments, unwrap } from "./chat.server";
import { newId } from "./crypto.server";
import type { Env } from "./env.server";
import { readConfig } from "./env.server";
import { HttpError, notFound, ValidationError } from "./errors.server";
import type { Job } from "./housekeeping.server";
import { logFailure } from "./log.server";
import { nowIso } from "./db.server";
import { all, first, run } from "./sql.server";
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

/**
 * An attachment object no message carries is deleted once it is this old: a send puts the object
 * first and stores its message within seconds, so an object older than this without a message is
 * an orphan (a send refused or failed whose delete failed too).
 */
export const ORPHAN_AGE_MS = 3600_000;

/** Rooms asked per run of the sweep (each a Durable Object call): the rest waits for the next. */
export const SWEEP_ROOMS_PER_RUN = 100;

/** Rooms asked at once. */
const SWEEP_PARALLEL = 10;

/** R2 lists at most this many keys a call. */
const R2_LIST_MAX = 1000;

const SWEEP_JOB = "chat_attachment_orphans";

/** A key's conversation (`chat/{conversationId}/{id}`), or null for a key of no known layout. */
function conversationOfKey(key: string): string | null {
  const parts = key.split("/");
  return parts.length === 3 && parts[0] === CHAT_KEY_PREFIX && parts[1] ? parts[1] : null;
}

/** Runs `work` over `items`, `parallel` at a time. */
async function inTurns<T>(items: T[], parallel: number, work: (item: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += parallel) {
    await Promise.all(items.slice(i, i + parallel).map(work));
  }
}

/**
 * The housekeeping's sweep of chat attachments (docs/decisions/045): walks the objects under
 * `chat/` in key order, HOUSEKEEPING_BATCH's batch size of keys a list (at most 1000), its batches
 * lists a run, and at most SWEEP_ROOMS_PER_RUN rooms asked; where it stopped is kept
 * (`job_cursors`, the last key it decided) and the next run goes on from there, starting over once
 * it reached the end. Objects of a conversation D1 no longer holds are deleted whatever their
 * age; an object older than ORPHAN_AGE_MS that its conversation's room says no message carries
 * is deleted. A room that cannot be asked keeps its objects until the next pass.
 */
export const SWEEP_CHAT_ATTACHMENTS: Job = {
  name: SWEEP_JOB,
  async run(env, now, { batchSize, maxBatches }) {
    const state = await first<{ cursor: string | null }>(
      env.DB,
      sql`SELECT cursor FROM job_cursors WHERE name = ${SWEEP_JOB}`,
    );
    let after = state?.cursor ?? undefined;
    let deleted = 0;
    let rooms = SWEEP_ROOMS_PER_RUN;
    let batches = 0;
    let done = false;
    while (batches < maxBatches && rooms > 0) {
      batches += 1;
      const listed = await env.PHOTOS.list({
        prefix: `${CHAT_KEY_PREFIX}/`,
        startAfter: after,
        limit: Math.min(batchSize, R2_LIST_MAX),
      });
      const step = await sweepObjects(env, now, listed.objects, rooms);
      deleted += step.deleted;
      rooms -= step.rooms;
      if (step.last !== undefined) after = step.last;
      if (!listed.truncated && step.last === listed.objects.at(-1)?.key) {
        done = true;
        break;
      }
    }
    // A pass that reached the end starts over at the next run.
    const cursor = done ? null : (after ?? null);
    await run(
      env.DB,
      sql`INSERT INTO job_cursors (name, cursor, finished_at, updated_at)
          VALUES (${SWEEP_JOB}, ${cursor}, ${done ? nowIso(now) : null}, ${nowIso(now)})
          ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor,
            finished_at = coalesce(excluded.finished_at, job_cursors.finished_at),
            updated_at = excluded.updated_at`,
    );
    return { deleted, batches, done };
  },
};

/**
 * Decides one listed page of objects, in key order, a conversation at a time, asking at most
 * `rooms` rooms. Answers what it deleted, the rooms it asked, and the last key it decided (the
 * page is decided up to there; undefined: none).
 */
async function sweepObjects(
  env: Env,
  now: number,
  objects: R2Object[],
  rooms: number,
): Promise<{ deleted: number; rooms: number; last: string | undefined }> {
  // Keys in order, so each conversation's objects are one run of the page.
  const groups = new Map<string, R2Object[]>();
  for (const object of objects) {
    const id = conversationOfKey(object.key);
    if (!id) continue;
    const group = groups.get(id);
    if (group) group.push(object);
    else groups.set(id, [object]);
  }
  const ids = [...groups.keys()];
  const held = new Set(
    ids.length === 0
      ? []
      : (
          await all<{ id: string }>(
            env.DB,
            sql`SELECT id FROM conversations WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
          )
        ).map((r) => r.id),
  );
  const cutoff = now - ORPHAN_AGE_MS;
  const doomed: string[] = [];
  // The conversations whose rooms are asked this time: those past the budget wait.
  const asked: [string, string[]][] = [];
  let decidedUpTo = objects.length;
  for (const [id, group] of groups) {
    if (!held.has(id)) {
      doomed.push(...group.map((o) => o.key));
      continue;
    }
    const old = group.filter((o) => o.uploaded.getTime() <= cutoff).map((o) => o.key);
    if (old.length === 0) continue;
    if (asked.length === rooms) {
      decidedUpTo = objects.indexOf(group[0]!);
      break;
    }
    asked.push([id, old]);
  }
  await inTurns(asked, SWEEP_PARALLEL, async ([id, keys]) => {
    try {
      const referenced = new Set(await conversationRoom(env, id).referencedAttachments(keys));
      doomed.push(...keys.filter((key) => !referenced.has(key)));
    } catch (error) {
      // Kept until the next pass.
      logFailure("chat_attachment_sweep_failed", error, { conversation_id: id });
    }
  });
  // Objects past where the page was decided are not deleted now (a gone conversation's included).
  const decided = new Set(objects.slice(0, decidedUpTo).map((o) => o.key));
  const keys = doomed.filter((key) => decided.has(key));
  if (keys.length > 0) await env.PHOTOS.delete(keys);
  const last = decidedUpTo > 0 ? objects[decidedUpTo - 1]!.key : undefined;
  return { deleted: keys.length, rooms: asked.length, last };
}
