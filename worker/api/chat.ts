import { Hono } from "hono";
import {
  chatMigrationSchema,
  conversationsQuerySchema,
  messagesQuerySchema,
  reactionSchema,
  sendMessageSchema,
  startConversationSchema,
} from "~/schemas/chat";
import * as chat from "~/server/chat.server";
import {
  openAttachment,
  readAttachmentUpload,
  sendAttachment,
} from "~/server/chat-attachments.server";
import { iceServersFor } from "~/server/calls.server";
import { HttpError } from "~/server/errors.server";
import { migrateConversations } from "~/server/chat-migration.server";
import { conversationRoom } from "~/server/chat-rooms.server";
import { requireModerator } from "~/server/reports.server";
import { readConfig } from "~/server/env.server";
import { parseInput, readBody } from "~/server/validation.server";
import { verifiedUser } from "../middleware/auth";
import { wantsJson } from "../http";
import {
  authorizeUpgrade,
  forwardUpgrade,
  isHandshake,
  refusedConversationSocket,
  refusedSocket,
} from "../realtime";
import type { AppBindings } from "../types";

/**
 * docs/api.md "Chat" and the conversation sockets of docs/realtime.md. Chat needs a verified email.
 * The chat page lives at /chat and /chat/{id}: a browser asking for /chat/conversations or
 * /chat/gifts without wanting JSON falls through to Remix like any other page request.
 */
export const chatApi = new Hono<AppBindings>();

chatApi.get("/chat/conversations", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  const { cursor } = parseInput(conversationsQuerySchema, c.req.query());
  return c.json(await chat.listConversations(c.env, user.id, { cursor }));
});

chatApi.get("/chat/conversations/archived", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  const { cursor } = parseInput(conversationsQuerySchema, c.req.query());
  const { conversations, meta } = await chat.listConversations(c.env, user.id, {
    archived: true,
    cursor,
  });
  return c.json({ archived_conversations: conversations, meta });
});

chatApi.post("/chat/conversations", async (c) => {
  const user = verifiedUser(c);
  const input = parseInput(startConversationSchema, await readBody(c.req.raw));
  const { conversation, message, created } = await chat.startConversation(c.env, user.id, input);
  return c.json({ conversation, message }, created ? 201 : 200);
});

chatApi.get("/chat/conversations/:id/messages", async (c) => {
  const user = verifiedUser(c);
  const query = parseInput(messagesQuerySchema, c.req.query());
  return c.json(await chat.listMessages(c.env, user.id, c.req.param("id"), query));
});

chatApi.post("/chat/conversations/:id/messages", async (c) => {
  const user = verifiedUser(c);
  const input = parseInput(sendMessageSchema, await readBody(c.req.raw));
  const { message } = await chat.sendMessage(c.env, user.id, c.req.param("id"), input);
  return c.json({ message }, 201);
});

chatApi.post("/chat/conversations/:id/attachments", async (c) => {
  const user = verifiedUser(c);
  const upload = await readAttachmentUpload(c.req.raw);
  const { message } = await sendAttachment(c.env, user.id, c.req.param("id"), upload);
  return c.json({ message }, 201);
});

/**
 * A photo or voice note, for the conversation's two members (the room decides). Revalidated on
 * every use, so that it stops opening after a block or a deletion; a view-once photo is not kept
 * by the browser at all.
 */
chatApi.get("/chat/attachments/:messageId", async (c) => {
  const user = verifiedUser(c);
  const { attachment, body, etag, consume } = await openAttachment(
    c.env,
    user.id,
    c.req.param("messageId"),
  );
  const headers: Record<string, string> = {
    "Content-Type": attachment.content_type,
    "Content-Disposition": "inline",
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cache-Control": consume ? "private, no-store" : "private, no-cache",
    Vary: "Cookie",
  };
  if (!consume) {
    headers.ETag = etag;
    const ifNoneMatch = c.req.header("If-None-Match");
    if (ifNoneMatch?.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) {
      return c.body(null, 304, headers);
    }
  }
  return c.body(body, 200, headers);
});

