import { ApiError, httpErrorMessage } from "~/lib/http";
import type { AttachmentView, ChatMessageView, ChatServerFrame } from "~/realtime/chat";
import type { ConversationFrame } from "~/realtime/member";
import type { ConversationView, Gift, PageMeta } from "~/schemas/chat";

/**
 * The chat on the client (docs/domain.md "Client state") and its transitions as pure
 * functions; the atoms at the end only call the API and these.
 *
 * Messages of the open conversation are kept in the conversation's one order (`seq`, the order of
 * the messages API and of the room), so a live frame and a fetched page always agree; messages
 * still being sent (or that failed) follow them in the order they were written.
 */

export type MessageStatus = "pending" | "failed";

export interface ChatMessage extends ChatMessageView {
  /** docs/domain.md "Client state": a client-only flag while a delete is under way. */
  deleting?: boolean;
  /** A message written here that the server has not acknowledged yet (or refused). */
  status?: MessageStatus;
  /** Why a failed message failed (the server's message when it gave one). */
  failureReason?: string | null;
  /** The server asked "Are you sure?" (409, message safety): it may be sent again confirmed. */
  needsConfirm?: boolean;
  /**
   * A pending message the network could not take: kept on this device (app/state/chat-outbox.ts)
   * and sent again when the connection returns.
   */
  waiting?: boolean;
  /**
   * It arrived while the conversation was open (a live frame, or written here), rather than with
   * a page of history: the list lets it slide in.
   */
  live?: boolean;
}

export interface ChatState {
  conversations: ConversationView[];
  conversationsCursor: string | null;
  hasMoreConversations: boolean;
  archivedConversations: ConversationView[];
  isLoadingConversations: boolean;
  activeConversationId: string | null;
  /**
   * The open conversation once a reload of the lists no longer holds it (blocked from the thread,
   * or further down than the reloaded page): kept on screen until the member leaves it.
   */
  openOffList: ConversationView | null;
  messages: ChatMessage[];
  /**
   * Where the next catch-up starts: every message of the open conversation up to this sequence
   * number is held, because it came in a page (the newest page, or a catch-up) or over the
   * conversation's socket while that socket was caught up (`roomSynced`). A message this device
   * sent while its socket was down is held with its number at once, but says nothing of the
   * other member's messages stored before it: it does not move this.
   */
  syncedSeq: number;
  /** The conversation's socket is open and its catch-up done: its frames arrive in order, none missed. */
  roomSynced: boolean;
  /**
   * The open conversation may no longer be used by this member (a block either way, an unmatch,
   * a suspension, not theirs): its room closed its socket with 4403, or the server answered a
   * send or a catch-up of it with 403 or 404. The composer is disabled; the socket stays closed.
   */
  roomClosed: boolean;
  /**
   * How many times in a row the conversation's socket failed to open. A browser reads no status
   * from a refused upgrade, so after ROOM_FAILED_OPENS_CHECK of them the page asks over HTTP
   * (`roomNeedsCheck`), whose 403 or 404 closes the conversation.
   */
  failedOpens: number;
  /**
   * The cursor of the next older page (docs/domain.md "Client state"), and whether there is one.
   */
  cursor: string | null;
  hasMore: boolean;
  isLoadingMessages: boolean;
  isLoadingMore: boolean;
  gifts: Gift[];
  userCredits: number;
  error: string | null;
}

export const initialChatState: ChatState = {
  conversations: [],
  conversationsCursor: null,
  hasMoreConversations: false,
  archivedConversations: [],
  isLoadingConversations: false,
  activeConversationId: null,
  openOffList: null,
  messages: [],
  syncedSeq: 0,
  roomSynced: false,
  roomClosed: false,
  failedOpens: 0,
  cursor: null,
  hasMore: false,
  isLoadingMessages: false,
  isLoadingMore: false,
  gifts: [],
  userCredits: 0,
  error: null,
};

/**
 * docs/domain.md "Error messages": stored when a call fails for another reason than an HTTP status.
 */
