import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import { connectConversation, type ConversationSocket } from "~/realtime/chat-socket";
import { ReceivedBatch } from "~/realtime/received-batch";
import { TYPING_DISPLAY_MS, type CallClientFrame, type ChatServerFrame } from "~/realtime/chat";
import {
  chatMeAtom,
  chatStateAtom,
  chatTransportAtom,
  conversationRoomSync,
  flushOutgoingAtom,
  markReadAtom,
} from "~/state/chat-actions";
import { roomFrameReceived, type ChatMessage } from "~/state/chat";
import { useAtomValue, useSetAtom, useStore } from "~/state/jotai";

/**
 * The open conversation's room: applies its frames to the chat state, catches up on every
 * (re)connect (messages after the last one held, merged by id), shows the other member typing, and
 * acknowledges the other member's live messages (the sender sees "Delivered"; pages fetched are
 * delivered by the server).
 */
export function useConversationRoom(
  conversationId: string,
  otherId: string,
  /** Where a call's frames go (`call`, `call_error`): the thread's call (call.tsx). */
  onCall?: RefObject<(frame: Extract<ChatServerFrame, { type: "call" | "call_error" }>) => void>,
) {
  const me = useAtomValue(chatMeAtom);
  const setState = useSetAtom(chatStateAtom);
  const store = useStore();
  const setTransport = useSetAtom(chatTransportAtom);
  const flush = useSetAtom(flushOutgoingAtom);
  const [typing, setTyping] = useState(false);
  const [connected, setConnected] = useState(false);
  // Closed to the member (app/state/chat.ts `roomClosed`): by the room's 4403, or by a 403 or 404
  // to a send or a catch-up of it.
  const chat = useAtomValue(chatStateAtom);
  const closed = chat.activeConversationId === conversationId && chat.roomClosed;
  const socketRef = useRef<ConversationSocket | null>(null);

  useEffect(() => {
    setTyping(false);
    setConnected(false);
    let typingTimer: ReturnType<typeof setTimeout> | undefined;
    // The other member's live messages this device has yet to acknowledge: the first at once,
    // then at most one frame a second (app/realtime/received-batch.ts).
    const received = new ReceivedBatch((ids) => socketRef.current?.received(ids) ?? false);
    const sync = conversationRoomSync(store, conversationId);
    let open = false;
    const socket = connectConversation(conversationId, {
      open: () => {
        open = true;
        setConnected(true);
        received.flush();
        void sync.opened().catch(() => {});
      },
      down: () => {
        open = false;
        setConnected(false);
        sync.down();
      },
      failed: () => void sync.failed().catch(() => {}),
      frame: (frame) => {
        if (frame.type === "call" || frame.type === "call_error") {
          onCall?.current?.(frame);
          return;
        }
        if (frame.type === "typing") {
          if (frame.user_id !== otherId) return;
          setTyping(true);
          clearTimeout(typingTimer);
          typingTimer = setTimeout(() => setTyping(false), TYPING_DISPLAY_MS);
          return;
        }
        if (frame.type === "message" && frame.message.sender_id === otherId) {
          clearTimeout(typingTimer);
          setTyping(false);
          // A page in view reads it at once (useReadReceipts), which delivers it too; a page in
          // the background says it has it.
          if (!frame.message.delivered_at && document.visibilityState !== "visible") {
            received.add(frame.message.id);
          }
        }
        setState((s) => roomFrameReceived(s, frame, me));
      },
      forbidden: () => sync.forbidden(),
    });
    socketRef.current = socket;
    setTransport({
      conversationId,
      send: (input) => socket.send(input),
      read: () => socket.read(),
      react: (messageId, emoji) => socket.react(messageId, emoji),
    });
    // The browser is online again: the waiting messages go (by HTTP if the socket is still down),
    // and a socket still down (it may wait a while to retry) does not keep a conversation closed
    // meanwhile looking open: HTTP says at once.
    const online = () => {
      void flush();
      if (!open) void sync.check().catch(() => {});
    };
    window.addEventListener("online", online);
    return () => {
      window.removeEventListener("online", online);
      clearTimeout(typingTimer);
      received.stop();
      setTransport(null);
      socket.close();
      socketRef.current = null;
    };
  }, [conversationId, otherId, me, setState, store, setTransport, flush, onCall]);

  // A conversation closed to the member: its socket stays closed (after a 4403 it is already).
  useEffect(() => {
    if (closed) socketRef.current?.close();
  }, [closed]);

  const sendTyping = useCallback(() => socketRef.current?.typing(), []);
  const sendCall = useCallback(
    (frame: Omit<CallClientFrame, "type">) => socketRef.current?.call(frame) ?? false,
    [],
  );
  return { typing, closed, connected, sendTyping, sendCall };
}

/**
 * Tells the server the member has read what arrived: when the other member's newest message is
 * still unread here (read_at is set once this member has read it) and the page is visible. Once
 * per new message; the first page was already marked read by the server.
 */
export function useReadReceipts(conversationId: string, messages: ChatMessage[], me: string) {
  const markRead = useSetAtom(markReadAtom);
  const sentUpTo = useRef(0);
  const newestUnread = messages.reduce(
    (max, m) => (m.sender_id !== me && !m.status && !m.read_at && m.seq > max ? m.seq : max),
    0,
  );
  useEffect(() => {
    sentUpTo.current = 0;
  }, [conversationId]);
  useEffect(() => {
    if (newestUnread <= sentUpTo.current) return;
    const send = () => {
      if (document.visibilityState !== "visible" || newestUnread <= sentUpTo.current) return;
      sentUpTo.current = newestUnread;
      void markRead(conversationId).catch(() => {
        sentUpTo.current = 0;
      });
    };
    const timer = setTimeout(send, 250);
    document.addEventListener("visibilitychange", send);
    return () => {
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", send);
    };
  }, [conversationId, newestUnread, markRead]);
}