chatApi.post("/chat/conversations/:id/archive", async (c) => {
  const user = verifiedUser(c);
  return c.json(await chat.setArchived(c.env, user.id, c.req.param("id"), true));
});

chatApi.post("/chat/conversations/:id/unarchive", async (c) => {
  const user = verifiedUser(c);
  return c.json(await chat.setArchived(c.env, user.id, c.req.param("id"), false));
});

chatApi.post("/chat/conversations/:id/read", async (c) => {
  const user = verifiedUser(c);
  await chat.markRead(c.env, user.id, c.req.param("id"));
  return c.body(null, 204);
});

chatApi.get("/chat/gifts", async (c, next) => {
  if (!wantsJson(c)) return next();
  const user = verifiedUser(c);
  return c.json(await chat.listGifts(c.env, user.id));
});

/** The ICE servers for a call's browsers (docs/api.md "Calls"); never cached (they expire). */
chatApi.get("/chat/ice-servers", async (c) => {
  verifiedUser(c);
  c.header("Cache-Control", "private, no-store");
  return c.json(await iceServersFor(c.env));
});

chatApi.get("/chat/unread", async (c) => {
  const user = verifiedUser(c);
  return c.json({ unread_count: await chat.unreadTotal(c.env, user.id) });
});

chatApi.delete("/chat/messages/:id", async (c) => {
  const user = verifiedUser(c);
  await chat.deleteMessage(c.env, user.id, c.req.param("id"));
  return c.body(null, 204);
});

chatApi.put("/chat/messages/:id/reaction", async (c) => {
  const user = verifiedUser(c);
  const { emoji } = parseInput(reactionSchema, await readBody(c.req.raw));
  await chat.setReaction(c.env, user.id, c.req.param("id"), emoji);
  return c.json({ emoji });
});

chatApi.delete("/chat/messages/:id/reaction", async (c) => {
  const user = verifiedUser(c);
  await chat.setReaction(c.env, user.id, c.req.param("id"), null);
  return c.body(null, 204);
});

/**
 * The migration step of docs/decisions/012-chat-in-rooms.md: moves the D1 messages of a batch of
 * conversations into their rooms; call again with `after: next_cursor` until it is null. Safe to
 * rerun. Moderators only (404 for anyone else).
 */
chatApi.post("/admin/chat/migrate", async (c) => {
  requireModerator(c.get("rc").user);
  const input = parseInput(chatMigrationSchema, await readBody(c.req.raw));
  return c.json(await migrateConversations(c.env, input));
});

/**
 * A conversation's room: its two members only, checked before the upgrade reaches the room. A
 * refusal (404, or 403: by these checks, or by a room that heard of a block first) keeps its
 * status for an HTTP client (API.md "Realtime"); a websocket handshake, whose client sees no
 * status, gets a socket closed with 4403 instead.
 */
chatApi.get("/ws/chat/:conversationId", async (c) => {
  const member = authorizeUpgrade(c);
  const id = c.req.param("conversationId");
  const refused = (status: number) => (status === 403 || status === 404) && isHandshake(c);
  let admitted: boolean;
  try {
    admitted = await chat.admitConversationSocket(c.env, member.id, id, member.ticket);
  } catch (error) {
    if (error instanceof HttpError && refused(error.status)) return refusedConversationSocket();
    throw error;
  }
  if (!admitted) return refusedSocket();
  const upgrade = forwardUpgrade(c, member);
  upgrade.headers.set("X-Conversation-Id", id);
  // The room counts sends over this socket against this Worker's configured limit.
  const { max, windowSeconds } = readConfig(c.env).rateLimits.chat_send_account;
  upgrade.headers.set("X-Send-Limit", `${max}/${windowSeconds}`);
  const answer = await conversationRoom(c.env, id).fetch(upgrade);
  return refused(answer.status) ? refusedConversationSocket() : answer;
});