export const CHAT_ERRORS = {
  conversations: "Failed to fetch conversations",
  archived: "Failed to fetch archived conversations",
  messages: "Failed to fetch messages",
  send: "Failed to send message",
  start: "Failed to start conversation",
  archive: "Failed to archive conversation",
  unarchive: "Failed to unarchive conversation",
  gifts: "Failed to fetch gifts",
  delete: "Failed to delete message",
  react: "Failed to react to message",
  open: "Failed to open the photo",
} as const;

/**
 * docs/domain.md "Error messages": a non-OK response gives 'HTTP error! status: {code}'; anything
 * else the fallback.
 */
export function chatErrorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError) return httpErrorMessage(error.status);
  return fallback;
}

/** What a member is told about a message that failed: the server's reason when it gave one. */
export function failureReason(error: unknown): string {
  if (
    error instanceof ApiError &&
    error.message &&
    error.message !== httpErrorMessage(error.status)
  ) {
    return error.message;
  }
  return error instanceof ApiError ? httpErrorMessage(error.status) : CHAT_ERRORS.send;
}

const isLocal = (m: ChatMessage) => m.status !== undefined;

/** Server messages by seq, then local ones in the order they were written. */
function ordered(messages: ChatMessage[]): ChatMessage[] {
  const stored = messages.filter((m) => !isLocal(m)).sort((a, b) => a.seq - b.seq);
  return [...stored, ...messages.filter(isLocal)];
}

/**
 * Adds messages that are not there yet (by id); a stored message replaces the local one with the
 * same client id (an optimistic send meeting its acknowledgement or its live frame).
 */
export function mergeMessages(current: ChatMessage[], incoming: ChatMessage[]): ChatMessage[] {
  let next = current;
  for (const message of incoming) {
    if (!message?.id) continue;
    if (next.some((m) => m.id === message.id)) continue;
    const local = message.client_id
      ? next.findIndex((m) => isLocal(m) && m.client_id === message.client_id)
      : -1;
    next = local >= 0 ? next.filter((_, i) => i !== local) : next;
    next = [...next, { ...message }];
  }
  return next === current ? current : ordered(next);
}

const byNewest = (a: ConversationView, b: ConversationView) =>
  (b.last_message_time ?? "").localeCompare(a.last_message_time ?? "");

function updateEntry(
  list: ConversationView[],
  id: string,
  change: (c: ConversationView) => ConversationView,
): ConversationView[] {
  let changed = false;
  const next = list.map((c) => {
    if (c.id !== id) return c;
    changed = true;
    return change(c);
  });
  return changed ? next : list;
}

/** The newest stored message that remains, as the list shows it. */
function lastOf(messages: ChatMessage[]) {
  const last = [...messages].reverse().find((m) => !isLocal(m));
  return { last_message: last?.message ?? null, last_message_time: last?.sent_at ?? null };
}

// -------------------------------------------------------------------------------------------
// Conversation lists

export const conversationsLoadStart = (s: ChatState): ChatState => ({
  ...s,
  isLoadingConversations: true,
  error: null,
});

/** The first page replaces the list; a later page (with `append`) adds the ones not shown. */
export function conversationsLoaded(
  s: ChatState,
  conversations: ConversationView[],
  meta: PageMeta,
  append = false,
): ChatState {
  const base = append ? s.conversations : [];
  const seen = new Set(base.map((c) => c.id));
  const next = [...base, ...conversations.filter((c) => !seen.has(c.id))];
  const open = s.activeConversationId;
  const shown = open ? openConversation(s) : null;
  const stillListed =
    next.some((c) => c.id === open) || s.archivedConversations.some((c) => c.id === open);
  return {
    ...s,
    conversations: next,
    openOffList: shown && !stillListed ? shown : null,
    conversationsCursor: meta.next_cursor,
    hasMoreConversations: meta.has_more,
    isLoadingConversations: false,
  };
}

export const archivedLoaded = (s: ChatState, archived: ConversationView[]): ChatState => ({
  ...s,
  archivedConversations: archived,
});

export const chatFailed = (s: ChatState, error: string): ChatState => ({
  ...s,
  isLoadingConversations: false,
  isLoadingMessages: false,
  isLoadingMore: false,
  error,
});

