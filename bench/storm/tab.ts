/**
 * One member's browser tab in bench/storm, made of the app's own client modules: the realtime
 * client (app/realtime/client.ts: the member channel and presence, partysocket with the app's
 * jittered backoff), the socket ticket (app/realtime/ticket.ts, where the tree has it), the API
 * helper (app/lib/http.ts) and, for a member in a conversation, the chat page's store
 * (app/state/chat-actions.ts: its catch-up, its send with the socket first and HTTP after, its
 * waiting messages sent again when the connection returns) and the conversation socket
 * (app/realtime/chat-socket.ts).
 *
 * What wires them together on a page is React (app/components/realtime.tsx's RealtimeProvider,
 * app/components/chat/conversation-room.ts's useConversationRoom): `openTab` does what their
 * effects do, in the same order, with a jotai store of its own instead of a render tree.
 *
 * bench/storm/run.ts bundles this file against the tree under test (`~/` is that tree's app/) and
 * bench/storm/client.ts evaluates the bundle once per tab, with the tab's own `window`,
 * `document`, `fetch`, `WebSocket` (the member's cookie) and `console`: module state (the held
 * ticket, the tab's one realtime client, the open conversations) is the tab's, as in a browser.
 */
import { createStore } from "jotai";
import { api } from "~/lib/http";
import type { RootData } from "~/lib/root-data";
import { bellSync } from "~/realtime/bell";
import { connectConversation } from "~/realtime/chat-socket";
import { acquireRealtimeClient, watchPresence } from "~/realtime/client";
import { ReceivedBatch } from "~/realtime/received-batch";
import { setSocketTicket } from "~/realtime/ticket";
import { roomFrameReceived, type ChatMessage } from "~/state/chat";
import * as chatActions from "~/state/chat-actions";
import {
  catchUpAtom,
  chatMeAtom,
  chatStateAtom,
  chatTransportAtom,
  flushOutgoingAtom,
  openConversationAtom,
  sendMessageAtom,
} from "~/state/chat-actions";
import { LATEST_KEPT } from "~/state/notifications";

export interface TabEvents {
  /** The member channel (re)opened and the page's notifications were loaded again. */
  memberBack(): void;
  /** The presence room answered the page's watch set on a (re)opened socket. */
  presenceBack(): void;
  /** The conversation socket (re)opened and the page caught up and sent what waited. */
  chatBack(): void;
  /** A frame of the conversation arrived (its state changed). */
  chatFrame(): void;
  failed(what: string, error: unknown): void;
}

export interface TabOptions {
  memberId: string;
  root: RootData;
  /** Members the page shows (their presence is watched). */
  watch: string[];
  /** The conversation the page has open, if any. */
  conversation?: { id: string; otherId: string };
}

export interface Tab {
  /** Sends a message in the open conversation as the chat page does. */
  send(text: string, clientId: string): Promise<void>;
  /** The open conversation's messages as the page holds them. */
  messages(): ChatMessage[];
}

/**
 * The chat page's handling of its socket opening and going down: the tree's own
 * (`conversationRoomSync`), or, in a tree from before it, what its useConversationRoom did
 * (catch up from the highest number held, then send what waits).
 */
function roomSync(store: ReturnType<typeof createStore>, conversationId: string) {
  const own = (chatActions as Partial<typeof chatActions>).conversationRoomSync;
  if (own) return own(store, conversationId);
  return {
    opened: () =>
      store
        .set(catchUpAtom)
        .catch(() => {})
        .then(() => store.set(flushOutgoingAtom)),
    down: () => {},
    failed: () => Promise.resolve(),
  };
}

export async function openTab(options: TabOptions, events: TabEvents): Promise<Tab> {
  const { memberId, conversation } = options;
  // RealtimeProvider: the page's ticket first, then the client and its listeners.
  setSocketTicket(options.root.socketTicket);
  const client = acquireRealtimeClient(memberId);
  if (!client) throw new Error("no realtime client (no window or WebSocket)");
  client.onPresence({
    frame: (frame, answered) => {
      if (frame.type === "here" && answered !== null) events.presenceBack();
    },
    down: () => {},
  });
  // Each (re)connection may have missed frames: the page takes its notifications afresh, unless
  // the hub's hello says the bell did not change meanwhile (app/realtime/bell.ts; a tree from
  // before it loads on every opening).
  let loading = false;
  const bell = bellSync(() => {
    loading = true;
    void api(`/notifications?per_page=${LATEST_KEPT}`).then(
      () => {
        loading = false;
        events.memberBack();
      },
      (error: unknown) => events.failed("notifications", error),
    );
  });
  client.onMemberChannel({
    open: () => bell.opened(),
    frame: (frame) => {
      bell.frame(frame);
      if (frame.type === "hello" && !loading) events.memberBack();
    },
  });
  watchPresence(options.watch);

  const store = createStore();
  if (conversation) {
    // The chat page: the conversation opened (its newest page), then its room.
    store.set(chatMeAtom, memberId);
    await store.set(openConversationAtom, conversation.id);
    const socketRef: { current: ReturnType<typeof connectConversation> | null } = {
      current: null,
    };
    const received = new ReceivedBatch((ids) => socketRef.current?.received(ids) ?? false);
    const sync = roomSync(store, conversation.id);
    const socket = connectConversation(conversation.id, {
      open: () => {
        received.flush();
        void sync.opened().then(
          () => events.chatBack(),
          (error: unknown) => events.failed("flush", error),
        );
      },
      down: () => sync.down(),
      failed: () => void sync.failed().catch(() => {}),
      frame: (frame) => {
        if (frame.type === "call" || frame.type === "call_error" || frame.type === "typing") return;
        if (
          frame.type === "message" &&
          frame.message.sender_id === conversation.otherId &&
          !frame.message.delivered_at &&
          document.visibilityState !== "visible"
        ) {
          received.add(frame.message.id);
        }
        store.set(chatStateAtom, (s) => roomFrameReceived(s, frame, memberId));
        events.chatFrame();
      },
      forbidden: () => events.failed("conversation", new Error("forbidden")),
    });
    socketRef.current = socket;
    store.set(chatTransportAtom, {
      conversationId: conversation.id,
      send: (input) => socket.send(input),
      read: () => socket.read(),
      react: (messageId, emoji) => socket.react(messageId, emoji),
    });
  }
  return {
    send: (text, clientId) => store.set(sendMessageAtom, { text, clientId }),
    messages: () => store.get(chatStateAtom).messages,
  };
}
