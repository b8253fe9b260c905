import { ApiError } from "~/lib/http";
import type { AttachmentView, ChatMessageView } from "~/realtime/chat";
import { ATTACHMENT_TEXT, type Gift } from "~/schemas/chat";
import {
  archivedLoaded,
  caughtUp,
  CHAT_ERRORS,
  chatErrorMessage,
  chatFailed,
  conversationArchived,
  conversationsLoaded,
  conversationsLoadStart,
  conversationStarted,
  conversationUnarchived,
  creditsSpent,
  deleteFailed,
  deleteStarted,
  failureReason,
  giftsLoaded,
  initialChatState,
  catchUpFrom,
  conversationClosed,
  conversationRefused,
  roomNeedsCheck,
  roomOpened,
  roomOpenFailed,
  roomSyncChanged,
  messageRemoved,
  messagesLoaded,
  messagesLoadStart,
  attachmentOpened,
  reactionChanged,
  reactionOf,
  retryQueued,
  selectConversation,
  sendFailed,
  sendQueued,
  sendSucceeded,
  sendWaiting,
  localMessage,
  typedText,
  waitingMessages,
  discardLocal,
  type ChatState,
} from "./chat";
import { forgetOutgoing, keepOutgoing, outgoingFor, type OutgoingAttachment } from "./chat-outbox";
import { chatApi, newClientId, type ChatTransport } from "./chat-transport";
import { atom, type Store } from "./jotai";

/**
 * The chat page's store and what it does: each action calls the server (app/state/chat-transport.ts)
 * and applies the pure transitions of app/state/chat.ts to the result. One store per render tree:
 * nothing here is shared between requests.
 */

export const chatStateAtom = atom<ChatState>(initialChatState);
/** The open conversation's socket, while it is connected (set by the thread). */
export const chatTransportAtom = atom<ChatTransport | null>(null);
/** The signed-in member's id (set by the chat page). */
export const chatMeAtom = atom<string>("");
/** The header's unread badge, kept fresh by the member's own channel on every page. */
export const chatUnreadTotalAtom = atom<number | null>(null);

/** The store after `error`, in the error banner. */
const withError = (s: ChatState, error: unknown, fallback: string): ChatState => ({
  ...s,
  error: chatErrorMessage(error, fallback),
});

export const loadConversationsAtom = atom(null, async (get, set, more?: boolean) => {
  const state = get(chatStateAtom);
  if (more && !state.conversationsCursor) return;
  set(chatStateAtom, conversationsLoadStart(get(chatStateAtom)));
  try {
    const res = await chatApi.conversations(more ? state.conversationsCursor : null);
    set(chatStateAtom, conversationsLoaded(get(chatStateAtom), res.conversations, res.meta, more));
  } catch (error) {
    set(
      chatStateAtom,
      chatFailed(get(chatStateAtom), chatErrorMessage(error, CHAT_ERRORS.conversations)),
    );
  }
});

export const loadArchivedAtom = atom(null, async (get, set) => {
  try {
    const res = await chatApi.archived();
    set(chatStateAtom, archivedLoaded(get(chatStateAtom), res.archived_conversations));
  } catch (error) {
    set(
      chatStateAtom,
      chatFailed(get(chatStateAtom), chatErrorMessage(error, CHAT_ERRORS.archived)),
    );
  }
});

/** Opens a conversation and loads its newest page (which marks it read). */
export const openConversationAtom = atom(null, async (get, set, id: string | null) => {
  set(chatStateAtom, selectConversation(get(chatStateAtom), id));
  if (!id) return;
  set(chatStateAtom, messagesLoadStart(get(chatStateAtom), false));
  try {
    const page = await chatApi.messages(id);
    set(chatStateAtom, messagesLoaded(get(chatStateAtom), id, page, false));
    // What was written here and not stored yet (before a reload, or offline) joins and goes.
    void set(flushOutgoingAtom);
  } catch (error) {
    if (get(chatStateAtom).activeConversationId !== id) return;
    const failed = chatFailed(get(chatStateAtom), chatErrorMessage(error, CHAT_ERRORS.messages));
    set(chatStateAtom, conversationRefused(failed, id, error));
  }
});