// -------------------------------------------------------------------------------------------
// The open conversation

/**
 * docs/domain.md "Client state": selecting another conversation clears messages and resets
 * pagination.
 */
export function selectConversation(s: ChatState, id: string | null): ChatState {
  if (id === s.activeConversationId) return s;
  return {
    ...s,
    activeConversationId: id,
    openOffList: null,
    messages: [],
    syncedSeq: 0,
    roomSynced: false,
    roomClosed: false,
    failedOpens: 0,
    cursor: null,
    hasMore: false,
    isLoadingMessages: false,
    isLoadingMore: false,
  };
}

export const messagesLoadStart = (s: ChatState, older: boolean): ChatState =>
  older ? { ...s, isLoadingMore: true } : { ...s, isLoadingMessages: true, error: null };

/**
 * docs/domain.md "Client state": the first page (no cursor) zeroes the conversation's unread count;
 * a page loaded with a cursor prepends older messages. A page for a conversation that is no longer
 * open is dropped. Messages that arrived live while the page was loading are kept.
 */
export function messagesLoaded(
  s: ChatState,
  conversationId: string,
  page: { messages: ChatMessageView[]; meta: PageMeta },
  withCursor: boolean,
): ChatState {
  if (conversationId !== s.activeConversationId) return s;
  const messages = mergeMessages(s.messages, page.messages);
  if (withCursor) {
    return {
      ...s,
      messages,
      cursor: page.meta.next_cursor,
      hasMore: page.meta.has_more,
      isLoadingMore: false,
    };
  }
  return {
    ...s,
    messages,
    syncedSeq: Math.max(s.syncedSeq, highestSeq(page.messages)),
    cursor: page.meta.next_cursor,
    hasMore: page.meta.has_more,
    isLoadingMessages: false,
    conversations: updateEntry(s.conversations, conversationId, (c) => ({ ...c, unread_count: 0 })),
    archivedConversations: updateEntry(s.archivedConversations, conversationId, (c) => ({
      ...c,
      unread_count: 0,
    })),
  };
}

/**
 * A conversation whose newest messages came with the page: it is the open one, with its messages
 * (as `messagesLoaded` of the first page). Nothing changes without one.
 */
export function conversationOpened(
  s: ChatState,
  opened: { id: string; messages: ChatMessageView[]; meta: PageMeta } | null,
): ChatState {
  if (!opened) return s;
  return messagesLoaded(selectConversation(s, opened.id), opened.id, opened, false);
}

/** The highest sequence number held for the open conversation. */
export const lastSeq = (s: ChatState): number =>
  s.messages.reduce((max, m) => (isLocal(m) ? max : Math.max(max, m.seq)), 0);

const highestSeq = (messages: ChatMessageView[]) =>
  messages.reduce((max, m) => Math.max(max, m.seq), 0);

/** Where a catch-up starts: after every message known to be held (`syncedSeq`). */
export const catchUpFrom = (s: ChatState): number => s.syncedSeq;

/**
 * Messages fetched after `catchUpFrom` (a socket reconnected): merged by id; everything up to the
 * newest of them is held now.
 */
export function caughtUp(
  s: ChatState,
  conversationId: string,
  messages: ChatMessageView[],
): ChatState {
  if (conversationId !== s.activeConversationId) return s;
  const merged = mergeMessages(s.messages, messages);
  const newest = messages.at(-1);
  if (!newest) return s;
  const syncedSeq = Math.max(s.syncedSeq, highestSeq(messages));
  if (merged === s.messages) return syncedSeq === s.syncedSeq ? s : { ...s, syncedSeq };
  return {
    ...s,
    syncedSeq,
    messages: merged,
    conversations: moveToTop(
      updateEntry(s.conversations, conversationId, (c) => ({ ...c, ...lastOf(merged) })),
      conversationId,
    ),
  };
}

function moveToTop(list: ConversationView[], id: string): ConversationView[] {
  const entry = list.find((c) => c.id === id);
  return entry ? [entry, ...list.filter((c) => c.id !== id)] : list;
}

