import { api } from "~/lib/http";
import type { ChatMessageView } from "~/realtime/chat";
import type { ConversationView, Gift, PageMeta } from "~/schemas/chat";

/**
 * How the chat page talks to the server: the chat calls of docs/api.md over HTTP, one function
 * each, and the open conversation's socket as a second way to send and mark read. The page's state
 * (app/state/chat.ts) knows neither; its actions (app/state/chat-actions.ts) use both.
 */

/**
 * The open conversation's socket as a way to send: resolves with the stored message, rejects with
 * an ApiError when the server refused it, or with another error when the socket could not say
 * (closed, no answer in time), in which case the message goes by HTTP with the same client id.
 */
export interface ChatTransport {
  conversationId: string;
  send(input: OutgoingMessage): Promise<ChatMessageView>;
  /** Marks the conversation read over the socket; false when it cannot. */
  read(): boolean;
  /** Sets or takes back a reaction over the socket (rejects as `send` does). */
  react(messageId: string, emoji: string | null): Promise<void>;
}

export interface OutgoingMessage {
  client_id: string;
  message: string;
  gift_id?: string;
  /** Sends text the safety rules asked "Are you sure?" about. */
  confirm?: boolean;
}

/** A message sent by HTTP is given up on (and may be retried with its client id) after this. */
const SEND_TIMEOUT_MS = 15_000;

/** The id a message is written under, so that sending it again stores it once. */
export function newClientId(): string {
  return typeof crypto !== "undefined" && "randomUUID" in crypto
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

const conversationsPath = "/chat/conversations";
const conversationPath = (id: string) => `${conversationsPath}/${encodeURIComponent(id)}`;
const messagesPath = (id: string) => `${conversationPath(id)}/messages`;

type MessagePage = { messages: ChatMessageView[]; meta: PageMeta };

export const chatApi = {
  conversations: (cursor?: string | null) =>
    api<{ conversations: ConversationView[]; meta: PageMeta }>(
      `${conversationsPath}${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`,
    ),

  archived: () =>
    api<{ archived_conversations: ConversationView[] }>(`${conversationsPath}/archived`),

  /** The newest page, the page before `cursor`, or every message after `after` (a catch-up). */
  messages: (id: string, page: { cursor?: string; after?: number } = {}) =>
    api<MessagePage>(
      page.cursor
        ? `${messagesPath(id)}?cursor=${encodeURIComponent(page.cursor)}`
        : page.after !== undefined
          ? `${messagesPath(id)}?after=${page.after}`
          : messagesPath(id),
    ),

  markRead: (id: string) => api(`${conversationPath(id)}/read`, { method: "POST" }),

  async send(conversationId: string, body: OutgoingMessage) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), SEND_TIMEOUT_MS);
    try {
      return await api<{ message: ChatMessageView }>(messagesPath(conversationId), {
        method: "POST",
        body,
        signal: controller.signal,
      });
    } finally {
      clearTimeout(timer);
    }
  },

  /** A photo or voice note (multipart), idempotent by its client id like a message. */
  sendAttachment: (
    conversationId: string,
    file: Blob,
    { name, clientId, viewOnce }: { name: string; clientId: string; viewOnce: boolean },
  ) => {
    const form = new FormData();
    form.append("file", file, name);
    form.append("client_id", clientId);
    if (viewOnce) form.append("view_once", "true");
    return api<{ message: ChatMessageView }>(`${conversationPath(conversationId)}/attachments`, {
      method: "POST",
      body: form,
    });
  },

  deleteMessage: (id: string) =>
    api(`/chat/messages/${encodeURIComponent(id)}`, { method: "DELETE" }),

  /** Sets the member's reaction to a message (`emoji`), or takes it back (null). */
  react: (id: string, emoji: string | null) =>
    api(`/chat/messages/${encodeURIComponent(id)}/reaction`, {
      method: emoji === null ? "DELETE" : "PUT",
      body: emoji === null ? undefined : { emoji },
    }),

  archive: (id: string) => api(`${conversationPath(id)}/archive`, { method: "POST" }),

  unarchive: (id: string) => api(`${conversationPath(id)}/unarchive`, { method: "POST" }),

  start: (body: { user_id: string; message?: string; client_id?: string }) =>
    api<{ conversation: ConversationView; message: ChatMessageView | null }>(conversationsPath, {
      method: "POST",
      body,
    }),

  gifts: () => api<{ gifts: Gift[]; user_credits: number }>("/chat/gifts"),

  /** First lines for an empty conversation, drawn from both profiles. */
  starters: (username: string, signal?: AbortSignal) =>
    api<{ starters: string[] }>(`/chat/starters/${encodeURIComponent(username)}`, { signal }),
};