/** Infinite scroll upward: the page before the oldest message held. */
export const loadOlderAtom = atom(null, async (get, set) => {
  const s = get(chatStateAtom);
  const id = s.activeConversationId;
  if (!id || !s.hasMore || !s.cursor || s.isLoadingMore) return;
  set(chatStateAtom, messagesLoadStart(s, true));
  try {
    const page = await chatApi.messages(id, { cursor: s.cursor });
    set(chatStateAtom, messagesLoaded(get(chatStateAtom), id, page, true));
  } catch (error) {
    set(
      chatStateAtom,
      chatFailed(get(chatStateAtom), chatErrorMessage(error, CHAT_ERRORS.messages)),
    );
  }
});

/**
 * After a (re)connect: every message after the last one known to be held (`catchUpFrom`: not a
 * message this device sent while the socket was down, which says nothing of those stored before
 * it), page by page, merged by id. Once done, the socket's frames keep the conversation whole.
 */
export const catchUpAtom = atom(null, async (get, set): Promise<boolean> => {
  const id = get(chatStateAtom).activeConversationId;
  if (!id || get(chatStateAtom).isLoadingMessages) return false;
  let after = catchUpFrom(get(chatStateAtom));
  for (let round = 0; round < 100; round++) {
    const page = await chatApi.messages(id, { after });
    set(chatStateAtom, caughtUp(get(chatStateAtom), id, page.messages));
    if (get(chatStateAtom).activeConversationId !== id) return false;
    if (!page.meta.has_more) return true;
    after = page.messages.reduce((max, m) => Math.max(max, m.seq), after);
  }
  return false;
});

/**
 * What the open conversation's socket opening, going down, failing to open and being closed do to
 * the chat store, for the chat page (app/components/chat/conversation-room.ts) and anything else
 * that holds the socket: on each opening, what was missed (the catch-up), the connection marked
 * caught up if it still is the open one, then what this device still has to send (the server may
 * have stored some of it before the connection dropped: the catch-up shows which); on going down,
 * the next catch-up starts where the socket last kept up. The conversation is closed to the member
 * when its room says so (4403), and when the server answers a catch-up with 403 or 404: one runs
 * at each opening, after a few failed openings in a row (a browser reads no status from a refused
 * upgrade), and when the browser is online again (`check`).
 */
export function conversationRoomSync(store: Store, conversationId: string) {
  let connection = 0;
  const refused = (error: unknown) =>
    store.set(chatStateAtom, (s) => conversationRefused(s, conversationId, error));
  const catchUp = async (): Promise<boolean> => {
    if (store.get(chatStateAtom).activeConversationId !== conversationId) return false;
    try {
      return await store.set(catchUpAtom);
    } catch (error) {
      // A 403 or 404 closes the conversation; anything else is tried again at the next opening.
      refused(error);
      return false;
    }
  };
  return {
    async opened(): Promise<void> {
      const opened = ++connection;
      store.set(chatStateAtom, (s) => roomOpened(s, conversationId));
      const whole = await catchUp();
      if (whole && opened === connection) {
        store.set(chatStateAtom, (s) => roomSyncChanged(s, conversationId, true));
      }
      await store.set(flushOutgoingAtom);
    },
    down() {
      connection += 1;
      store.set(chatStateAtom, (s) => roomSyncChanged(s, conversationId, false));
    },
    /** The socket failed to open once more: after a few in a row, HTTP says whether it may. */
    async failed(): Promise<void> {
      store.set(chatStateAtom, (s) => roomOpenFailed(s, conversationId));
      if (roomNeedsCheck(store.get(chatStateAtom))) await catchUp();
    },
    /** The room closed the conversation (4403): the socket will not come back. */
    forbidden() {
      store.set(chatStateAtom, (s) => conversationClosed(s, conversationId));
    },
    /** Whether the conversation is still open to the member, asked over HTTP (a catch-up). */
    async check(): Promise<void> {
      await catchUp();
    },
  };
}

export const markReadAtom = atom(null, async (get, _set, id: string) => {
  if (get(chatStateAtom).activeConversationId !== id) return;
  const transport = get(chatTransportAtom);
  if (transport?.conversationId === id && transport.read()) return;
  await chatApi.markRead(id);
});

/** Client ids being sent right now: a message is never on its way twice from this tab. */
const sending = new Set<string>();

/**
 * Optimistic send: the message shows at once as pending, then becomes the stored message (or
 * failed, with retry). The client id makes a retry after a timeout safe: the server stores the
 * message once. Until the server has answered, the message is kept on this device
 * (app/state/chat-outbox.ts): when the network cannot take it, it waits there, pending, and goes
 * again when the connection returns (`flushOutgoingAtom`), after a reload too.
 */