/**
 * docs/domain.md "Client state": an incoming message is added to the open conversation unless
 * already present, and updates that list entry's last message and time (moving it to the top); a
 * message from another member increments unread_count only when its conversation is not the open
 * one. A message without an id is ignored (docs/domain.md "Client state").
 */
export function messageReceived(s: ChatState, message: ChatMessageView, me: string): ChatState {
  if (!message?.id) return s;
  const open = message.conversation_id === s.activeConversationId;
  const already = open && s.messages.some((m) => m.id === message.id);
  if (already) return s;
  const messages = open ? mergeMessages(s.messages, [{ ...message, live: true }]) : s.messages;
  const fromOther = message.sender_id !== me;
  const touch = (c: ConversationView): ConversationView => ({
    ...c,
    last_message: message.message,
    last_message_time: message.sent_at,
    unread_count: fromOther && !open ? c.unread_count + 1 : c.unread_count,
  });
  return {
    ...s,
    messages,
    conversations: moveToTop(
      updateEntry(s.conversations, message.conversation_id, touch),
      message.conversation_id,
    ),
  };
}

/** What a gift message shows when it came without text: its icon and name. */
export const giftText = (gift: Gift) => `${gift.icon} ${gift.name}`;

/** The text the member wrote with a message: none for a gift that came alone. */
export const typedText = (m: Pick<ChatMessageView, "message" | "gift">): string =>
  m.gift && m.message === giftText(m.gift) ? "" : m.message;

/** A message written here, as it shows until the server has it (pending). */
export function localMessage(m: {
  conversationId: string;
  senderId: string;
  clientId: string;
  text: string;
  gift: Gift | null;
  writtenAt: string;
  /** A photo or voice note on its way: shown from this device (a `blob:` URL) until stored. */
  attachment?: AttachmentView | null;
}): ChatMessage {
  return {
    id: `local-${m.clientId}`,
    conversation_id: m.conversationId,
    seq: 0,
    sender_id: m.senderId,
    client_id: m.clientId,
    message: m.text.trim() || (m.gift ? giftText(m.gift) : ""),
    sent_at: m.writtenAt,
    read_at: null,
    gift: m.gift,
    reactions: [],
    delivered_at: null,
    attachment: m.attachment ?? null,
    status: "pending",
  };
}

/** A message written here, shown at once while it is sent. */
export function sendQueued(s: ChatState, local: ChatMessage): ChatState {
  if (local.conversation_id !== s.activeConversationId) return s;
  return {
    ...s,
    messages: [...s.messages, { ...local, status: "pending", failureReason: null, live: true }],
  };
}

/** The server stored it: the local message becomes the stored one (once, whatever came first). */
export function sendSucceeded(s: ChatState, message: ChatMessageView, me: string): ChatState {
  return messageReceived(s, message, me);
}

export function sendFailed(
  s: ChatState,
  clientId: string,
  reason: string,
  needsConfirm = false,
): ChatState {
  return {
    ...s,
    messages: s.messages.map((m) =>
      isLocal(m) && m.client_id === clientId
        ? { ...m, status: "failed", failureReason: reason, needsConfirm }
        : m,
    ),
  };
}

/**
 * The network could not take it (offline, the connection dropped): it stays pending, kept on this
 * device, and goes again when the connection returns.
 */
export function sendWaiting(s: ChatState, clientId: string): ChatState {
  return {
    ...s,
    messages: s.messages.map((m) =>
      isLocal(m) && m.client_id === clientId ? { ...m, status: "pending", waiting: true } : m,
    ),
  };
}

/** The pending messages that wait for the connection, in the order they were written. */
export const waitingMessages = (s: ChatState): ChatMessage[] =>
  s.messages.filter((m) => m.status === "pending" && m.waiting);

/** Trying again: the failed message is pending again (with the same client id). */
export function retryQueued(s: ChatState, clientId: string): ChatState {
  return {
    ...s,
    messages: s.messages.map((m) =>
      isLocal(m) && m.client_id === clientId
        ? { ...m, status: "pending", failureReason: null, waiting: false }
        : m,
    ),
  };
}

