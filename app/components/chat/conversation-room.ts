import { useCallback, useEffect, useRef, useState } from "react";
import { connectConversation, type ConversationSocket } from "~/realtime/chat-socket";
import { TYPING_DISPLAY_MS } from "~/realtime/chat";
import {
  catchUpAtom,
  chatMeAtom,
  chatStateAtom,
  chatTransportAtom,
  markReadAtom,
} from "~/state/chat-actions";
import { roomFrameReceived, type ChatMessage } from "~/state/chat";
import { useAtomValue, useSetAtom } from "~/state/jotai";

/**
 * The open conversation's room: applies its frames to the chat state, catches up on every
 * (re)connect (messages after the last one held, merged by id), and shows the other member typing.
 */
export function useConversationRoom(conversationId: string, otherId: string) {
  const me = useAtomValue(chatMeAtom);
  const setState = useSetAtom(chatStateAtom);
  const catchUp = useSetAtom(catchUpAtom);
  const setTransport = useSetAtom(chatTransportAtom);
  const [typing, setTyping] = useState(false);
  const [closed, setClosed] = useState(false);
  const [connected, setConnected] = useState(false);
  const socketRef = useRef<ConversationSocket | null>(null);

  useEffect(() => {
    setTyping(false);
    setClosed(false);
    setConnected(false);
    let typingTimer: ReturnType<typeof setTimeout> | undefined;
    const socket = connectConversation(conversationId, {
      open: () => {
        setConnected(true);
        void catchUp().catch(() => {});
      },
      down: () => setConnected(false),
      frame: (frame) => {
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
        }
        setState((s) => roomFrameReceived(s, frame, me));
      },
      forbidden: () => setClosed(true),
    });
    socketRef.current = socket;
    setTransport({
      conversationId,
      send: (input) => socket.send(input),
      read: () => socket.read(),
    });
    return () => {
      clearTimeout(typingTimer);
      setTransport(null);
      socket.close();
      socketRef.current = null;
    };
  }, [conversationId, otherId, me, setState, catchUp, setTransport]);

  const sendTyping = useCallback(() => socketRef.current?.typing(), []);
  return { typing, closed, connected, sendTyping };
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