export const sendMessageAtom = atom(
  null,
  async (get, set, input: { text: string; gift?: Gift; clientId?: string; confirm?: boolean }) => {
    const s = get(chatStateAtom);
    const id = s.activeConversationId;
    const me = get(chatMeAtom);
    if (!id) return;
    const clientId = input.clientId ?? newClientId();
    if (sending.has(clientId)) return;
    const local = s.messages.find((m) => m.client_id === clientId && m.status);
    if (!local) {
      const message = localMessage({
        conversationId: id,
        senderId: me,
        clientId,
        text: input.text,
        gift: input.gift ?? null,
        writtenAt: new Date().toISOString(),
      });
      set(chatStateAtom, sendQueued(s, message));
    } else {
      set(chatStateAtom, retryQueued(s, clientId));
    }
    const body = {
      message: input.text.trim(),
      client_id: clientId,
      ...(input.gift ? { gift_id: input.gift.id } : {}),
      ...(input.confirm ? { confirm: true } : {}),
    };
    sending.add(clientId);
    try {
      await keepOutgoing({
        client_id: clientId,
        conversation_id: id,
        sender_id: me,
        message: input.text.trim(),
        gift: input.gift ?? null,
        written_at: local?.sent_at ?? new Date().toISOString(),
      });
      let stored: ChatMessageView | null = null;
      const transport = get(chatTransportAtom);
      if (transport?.conversationId === id) {
        try {
          stored = await transport.send(body);
        } catch (error) {
          if (error instanceof ApiError) throw error;
          // The socket could not say: HTTP, with the same client id, stores it at most once.
        }
      }
      stored ??= (await chatApi.send(id, body)).message;
      void forgetOutgoing(clientId);
      set(chatStateAtom, sendSucceeded(get(chatStateAtom), stored, me));
      if (stored.gift) {
        set(chatStateAtom, creditsSpent(get(chatStateAtom), stored.gift.price_credits));
      }
    } catch (error) {
      if (!(error instanceof ApiError)) {
        // The network did not take it: it waits on this device for the connection.
        set(chatStateAtom, sendWaiting(get(chatStateAtom), clientId));
        return;
      }
      // The server decided: it is no longer this device's to send by itself.
      void forgetOutgoing(clientId);
      // A 403 or 404: the conversation is closed to the member (a block, an unmatch), as on 4403.
      set(chatStateAtom, conversationRefused(get(chatStateAtom), id, error));
      // "Are you sure?" (message safety): the message waits for the member to confirm or discard.
      const askedToConfirm = error.status === 409 && !input.confirm;
      set(
        chatStateAtom,
        sendFailed(get(chatStateAtom), clientId, failureReason(error), askedToConfirm),
      );
      if (!askedToConfirm)
        set(chatStateAtom, withError(get(chatStateAtom), error, CHAT_ERRORS.send));
    } finally {
      sending.delete(clientId);
    }
  },
);

/**
 * The connection is back (the conversation's socket opened, the browser went online) or the
 * conversation opened: the messages written here that the server does not have yet go again, in
 * the order they were written: those kept on this device from before a reload first join the
 * list (unless the server has them already, the catch-up showed).
 */
export const flushOutgoingAtom = atom(null, async (get, set) => {
  const id = get(chatStateAtom).activeConversationId;
  const me = get(chatMeAtom);
  if (!id || !me) return;
  for (const entry of await outgoingFor(id, me)) {
    const s = get(chatStateAtom);
    if (s.activeConversationId !== id) return;
    const there = s.messages.find((m) => m.client_id === entry.client_id);
    if (there && !there.status) {
      void forgetOutgoing(entry.client_id);
    } else if (!there) {
      const a = entry.attachment;
      if (a) files.set(entry.client_id, a);
      const message = localMessage({
        conversationId: id,
        senderId: me,
        clientId: entry.client_id,
        text: a ? ATTACHMENT_TEXT[a.kind] : entry.message,
        gift: entry.gift,
        writtenAt: entry.written_at,
        attachment: a ? localAttachment(a) : null,
      });
      set(chatStateAtom, sendWaiting(sendQueued(s, message), entry.client_id));
    }
  }
  for (const m of waitingMessages(get(chatStateAtom))) {
    if (get(chatStateAtom).activeConversationId !== id) return;
    if (m.attachment) {
      await set(sendAttachmentAtom, { clientId: m.client_id! });
      continue;
    }
    await set(sendMessageAtom, {
      text: typedText(m),
      gift: m.gift ?? undefined,
      clientId: m.client_id!,
    });
  }
});