/** A failed message the member gave up on. */
export const discardLocal = (s: ChatState, clientId: string): ChatState => ({
  ...s,
  messages: s.messages.filter((m) => !(isLocal(m) && m.client_id === clientId)),
});

/** docs/domain.md "Client state": deleting marks the message as deleting… */
export const deleteStarted = (s: ChatState, id: string): ChatState => ({
  ...s,
  messages: s.messages.map((m) => (m.id === id ? { ...m, deleting: true } : m)),
});

/**
 * …then removes it on success (or when the room says it was deleted), and the conversation's last
 * message is recomputed from the remaining messages.
 */
export function messageRemoved(s: ChatState, conversationId: string, id: string): ChatState {
  if (conversationId !== s.activeConversationId) return s;
  if (!s.messages.some((m) => m.id === id)) return s;
  const messages = s.messages.filter((m) => m.id !== id);
  return {
    ...s,
    messages,
    conversations: updateEntry(s.conversations, conversationId, (c) => ({
      ...c,
      ...lastOf(messages),
    })),
  };
}

/** …or clears the flag on failure. */
export const deleteFailed = (s: ChatState, id: string, error: string): ChatState => ({
  ...s,
  messages: s.messages.map((m) => (m.id === id ? { ...m, deleting: false } : m)),
  error,
});

/** The other member read up to `seq`: my messages up to it get their read time. */
export function readReceipt(
  s: ChatState,
  frame: { conversation_id: string; user_id: string; read_at: string; seq: number },
  me: string,
): ChatState {
  if (frame.conversation_id !== s.activeConversationId || frame.user_id === me) return s;
  let changed = false;
  const messages = s.messages.map((m) => {
    if (isLocal(m) || m.sender_id !== me || m.read_at || m.seq > frame.seq) return m;
    changed = true;
    return { ...m, read_at: frame.read_at };
  });
  return changed ? { ...s, messages } : s;
}

/**
 * A device of the other member received my messages `ids`: they show "Delivered" (unless read
 * already, which says more).
 */
export function deliveredReceipt(
  s: ChatState,
  frame: { conversation_id: string; ids: string[]; delivered_at: string },
  me: string,
): ChatState {
  if (frame.conversation_id !== s.activeConversationId) return s;
  const ids = new Set(frame.ids);
  let changed = false;
  const messages = s.messages.map((m) => {
    if (isLocal(m) || m.sender_id !== me || m.delivered_at || !ids.has(m.id)) return m;
    changed = true;
    return { ...m, delivered_at: frame.delivered_at };
  });
  return changed ? { ...s, messages } : s;
}

/**
 * `user_id` reacted to a message with `emoji` (replacing their reaction), or took it back (null).
 * Applied the same way to the live frame and to the member's own tap, before the server answers.
 */
export function reactionChanged(
  s: ChatState,
  frame: { conversation_id: string; message_id: string; user_id: string; emoji: string | null },
): ChatState {
  if (frame.conversation_id !== s.activeConversationId) return s;
  let changed = false;
  const messages = s.messages.map((m) => {
    if (m.id !== frame.message_id) return m;
    const mine = m.reactions.find((r) => r.user_id === frame.user_id);
    if ((mine?.emoji ?? null) === frame.emoji) return m;
    changed = true;
    const others = m.reactions.filter((r) => r.user_id !== frame.user_id);
    return {
      ...m,
      reactions:
        frame.emoji === null ? others : [...others, { user_id: frame.user_id, emoji: frame.emoji }],
    };
  });
  return changed ? { ...s, messages } : s;
}

/**
 * A view-once photo was opened by its recipient (the room's frame, or this device opening it): it
 * is gone for both, its URL with it.
 */
export function attachmentOpened(
  s: ChatState,
  frame: { conversation_id: string; message_id: string; opened_at: string },
): ChatState {
  if (frame.conversation_id !== s.activeConversationId) return s;
  let changed = false;
  const messages = s.messages.map((m) => {
    if (m.id !== frame.message_id || !m.attachment || m.attachment.opened_at) return m;
    changed = true;
    return { ...m, attachment: { ...m.attachment, url: null, opened_at: frame.opened_at } };
  });
  return changed ? { ...s, messages } : s;
}

