import { describe, expect, it } from "vitest";
import { ApiError } from "~/lib/http";
import type { ChatMessageView } from "~/realtime/chat";
import type { ConversationView } from "~/schemas/chat";
import {
  CHAT_ERRORS,
  caughtUp,
  catchUpFrom,
  chatErrorMessage,
  conversationArchived,
  conversationClosed,
  conversationOpened,
  conversationRefused,
  closesConversation,
  conversationsLoaded,
  conversationStarted,
  conversationUnarchived,
  conversationUpdated,
  creditsSpent,
  deleteFailed,
  deleteStarted,
  discardLocal,
  failureReason,
  giftsLoaded,
  initialChatState,
  openConversation,
  lastSeq,
  mergeMessages,
  messageReceived,
  messageRemoved,
  messagesLoaded,
  messagesLoadStart,
  deliveredReceipt,
  attachmentOpened,
  reactionChanged,
  reactionOf,
  readReceipt,
  retryQueued,
  roomFrameReceived,
  roomNeedsCheck,
  roomOpened,
  roomOpenFailed,
  roomSyncChanged,
  ROOM_FAILED_OPENS_CHECK,
  selectConversation,
  sendFailed,
  sendQueued,
  sendSucceeded,
  sendWaiting,
  localMessage,
  typedText,
  totalUnread,
  waitingMessages,
  type ChatMessage,
  type ChatState,
} from "~/state/chat";
import { memberCard } from "../helpers/cards";

const ME = "me";
const OTHER = "other";

function conversation(id: string, extra: Partial<ConversationView> = {}): ConversationView {
  return {
    id,
    last_message: null,
    last_message_time: null,
    unread_count: 0,
    user_id: `${id}-user`,
    user: memberCard(`${id}-user`, { username: `${id}user` }),
    ...extra,
  };
}

function message(seq: number, extra: Partial<ChatMessageView> = {}): ChatMessageView {
  return {
    id: `m${seq}`,
    conversation_id: "c1",
    seq,
    sender_id: OTHER,
    client_id: null,
    message: `text ${seq}`,
    sent_at: `2026-01-01T00:00:${String(seq).padStart(2, "0")}.000Z`,
    read_at: null,
    gift: null,
    reactions: [],
    delivered_at: null,
    attachment: null,
    ...extra,
  };
}

const meta = (has_more = false, next_cursor: string | null = null) => ({ has_more, next_cursor });

/** A state with conversations c1 (open, holding `messages`) and c2. */
function openState(messages: ChatMessage[] = [], extra: Partial<ChatState> = {}): ChatState {
  return {
    ...initialChatState,
    conversations: [
      conversation("c1", { last_message: "old", last_message_time: "2026-01-01T00:00:00.000Z" }),
      conversation("c2", {
        last_message: "hey",
        last_message_time: "2025-12-31T00:00:00.000Z",
        unread_count: 2,
      }),
    ],
    activeConversationId: "c1",
    messages,
    ...extra,
  };
}

describe("selecting a conversation", () => {
  it("clears messages and resets pagination when another conversation is selected", () => {
    const s = openState([message(1)], { cursor: "5", hasMore: true, isLoadingMore: true });
    const next = selectConversation(s, "c2");
    expect(next).toMatchObject({
      activeConversationId: "c2",
      messages: [],
      cursor: null,
      hasMore: false,
      isLoadingMore: false,
    });
  });

  it("changes nothing when the same conversation is selected again", () => {
    const s = openState([message(1)]);
    expect(selectConversation(s, "c1")).toBe(s);
  });
});