/**
 * The files of photos and voice notes being sent from this tab, by client id (for a retry); the
 * device's outbox keeps them too, for after a reload.
 */
const files = new Map<string, OutgoingAttachment>();

/** A photo or voice note on its way, as its bubble shows it from this device. */
const localAttachment = (a: OutgoingAttachment): AttachmentView => ({
  kind: a.kind,
  url: URL.createObjectURL(a.file),
  content_type: a.file.type,
  size: a.file.size,
  ...(a.duration_ms ? { duration_ms: a.duration_ms } : {}),
  view_once: a.view_once,
  opened_at: null,
});

/**
 * Sends a photo or voice note: shown at once from this device (pending), then the stored message.
 * A refusal shows its reason on the bubble, with "Retry now" (the same client id: stored once).
 */
export const sendAttachmentAtom = atom(
  null,
  async (
    get,
    set,
    input: {
      file?: Blob;
      name?: string;
      kind?: "photo" | "voice";
      viewOnce?: boolean;
      durationMs?: number;
      clientId?: string;
    },
  ) => {
    const s = get(chatStateAtom);
    const id = s.activeConversationId;
    const me = get(chatMeAtom);
    if (!id) return;
    const clientId = input.clientId ?? newClientId();
    if (sending.has(clientId)) return;
    if (input.file) {
      files.set(clientId, {
        file: input.file,
        name: input.name ?? "attachment",
        kind: input.kind ?? (input.file.type.startsWith("audio/") ? "voice" : "photo"),
        view_once: input.viewOnce ?? false,
        ...(input.durationMs ? { duration_ms: Math.max(1, Math.round(input.durationMs)) } : {}),
      });
    }
    const upload = files.get(clientId);
    if (!upload) return;
    const local = s.messages.find((m) => m.client_id === clientId && m.status);
    if (local) {
      set(chatStateAtom, retryQueued(s, clientId));
    } else {
      const message = localMessage({
        conversationId: id,
        senderId: me,
        clientId,
        text: ATTACHMENT_TEXT[upload.kind],
        gift: null,
        writtenAt: new Date().toISOString(),
        attachment: localAttachment(upload),
      });
      set(chatStateAtom, sendQueued(s, message));
    }
    sending.add(clientId);
    try {
      // Kept on this device, file and all, until the server has it (after a reload too).
      await keepOutgoing({
        client_id: clientId,
        conversation_id: id,
        sender_id: me,
        message: "",
        gift: null,
        written_at: local?.sent_at ?? new Date().toISOString(),
        attachment: upload,
      });
      const { message } = await chatApi.sendAttachment(id, upload.file, {
        name: upload.name,
        clientId,
        viewOnce: upload.view_once,
      });
      const shown = get(chatStateAtom).messages.find((m) => m.client_id === clientId && m.status);
      if (shown?.attachment?.url?.startsWith("blob:")) URL.revokeObjectURL(shown.attachment.url);
      files.delete(clientId);
      void forgetOutgoing(clientId);
      set(chatStateAtom, sendSucceeded(get(chatStateAtom), message, me));
    } catch (error) {
      if (!(error instanceof ApiError)) {
        // The network did not take it: it waits on this device for the connection.
        set(chatStateAtom, sendWaiting(get(chatStateAtom), clientId));
        return;
      }
      // The server decided (a refusal): the member sees why, and may try again by hand.
      void forgetOutgoing(clientId);
      set(chatStateAtom, sendFailed(get(chatStateAtom), clientId, failureReason(error)));
      set(chatStateAtom, withError(get(chatStateAtom), error, CHAT_ERRORS.send));
    } finally {
      sending.delete(clientId);
    }
  },
);

/**
 * Opens a view-once photo (the recipient's one look): its bytes, as a `blob:` URL for the viewer
 * to show and revoke. It is gone for both from here on; null when it could not be opened.
 */