/** `user_id`'s reaction to a message as the state holds it (null when none). */
export const reactionOf = (s: ChatState, messageId: string, userId: string): string | null =>
  s.messages.find((m) => m.id === messageId)?.reactions.find((r) => r.user_id === userId)?.emoji ??
  null;

// -------------------------------------------------------------------------------------------
// Archive, start, member channel, gifts

/**
 * docs/domain.md "Client state": archiving removes it from the active list (into the archived one)
 * and closes it if open.
 */
export function conversationArchived(s: ChatState, id: string): ChatState {
  const entry = s.conversations.find((c) => c.id === id);
  const next = {
    ...s,
    conversations: s.conversations.filter((c) => c.id !== id),
    archivedConversations:
      entry && !s.archivedConversations.some((c) => c.id === id)
        ? [entry, ...s.archivedConversations].sort(byNewest)
        : s.archivedConversations,
  };
  return s.activeConversationId === id ? selectConversation(next, null) : next;
}

/**
 * docs/domain.md "Client state": unarchiving removes it from the archived list (back into the
 * active one).
 */
export function conversationUnarchived(s: ChatState, id: string): ChatState {
  const entry = s.archivedConversations.find((c) => c.id === id);
  return {
    ...s,
    archivedConversations: s.archivedConversations.filter((c) => c.id !== id),
    conversations:
      entry && !s.conversations.some((c) => c.id === id)
        ? [...s.conversations, entry].sort(byNewest)
        : s.conversations,
  };
}

/**
 * docs/domain.md "Client state": starting a conversation adds it to the list if new and opens it if
 * none is open, with the first message if one was returned.
 */
export function conversationStarted(
  s: ChatState,
  result: { conversation: ConversationView; message: ChatMessageView | null },
): ChatState {
  const { conversation, message } = result;
  const known = s.conversations.some((c) => c.id === conversation.id);
  let next: ChatState = {
    ...s,
    conversations: known
      ? updateEntry(s.conversations, conversation.id, () => conversation)
      : [conversation, ...s.conversations],
    archivedConversations: s.archivedConversations.filter((c) => c.id !== conversation.id),
  };
  if (next.activeConversationId === null) next = selectConversation(next, conversation.id);
  if (message && next.activeConversationId === conversation.id) {
    next = { ...next, messages: mergeMessages(next.messages, [message]) };
  }
  return next;
}

/**
 * A conversation changed (from the member's own channel): its list entry takes the new last
 * message, time and unread count (none for the open one, which is being read). A new message
 * brings an archived conversation back to the active list (the server unarchived it). Returns the
 * state unchanged when the conversation is in neither list (the caller reloads the list then).
 */
export function conversationUpdated(s: ChatState, frame: ConversationFrame): ChatState {
  const open = frame.conversation_id === s.activeConversationId;
  const change = (c: ConversationView): ConversationView => ({
    ...c,
    last_message: frame.last_message,
    last_message_time: frame.last_message_time,
    unread_count: open ? 0 : frame.unread_count,
  });
  const archived = s.archivedConversations.find((c) => c.id === frame.conversation_id);
  if (archived && frame.message) {
    return {
      ...s,
      archivedConversations: s.archivedConversations.filter((c) => c.id !== archived.id),
      conversations: [change(archived), ...s.conversations.filter((c) => c.id !== archived.id)],
    };
  }
  const current = s.conversations.find((c) => c.id === frame.conversation_id);
  const newer = (frame.last_message_time ?? "") >= (current?.last_message_time ?? "");
  const conversations = updateEntry(s.conversations, frame.conversation_id, change);
  return {
    ...s,
    conversations:
      newer && frame.message ? moveToTop(conversations, frame.conversation_id) : conversations,
    archivedConversations: updateEntry(s.archivedConversations, frame.conversation_id, change),
  };
}

/** The conversation on screen: from the lists, or kept after a reload of them dropped it. */
export const openConversation = (s: ChatState): ConversationView | null =>
  s.conversations.find((c) => c.id === s.activeConversationId) ??
  s.archivedConversations.find((c) => c.id === s.activeConversationId) ??
  (s.openOffList?.id === s.activeConversationId ? s.openOffList : null);