describe("loading messages", () => {
  it("the first page zeroes the conversation's unread count", () => {
    const s = selectConversation(openState(), "c2");
    const next = messagesLoaded(
      messagesLoadStart(s, false),
      "c2",
      { messages: [message(1, { conversation_id: "c2" })], meta: meta(true, "1") },
      false,
    );
    expect(next.conversations.find((c) => c.id === "c2")!.unread_count).toBe(0);
    expect(next).toMatchObject({ cursor: "1", hasMore: true, isLoadingMessages: false });
    expect(next.messages.map((m) => m.id)).toEqual(["m1"]);
  });

  it("the conversation whose messages came with the page opens with them, read", () => {
    const listed = conversationsLoaded(initialChatState, openState().conversations, meta());
    expect(conversationOpened(listed, null)).toBe(listed);
    const page = { messages: [message(1, { conversation_id: "c2" })], meta: meta(true, "1") };
    const next = conversationOpened(listed, { id: "c2", ...page });
    expect(next).toMatchObject({ activeConversationId: "c2", cursor: "1", hasMore: true });
    expect(next.messages.map((m) => m.id)).toEqual(["m1"]);
    expect(next.conversations.find((c) => c.id === "c2")!.unread_count).toBe(0);
    // Coming back to the page with it open keeps the messages that arrived live since.
    const live = messageReceived(next, message(2, { conversation_id: "c2" }), ME);
    expect(conversationOpened(live, { id: "c2", ...page }).messages.map((m) => m.seq)).toEqual([
      1, 2,
    ]);
  });

  it("a page loaded with a cursor prepends older messages", () => {
    const s = openState([message(51), message(52)], { cursor: "51", hasMore: true });
    const older = { messages: [message(49), message(50)], meta: meta(false) };
    const next = messagesLoaded(messagesLoadStart(s, true), "c1", older, true);
    expect(next.messages.map((m) => m.seq)).toEqual([49, 50, 51, 52]);
    expect(next).toMatchObject({ cursor: null, hasMore: false, isLoadingMore: false });
    // An older page leaves the unread count alone.
    expect(next.conversations).toBe(s.conversations);
  });

  it("drops a page for a conversation that is no longer open, and keeps live messages", () => {
    const s = openState([message(3)]);
    expect(messagesLoaded(s, "c2", { messages: [message(1)], meta: meta() }, false)).toBe(s);
    const next = messagesLoaded(
      s,
      "c1",
      { messages: [message(1), message(2)], meta: meta() },
      false,
    );
    expect(next.messages.map((m) => m.seq)).toEqual([1, 2, 3]);
  });

  it("catching up merges by id in seq order and updates the list entry", () => {
    const s = openState([message(1), message(2)]);
    expect(lastSeq(s)).toBe(2);
    const next = caughtUp(s, "c1", [message(2), message(3), message(4)]);
    expect(next.messages.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    expect(next.conversations[0]).toMatchObject({ id: "c1", last_message: "text 4" });
    expect(caughtUp(next, "c1", [message(4)])).toBe(next);
    expect(caughtUp(s, "c2", [message(9)])).toBe(s);
  });
});

describe("where a catch-up starts", () => {
  it("after what is known to be held, not after a message this device sent while its socket was down", () => {
    // The newest page: everything up to 2 is held.
    let s = conversationOpened(openState(), {
      id: "c1",
      messages: [message(1), message(2, { sender_id: ME })],
      meta: meta(),
    });
    expect(catchUpFrom(s)).toBe(2);
    // The socket is down; the other member writes 3 and 4 (unseen), then mine goes over HTTP: 5.
    s = roomSyncChanged(s, "c1", false);
    s = sendSucceeded(s, message(5, { sender_id: ME }), ME);
    expect(lastSeq(s)).toBe(5);
    expect(catchUpFrom(s)).toBe(2);
    // The socket comes back: a frame before the catch-up is done says nothing of 3 and 4.
    s = roomFrameReceived(s, { type: "message", message: message(6) }, ME);
    expect(catchUpFrom(s)).toBe(2);
    // The catch-up after 2 brings 3 and 4 (and 5 and 6 again, merged by id).
    s = caughtUp(s, "c1", [message(3), message(4), message(5, { sender_id: ME }), message(6)]);
    expect(s.messages.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(catchUpFrom(s)).toBe(6);
    // Caught up: the socket's frames arrive in order, none missed, and move it on.
    s = roomSyncChanged(s, "c1", true);
    s = roomFrameReceived(s, { type: "message", message: message(8) }, ME);
    expect(catchUpFrom(s)).toBe(8);
    // Down again: frames that still arrive (another tab's conversation, a late one) do not.
    s = roomSyncChanged(s, "c1", false);
    s = roomFrameReceived(s, { type: "message", message: message(9) }, ME);
    expect(catchUpFrom(s)).toBe(8);
    // Another conversation starts from nothing.
    expect(catchUpFrom(selectConversation(s, "c2"))).toBe(0);
  });
});

describe("an incoming message", () => {
  it("is added to the open conversation once, in seq order, and updates the list entry", () => {
    const s = openState([message(1), message(3)]);
    const next = messageReceived(s, message(2), ME);
    expect(next.messages.map((m) => m.seq)).toEqual([1, 2, 3]);
    expect(next.conversations[0]).toMatchObject({
      id: "c1",
      last_message: "text 2",
      last_message_time: message(2).sent_at,
      unread_count: 0,
    });
    expect(messageReceived(next, message(2), ME)).toBe(next);
  });

  it("is marked live, so that it slides in; history, a catch-up and my own sends are told apart", () => {
    const s = messagesLoaded(
      messagesLoadStart(openState(), false),
      "c1",
      { messages: [message(1)], meta: meta() },
      false,
    );
    const caught = caughtUp(s, "c1", [message(2)]);
    const next = messageReceived(caught, message(3), ME);
    expect(next.messages.map((m) => [m.seq, Boolean(m.live)])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    // Mine, written here: live while pending, and still once the server stored it.
    const pending = sendQueued(next, {
      ...message(0, { sender_id: ME, client_id: "k1" }),
      id: "local-k1",
    });
    expect(pending.messages.at(-1)).toMatchObject({ status: "pending", live: true });
    const stored = messageReceived(pending, message(4, { sender_id: ME, client_id: "k1" }), ME);
    expect(stored.messages.at(-1)).toMatchObject({ seq: 4, live: true });
    expect(stored.messages.at(-1)?.status).toBeUndefined();
  });

  it("from another member increments unread only when its conversation is not open, and moves it to the top", () => {
    const s = openState();
    const elsewhere = messageReceived(s, message(7, { conversation_id: "c2" }), ME);
    expect(elsewhere.conversations.map((c) => c.id)).toEqual(["c2", "c1"]);
    expect(elsewhere.conversations[0]).toMatchObject({ unread_count: 3, last_message: "text 7" });
    expect(elsewhere.messages).toEqual([]);
    // My own message elsewhere (another tab) does not count as unread.
    const mine = messageReceived(s, message(8, { conversation_id: "c2", sender_id: ME }), ME);
    expect(mine.conversations[0]).toMatchObject({ id: "c2", unread_count: 2 });
  });

  it("without an id is ignored", () => {
    const s = openState();
    expect(messageReceived(s, { ...message(1), id: "" }, ME)).toBe(s);
    expect(messageReceived(s, undefined as unknown as ChatMessageView, ME)).toBe(s);
  });
});

describe("sending (optimistic)", () => {
  const local = (clientId: string): ChatMessage => ({
    ...message(0, { sender_id: ME, client_id: clientId, id: `local-${clientId}` }),
    status: "pending",
  });

  it("shows the message at once as pending, after the stored ones", () => {
    const s = sendQueued(openState([message(1)]), local("a"));
    expect(s.messages.map((m) => [m.id, m.status])).toEqual([
      ["m1", undefined],
      ["local-a", "pending"],
    ]);
  });

  it("the acknowledgement replaces the pending message once, whether the live frame came first or not", () => {
    const queued = sendQueued(openState([message(1)]), local("a"));
    const stored = message(2, { sender_id: ME, client_id: "a" });
    const ackFirst = sendSucceeded(queued, stored, ME);
    expect(ackFirst.messages.map((m) => m.id)).toEqual(["m1", "m2"]);
    expect(ackFirst.messages[1]!.status).toBeUndefined();
    const frameFirst = messageReceived(queued, stored, ME);
    expect(sendSucceeded(frameFirst, stored, ME).messages.map((m) => m.id)).toEqual(["m1", "m2"]);
  });

  it("a failure marks it failed with the reason; retry makes it pending again; discard removes it", () => {
    const queued = sendQueued(openState(), local("a"));
    const failed = sendFailed(queued, "a", "Not enough credits");
    expect(failed.messages[0]).toMatchObject({
      status: "failed",
      failureReason: "Not enough credits",
    });
    expect(retryQueued(failed, "a").messages[0]).toMatchObject({
      status: "pending",
      failureReason: null,
    });
    expect(discardLocal(failed, "a").messages).toEqual([]);
  });

  it("a message the network did not take waits, pending, until it is sent again or stored", () => {
    const s = sendQueued(sendQueued(openState([message(1)]), local("a")), local("b"));
    const waiting = sendWaiting(s, "a");
    expect(waiting.messages[1]).toMatchObject({ status: "pending", waiting: true });
    expect(waitingMessages(waiting).map((m) => m.client_id)).toEqual(["a"]);
    // Sending it again: pending, no longer waiting.
    const again = retryQueued(waiting, "a");
    expect(again.messages[1]).toMatchObject({ status: "pending", waiting: false });
    expect(waitingMessages(again)).toEqual([]);
    // Stored (its live frame or the answer): the local message becomes the stored one, once.
    const stored = { ...message(2, { sender_id: ME }), client_id: "a" };
    const done = sendSucceeded(waiting, stored, ME);
    expect(done.messages.map((m) => m.id)).toEqual(["m1", "m2", "local-b"]);
    expect(waitingMessages(done)).toEqual([]);
  });

  it("a message written here shows its text, or a lone gift's icon and name, until stored", () => {
    const gift = { id: "rose", name: "Rose", icon: "🌹", price_credits: 5 };
    const base = { conversationId: "c1", senderId: ME, clientId: "k", writtenAt: "2026-01-01" };
    const alone = localMessage({ ...base, text: " ", gift });
    expect(alone).toMatchObject({ id: "local-k", message: "🌹 Rose", status: "pending" });
    expect(typedText(alone)).toBe("");
    const withText = localMessage({ ...base, text: " For you ", gift });
    expect(withText.message).toBe("For you");
    expect(typedText(withText)).toBe("For you");
  });

  it("keeps local messages after stored ones whatever arrives", () => {
    const s = sendQueued(openState([message(1)]), local("a"));
    const next = mergeMessages(s.messages, [message(5), message(3)]);
    expect(next.map((m) => m.id)).toEqual(["m1", "m3", "m5", "local-a"]);
  });
});

describe("a conversation closed to the member (docs/realtime.md: Close codes)", () => {
  const local = (clientId: string): ChatMessage => ({
    ...message(0, { sender_id: ME, client_id: clientId, id: `local-${clientId}` }),
    status: "pending",
  });

  it("the room's 4403 closes the open conversation, for good until it is opened again", () => {
    const s = openState([message(1)], { roomSynced: true });
    const closed = conversationClosed(s, "c1");
    expect(closed).toMatchObject({ roomClosed: true, roomSynced: false });
    expect(closed.messages).toBe(s.messages);
    expect(conversationClosed(closed, "c1")).toBe(closed);
    // The socket of a conversation no longer open closes nothing.
    expect(conversationClosed(s, "c2")).toBe(s);
    // Another conversation opens as usual, and so does this one when opened again.
    expect(selectConversation(closed, "c2").roomClosed).toBe(false);
    expect(selectConversation(selectConversation(closed, null), "c1").roomClosed).toBe(false);
  });

  it("a send answered 403 closes it as 4403 does: the message failed, the composer is disabled", () => {
    const queued = sendQueued(openState([message(1)]), local("a"));
    const refusal = new ApiError(403, "You can no longer message this member");
    const s = conversationRefused(sendFailed(queued, "a", failureReason(refusal)), "c1", refusal);
    expect(s.roomClosed).toBe(true);
    expect(s.messages.at(-1)).toMatchObject({
      status: "failed",
      failureReason: "You can no longer message this member",
    });
  });

  it("a catch-up answered 403 or 404 closes it; a network failure, a limit or a question does not", () => {
    const s = openState([message(1)]);
    expect(conversationRefused(s, "c1", new ApiError(403, "Forbidden")).roomClosed).toBe(true);
    expect(conversationRefused(s, "c1", new ApiError(404, "Not found")).roomClosed).toBe(true);
    for (const other of [
      new ApiError(409, "Are you sure?"),
      new ApiError(429, "Too many requests"),
      new ApiError(402, "Not enough credits"),
      new ApiError(401, "Unauthenticated"),
      new ApiError(500, "Server Error"),
      new TypeError("Failed to fetch"),
    ]) {
      expect(closesConversation(other), String(other)).toBe(false);
      expect(conversationRefused(s, "c1", other)).toBe(s);
    }
    // About a conversation that is no longer the open one: nothing.
    expect(conversationRefused(s, "c2", new ApiError(403, "Forbidden"))).toBe(s);
  });

  it(`after ${ROOM_FAILED_OPENS_CHECK} failed opens in a row the page asks over HTTP, whose 403 closes it`, () => {
    let s = openState([message(1)]);
    for (let i = 1; i < ROOM_FAILED_OPENS_CHECK; i++) {
      s = roomOpenFailed(s, "c1");
      expect(roomNeedsCheck(s)).toBe(false);
    }
    s = roomOpenFailed(s, "c1");
    expect(roomNeedsCheck(s)).toBe(true);
    // Offline, the check fails as the socket did: still open, asked again at the next failure.
    expect(conversationRefused(s, "c1", new TypeError("Failed to fetch")).roomClosed).toBe(false);
    s = roomOpenFailed(s, "c1");
    expect(roomNeedsCheck(s)).toBe(true);
    const closed = conversationRefused(s, "c1", new ApiError(403, "Forbidden"));
    expect(closed.roomClosed).toBe(true);
    expect(roomNeedsCheck(closed)).toBe(false);
    expect(roomOpenFailed(closed, "c1")).toBe(closed);
  });

  it("a socket that opens ends the run of failures; another conversation's socket counts nothing", () => {
    let s = openState([message(1)]);
    for (let i = 0; i < ROOM_FAILED_OPENS_CHECK; i++) s = roomOpenFailed(s, "c1");
    const reopened = roomOpened(s, "c1");
    expect(reopened.failedOpens).toBe(0);
    expect(roomNeedsCheck(roomOpenFailed(reopened, "c1"))).toBe(false);
    expect(roomOpened(reopened, "c1")).toBe(reopened);
    expect(roomOpenFailed(s, "c2")).toBe(s);
    expect(selectConversation(s, "c2").failedOpens).toBe(0);
  });
});

describe("deleting", () => {
  it("marks the message as deleting, then removes it and recomputes the last message", () => {
    const s = openState([message(1), message(2, { sender_id: ME })]);
    const marked = deleteStarted(s, "m2");
    expect(marked.messages[1]!.deleting).toBe(true);
    const removed = messageRemoved(marked, "c1", "m2");
    expect(removed.messages.map((m) => m.id)).toEqual(["m1"]);
    expect(removed.conversations[0]).toMatchObject({
      last_message: "text 1",
      last_message_time: message(1).sent_at,
    });
    const empty = messageRemoved(removed, "c1", "m1");
    expect(empty.conversations[0]).toMatchObject({ last_message: null, last_message_time: null });
  });

  it("clears the flag on failure and keeps the error", () => {
    const marked = deleteStarted(openState([message(1, { sender_id: ME })]), "m1");
    const failed = deleteFailed(marked, "m1", "HTTP error! status: 500");
    expect(failed.messages[0]!.deleting).toBe(false);
    expect(failed.error).toBe("HTTP error! status: 500");
  });

  it("ignores a deletion of another conversation or an unknown message", () => {
    const s = openState([message(1)]);
    expect(messageRemoved(s, "c2", "m1")).toBe(s);
    expect(messageRemoved(s, "c1", "nope")).toBe(s);
  });
});

describe("read receipts", () => {
  it("the other member's read sets read_at on my messages up to its seq", () => {
    const s = openState([
      message(1, { sender_id: ME }),
      message(2),
      message(3, { sender_id: ME }),
      message(4, { sender_id: ME }),
    ]);
    const frame = {
      conversation_id: "c1",
      user_id: OTHER,
      read_at: "2026-01-02T00:00:00.000Z",
      seq: 3,
    };
    const next = readReceipt(s, frame, ME);
    expect(next.messages.map((m) => m.read_at)).toEqual([frame.read_at, null, frame.read_at, null]);
    // My own reading, or another conversation, changes nothing.
    expect(readReceipt(s, { ...frame, user_id: ME }, ME)).toBe(s);
    expect(readReceipt(s, { ...frame, conversation_id: "c2" }, ME)).toBe(s);
  });
});

describe("delivery receipts", () => {
  it("a delivered frame sets delivered_at on my listed messages only, once", () => {
    const s = openState([message(1, { sender_id: ME }), message(2), message(3, { sender_id: ME })]);
    const frame = {
      conversation_id: "c1",
      ids: ["m1", "m2"],
      delivered_at: "2026-01-02T00:00:00Z",
    };
    const next = deliveredReceipt(s, frame, ME);
    expect(next.messages.map((m) => m.delivered_at)).toEqual([frame.delivered_at, null, null]);
    // Again (another tab's acknowledgement), or for another conversation: unchanged.
    expect(deliveredReceipt(next, { ...frame, delivered_at: "2026-01-03T00:00:00Z" }, ME)).toBe(
      next,
    );
    expect(deliveredReceipt(s, { ...frame, conversation_id: "c2" }, ME)).toBe(s);
    const viaRoom = roomFrameReceived(s, { type: "delivered", ...frame }, ME);
    expect(viaRoom.messages[0]!.delivered_at).toBe(frame.delivered_at);
  });
});

describe("reactions", () => {
  const change = { conversation_id: "c1", message_id: "m1" };

  it("keeps one reaction per member: set, replaced, taken back", () => {
    let s = openState([message(1), message(2)]);
    s = reactionChanged(s, { ...change, user_id: ME, emoji: "❤️" });
    s = reactionChanged(s, { ...change, user_id: OTHER, emoji: "😂" });
    expect(s.messages[0]!.reactions).toEqual([
      { user_id: ME, emoji: "❤️" },
      { user_id: OTHER, emoji: "😂" },
    ]);
    s = reactionChanged(s, { ...change, user_id: ME, emoji: "🔥" });
    expect(reactionOf(s, "m1", ME)).toBe("🔥");
    expect(s.messages[0]!.reactions).toHaveLength(2);
    s = reactionChanged(s, { ...change, user_id: OTHER, emoji: null });
    expect(s.messages[0]!.reactions).toEqual([{ user_id: ME, emoji: "🔥" }]);
    expect(s.messages[1]!.reactions).toEqual([]);
    expect(reactionOf(s, "m1", OTHER)).toBeNull();
  });

  it("changes nothing for the same reaction, another conversation or an unknown message", () => {
    const s = reactionChanged(openState([message(1)]), { ...change, user_id: ME, emoji: "❤️" });
    expect(reactionChanged(s, { ...change, user_id: ME, emoji: "❤️" })).toBe(s);
    expect(reactionChanged(s, { ...change, user_id: OTHER, emoji: null })).toBe(s);
    expect(reactionChanged(s, { ...change, conversation_id: "c2", user_id: ME, emoji: null })).toBe(
      s,
    );
    expect(reactionChanged(s, { ...change, message_id: "m9", user_id: ME, emoji: "😢" })).toBe(s);
    const viaRoom = roomFrameReceived(
      s,
      { type: "reaction", ...change, user_id: OTHER, emoji: "👍" },
      ME,
    );
    expect(viaRoom.messages[0]!.reactions).toHaveLength(2);
  });
});

describe("view-once photos", () => {
  const photo = {
    kind: "photo" as const,
    url: "/chat/attachments/m1",
    content_type: "image/png",
    size: 10,
    width: 4,
    height: 3,
    view_once: true,
    opened_at: null,
  };
  const frame = { conversation_id: "c1", message_id: "m1", opened_at: "2026-01-02T00:00:00Z" };

  it("is gone for both once opened: no URL, and when", () => {
    const s = openState([message(1, { attachment: photo }), message(2)]);
    const next = attachmentOpened(s, frame);
    expect(next.messages[0]!.attachment).toEqual({
      ...photo,
      url: null,
      opened_at: frame.opened_at,
    });
    expect(next.messages[1]).toBe(s.messages[1]);
    // The room's frame does the same; again, another conversation, a text: unchanged.
    expect(roomFrameReceived(s, { type: "attachment_opened", ...frame }, ME)).toEqual(next);
    expect(attachmentOpened(next, { ...frame, opened_at: "2026-01-03T00:00:00Z" })).toBe(next);
    expect(attachmentOpened(s, { ...frame, conversation_id: "c2" })).toBe(s);
    expect(attachmentOpened(s, { ...frame, message_id: "m2" })).toBe(s);
  });

  it("a photo sent from here shows from this device until stored", () => {
    const local = localMessage({
      conversationId: "c1",
      senderId: ME,
      clientId: "x",
      text: "📷 Photo",
      gift: null,
      writtenAt: "2026-01-01T00:00:00Z",
      attachment: { ...photo, url: "blob:here", view_once: false },
    });
    const s = sendQueued(openState([]), local);
    expect(s.messages[0]).toMatchObject({ status: "pending", attachment: { url: "blob:here" } });
    const stored = message(1, { client_id: "x", sender_id: ME, attachment: photo });
    const after = sendSucceeded(s, stored, ME);
    expect(after.messages).toHaveLength(1);
    expect(after.messages[0]!.attachment!.url).toBe("/chat/attachments/m1");
  });
});

describe("room frames", () => {
  it("applies message, deletion and read frames; ignores typing", () => {
    let s = openState();
    s = roomFrameReceived(s, { type: "message", message: message(1, { sender_id: ME }) }, ME);
    expect(s.messages).toHaveLength(1);
    s = roomFrameReceived(
      s,
      {
        type: "read",
        conversation_id: "c1",
        user_id: OTHER,
        read_at: "2026-01-02T00:00:00.000Z",
        seq: 1,
      },
      ME,
    );
    expect(s.messages[0]!.read_at).toBe("2026-01-02T00:00:00.000Z");
    expect(roomFrameReceived(s, { type: "typing", user_id: OTHER }, ME)).toBe(s);
    s = roomFrameReceived(s, { type: "message_deleted", id: "m1", conversation_id: "c1" }, ME);
    expect(s.messages).toEqual([]);
  });
});

describe("archiving", () => {
  it("removes the conversation from the active list and closes it when open", () => {
    const s = openState([message(1)]);
    const next = conversationArchived(s, "c1");
    expect(next.conversations.map((c) => c.id)).toEqual(["c2"]);
    expect(next.archivedConversations.map((c) => c.id)).toEqual(["c1"]);
    expect(next).toMatchObject({ activeConversationId: null, messages: [] });
    const other = conversationArchived(s, "c2");
    expect(other.activeConversationId).toBe("c1");
  });

  it("unarchiving removes it from the archived list", () => {
    const archived = conversationArchived(openState(), "c2");
    const next = conversationUnarchived(archived, "c2");
    expect(next.archivedConversations).toEqual([]);
    expect(next.conversations.map((c) => c.id)).toEqual(["c1", "c2"]);
  });
});

describe("starting a conversation", () => {
  it("adds it to the list if new and opens it when none is open, with the first message", () => {
    const s = { ...openState(), activeConversationId: null };
    const started = conversationStarted(s, {
      conversation: conversation("c3"),
      message: message(1, { conversation_id: "c3", sender_id: ME }),
    });
    expect(started.conversations.map((c) => c.id)).toEqual(["c3", "c1", "c2"]);
    expect(started.activeConversationId).toBe("c3");
    expect(started.messages.map((m) => m.id)).toEqual(["m1"]);
  });

  it("keeps the open conversation open and does not add a known one twice", () => {
    const s = openState([message(1)]);
    const started = conversationStarted(s, { conversation: conversation("c2"), message: null });
    expect(started.conversations.map((c) => c.id)).toEqual(["c1", "c2"]);
    expect(started.activeConversationId).toBe("c1");
    expect(started.messages.map((m) => m.id)).toEqual(["m1"]);
  });
});

describe("the member channel and lists", () => {
  it("a conversation frame updates that entry (no unread for the open one)", () => {
    const s = openState();
    const frame = {
      type: "conversation" as const,
      conversation_id: "c2",
      last_message: "new",
      last_message_time: "2026-02-01T00:00:00.000Z",
      unread_count: 3,
      message: { id: "x", sender_id: OTHER, message: "new", sent_at: "2026-02-01T00:00:00.000Z" },
    };
    const next = conversationUpdated(s, frame);
    expect(next.conversations.map((c) => c.id)).toEqual(["c2", "c1"]);
    expect(next.conversations[0]).toMatchObject({ last_message: "new", unread_count: 3 });
    const open = conversationUpdated(s, { ...frame, conversation_id: "c1" });
    expect(open.conversations[0]).toMatchObject({ id: "c1", unread_count: 0 });
    expect(totalUnread(next)).toBe(3);
  });

  it("a new message brings an archived conversation back to the active list", () => {
    const s = conversationArchived(openState(), "c2");
    const next = conversationUpdated(s, {
      type: "conversation",
      conversation_id: "c2",
      last_message: "back",
      last_message_time: "2026-02-01T00:00:00.000Z",
      unread_count: 1,
      message: { id: "y", sender_id: OTHER, message: "back", sent_at: "2026-02-01T00:00:00.000Z" },
    });
    expect(next.archivedConversations).toEqual([]);
    expect(next.conversations[0]).toMatchObject({
      id: "c2",
      last_message: "back",
      unread_count: 1,
    });
  });

  it("the first list page replaces, a later one appends what is new", () => {
    const first = conversationsLoaded(initialChatState, [conversation("a")], meta(true, "cur"));
    expect(first).toMatchObject({ conversationsCursor: "cur", hasMoreConversations: true });
    const more = conversationsLoaded(first, [conversation("a"), conversation("b")], meta(), true);
    expect(more.conversations.map((c) => c.id)).toEqual(["a", "b"]);
  });

  it("a reload of the lists that drops the open conversation keeps it on screen until it is left", () => {
    const listed = selectConversation(
      conversationsLoaded(initialChatState, [conversation("a"), conversation("b")], meta()),
      "b",
    );
    // Blocked from the thread: the reloaded lists no longer hold it, the thread stays.
    const reloaded = conversationsLoaded(listed, [conversation("a")], meta());
    expect(reloaded.conversations.map((c) => c.id)).toEqual(["a"]);
    expect(openConversation(reloaded)?.id).toBe("b");
    expect(openConversation(conversationsLoaded(reloaded, [conversation("a")], meta()))?.id).toBe(
      "b",
    );
    // Leaving it lets it go; a conversation never listed is not shown.
    expect(openConversation(selectConversation(reloaded, "a"))?.id).toBe("a");
    expect(openConversation(selectConversation(selectConversation(reloaded, "a"), "b"))).toBeNull();
    expect(openConversation(selectConversation(initialChatState, "zzz"))).toBeNull();
  });

  it("gifts and credits", () => {
    const s = giftsLoaded(
      initialChatState,
      [{ id: "rose", name: "Rose", icon: "🌹", price_credits: 5 }],
      12,
    );
    expect(s.userCredits).toBe(12);
    expect(creditsSpent(s, 5).userCredits).toBe(7);
    expect(creditsSpent(s, 50).userCredits).toBe(0);
  });
});

describe("error messages (docs/domain.md: Error messages)", () => {
  it("a non-OK response gives 'HTTP error! status: {code}', anything else the fallback", () => {
    expect(chatErrorMessage(new ApiError(500, "Server Error"), CHAT_ERRORS.conversations)).toBe(
      "HTTP error! status: 500",
    );
    expect(chatErrorMessage(new ApiError(403, "Nope"), CHAT_ERRORS.send)).toBe(
      "HTTP error! status: 403",
    );
    expect(chatErrorMessage(new TypeError("Failed to fetch"), CHAT_ERRORS.messages)).toBe(
      "Failed to fetch messages",
    );
    expect(Object.values(CHAT_ERRORS)).toEqual([
      "Failed to fetch conversations",
      "Failed to fetch archived conversations",
      "Failed to fetch messages",
      "Failed to send message",
      "Failed to start conversation",
      "Failed to archive conversation",
      "Failed to unarchive conversation",
      "Failed to fetch gifts",
      "Failed to delete message",
      "Failed to react to message",
      "Failed to open the photo",
    ]);
  });

  it("a failed message tells why when the server said", () => {
    expect(failureReason(new ApiError(402, "Not enough credits"))).toBe("Not enough credits");
    expect(failureReason(new ApiError(500, "HTTP error! status: 500"))).toBe(
      "HTTP error! status: 500",
    );
    expect(failureReason(new Error("offline"))).toBe("Failed to send message");
  });
});