export const openViewOnceAtom = atom(null, async (get, set, messageId: string) => {
  const s = get(chatStateAtom);
  const message = s.messages.find((m) => m.id === messageId);
  const url = message?.attachment?.url;
  if (!message || !url || !s.activeConversationId) return null;
  const gone = () =>
    set(
      chatStateAtom,
      attachmentOpened(get(chatStateAtom), {
        conversation_id: message.conversation_id,
        message_id: messageId,
        opened_at: new Date().toISOString(),
      }),
    );
  try {
    const res = await fetch(url, { credentials: "same-origin", cache: "no-store" });
    if (!res.ok) {
      if (res.status === 410) gone();
      else set(chatStateAtom, { ...get(chatStateAtom), error: CHAT_ERRORS.open });
      return null;
    }
    const blob = await res.blob();
    gone();
    return URL.createObjectURL(blob);
  } catch (error) {
    set(chatStateAtom, withError(get(chatStateAtom), error, CHAT_ERRORS.open));
    return null;
  }
});

/** A message the member gave up on: gone from the list and from this device. */
export const discardMessageAtom = atom(null, (get, set, clientId: string) => {
  files.delete(clientId);
  void forgetOutgoing(clientId);
  set(chatStateAtom, discardLocal(get(chatStateAtom), clientId));
});

export const deleteMessageAtom = atom(null, async (get, set, messageId: string) => {
  const id = get(chatStateAtom).activeConversationId;
  if (!id) return;
  set(chatStateAtom, deleteStarted(get(chatStateAtom), messageId));
  try {
    await chatApi.deleteMessage(messageId);
    set(chatStateAtom, messageRemoved(get(chatStateAtom), id, messageId));
  } catch (error) {
    set(
      chatStateAtom,
      deleteFailed(get(chatStateAtom), messageId, chatErrorMessage(error, CHAT_ERRORS.delete)),
    );
  }
});

/**
 * Sets the member's reaction to a message (or takes it back with null): shown at once, put back
 * as it was when the server refuses it.
 */
export const reactAtom = atom(
  null,
  async (get, set, input: { messageId: string; emoji: string | null }) => {
    const s = get(chatStateAtom);
    const conversationId = s.activeConversationId;
    const me = get(chatMeAtom);
    if (!conversationId) return;
    const before = reactionOf(s, input.messageId, me);
    const change = { conversation_id: conversationId, message_id: input.messageId, user_id: me };
    set(chatStateAtom, reactionChanged(s, { ...change, emoji: input.emoji }));
    try {
      const transport = get(chatTransportAtom);
      let done = false;
      if (transport?.conversationId === conversationId) {
        try {
          await transport.react(input.messageId, input.emoji);
          done = true;
        } catch (error) {
          if (error instanceof ApiError) throw error;
          // The socket could not say: HTTP sets the same reaction (setting it twice is harmless).
        }
      }
      if (!done) await chatApi.react(input.messageId, input.emoji);
    } catch (error) {
      const now = get(chatStateAtom);
      // Put back what it was, unless a later change (a live frame, another tap) moved it since.
      const reverted =
        reactionOf(now, input.messageId, me) === input.emoji
          ? reactionChanged(now, { ...change, emoji: before })
          : now;
      set(chatStateAtom, withError(reverted, error, CHAT_ERRORS.react));
    }
  },
);

export const archiveAtom = atom(null, async (get, set, id: string) => {
  try {
    await chatApi.archive(id);
    set(chatStateAtom, conversationArchived(get(chatStateAtom), id));
    return true;
  } catch (error) {
    set(chatStateAtom, withError(get(chatStateAtom), error, CHAT_ERRORS.archive));
    return false;
  }
});

export const unarchiveAtom = atom(null, async (get, set, id: string) => {
  try {
    await chatApi.unarchive(id);
    set(chatStateAtom, conversationUnarchived(get(chatStateAtom), id));
  } catch (error) {
    set(chatStateAtom, withError(get(chatStateAtom), error, CHAT_ERRORS.unarchive));
  }
});

export const startConversationAtom = atom(
  null,
  async (get, set, input: { user_id: string; message?: string }) => {
    try {
      const res = await chatApi.start({
        ...input,
        ...(input.message ? { client_id: newClientId() } : {}),
      });
      set(chatStateAtom, conversationStarted(get(chatStateAtom), res));
      return res.conversation;
    } catch (error) {
      set(chatStateAtom, withError(get(chatStateAtom), error, CHAT_ERRORS.start));
      return null;
    }
  },
);

export const loadGiftsAtom = atom(null, async (get, set) => {
  try {
    const res = await chatApi.gifts();
    set(chatStateAtom, giftsLoaded(get(chatStateAtom), res.gifts, res.user_credits));
  } catch (error) {
    set(chatStateAtom, withError(get(chatStateAtom), error, CHAT_ERRORS.gifts));
  }
});