export const isListed = (s: ChatState, id: string) =>
  s.conversations.some((c) => c.id === id) || s.archivedConversations.some((c) => c.id === id);

export const giftsLoaded = (s: ChatState, gifts: Gift[], userCredits: number): ChatState => ({
  ...s,
  gifts,
  userCredits,
});

export const creditsSpent = (s: ChatState, amount: number): ChatState => ({
  ...s,
  userCredits: Math.max(0, s.userCredits - amount),
});

/**
 * The conversation's socket caught up after opening (`synced`), or went down: while it is caught
 * up, the messages it brings are in order with none missed, and move `syncedSeq`.
 */
export const roomSyncChanged = (s: ChatState, conversationId: string, synced: boolean) =>
  conversationId !== s.activeConversationId || s.roomSynced === synced
    ? s
    : { ...s, roomSynced: synced };

/** After this many failed opens in a row, the page asks over HTTP whether the conversation is still open to it. */
export const ROOM_FAILED_OPENS_CHECK = 3;

/**
 * The open conversation was closed to this member (its room's 4403, or a 403 or 404 about it): for
 * good, until the member opens it again.
 */
export function conversationClosed(s: ChatState, conversationId: string): ChatState {
  if (conversationId !== s.activeConversationId || s.roomClosed) return s;
  return { ...s, roomClosed: true, roomSynced: false };
}

/**
 * Whether the server's answer about a conversation (a send, a catch-up) says it is closed to the
 * member: 403 (a block either way, an unmatch, a suspension, not theirs) or 404 (unknown). A
 * network failure, a limit or a "Are you sure?" says nothing of the kind.
 */
export const closesConversation = (error: unknown): boolean =>
  error instanceof ApiError && (error.status === 403 || error.status === 404);

/** A send or a catch-up of the conversation failed: closed when the answer says so (as 4403). */
export const conversationRefused = (s: ChatState, conversationId: string, error: unknown) =>
  closesConversation(error) ? conversationClosed(s, conversationId) : s;

/** The conversation's socket opened: no failed opens in a row any more. */
export const roomOpened = (s: ChatState, conversationId: string): ChatState =>
  conversationId !== s.activeConversationId || s.failedOpens === 0 ? s : { ...s, failedOpens: 0 };

/** The conversation's socket failed to open (the browser reads no status): one more in a row. */
export const roomOpenFailed = (s: ChatState, conversationId: string): ChatState =>
  conversationId !== s.activeConversationId || s.roomClosed
    ? s
    : { ...s, failedOpens: s.failedOpens + 1 };

/**
 * Whether the open conversation is to be checked over HTTP: its socket failed to open
 * ROOM_FAILED_OPENS_CHECK times in a row (and each time after), and it is not closed already.
 * A network that is down fails the check too, and closes nothing.
 */
export const roomNeedsCheck = (s: ChatState): boolean =>
  !s.roomClosed && s.failedOpens >= ROOM_FAILED_OPENS_CHECK;

/** Applies one frame of the open conversation's room. */
export function roomFrameReceived(s: ChatState, frame: ChatServerFrame, me: string): ChatState {
  switch (frame.type) {
    case "message": {
      const next = messageReceived(s, frame.message, me);
      const inOrder = s.roomSynced && frame.message.conversation_id === s.activeConversationId;
      return inOrder && frame.message.seq > next.syncedSeq
        ? { ...next, syncedSeq: frame.message.seq }
        : next;
    }
    case "message_deleted":
      return messageRemoved(s, frame.conversation_id, frame.id);
    case "read":
      return readReceipt(s, frame, me);
    case "delivered":
      return deliveredReceipt(s, frame, me);
    case "reaction":
      return reactionChanged(s, frame);
    case "attachment_opened":
      return attachmentOpened(s, frame);
    default:
      return s;
  }
}

/** The unread messages over all conversations: the header badge. */
export const totalUnread = (s: ChatState) =>
  s.conversations.reduce((n, c) => n + c.unread_count, 0);
