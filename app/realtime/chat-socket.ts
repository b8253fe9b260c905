import ReconnectingWebSocket from "partysocket/ws";
import { CONVERSATION_BACKOFF, jitteredOptions, retryHint } from "./backoff";
import { ApiError } from "~/lib/http";
import { Keepalive } from "./client";
import { RECEIVED_IDS_MAX } from "./frames";
import { SESSION_ENDED_CLOSE } from "./member";
import { conversationOpened } from "./open-conversations";
import { socketTicketRefused, socketUrl } from "./ticket";
import {
  CHAT_CLOSE_FORBIDDEN,
  parseChatServerFrame,
  TYPING_THROTTLE_MS,
  type ChatMessageView,
  type CallClientFrame,
  type ChatServerFrame,
  type SendFrame,
} from "./chat";

/** How long a message sent over the socket waits for its answer before going by HTTP. */
export const SEND_ACK_TIMEOUT_MS = 5_000;

export interface ConversationSocketEvents {
  /** The socket (re)opened: fetch what may have been missed while it was down. */
  open(): void;
  /** The socket dropped; it reconnects by itself (unless forbidden). */
  down(): void;
  /**
   * An attempt to connect ended before the socket opened: a browser reads no status from a
   * refused upgrade (nor from a network that is down), so the page asks over HTTP after a few.
   */
  failed(): void;
  frame(frame: ChatServerFrame): void;
  /** The room closed the conversation (a block): the socket will not come back. */
  forbidden(): void;
}

export interface ConversationSocket {
  /** Says "typing" to the other member (at most every TYPING_THROTTLE_MS). */
  typing(): void;
  /** Marks the conversation read; false when the socket is not open (use the HTTP API then). */
  read(): boolean;
  /**
   * Tells the room this device received the other member's messages `ids` (they show
   * "Delivered" to the sender); false when the socket is not open.
   */
  received(ids: string[]): boolean;
  /**
   * Sends a message over the socket. Resolves with the stored message (the room's `message` frame
   * with this client id); rejects with an ApiError when the server refused it, or with another
   * error when the socket is not open, closed, or gave no answer within SEND_ACK_TIMEOUT_MS.
   */
  send(frame: Omit<SendFrame, "type">): Promise<ChatMessageView>;
  /**
   * Sets or takes back the member's reaction over the socket. Resolves once the room answered
   * with the reaction; rejects with an ApiError when it refused it, or with another error when
   * the socket is not open, closed, or gave no answer in time (then HTTP does it).
   */
  react(messageId: string, emoji: string | null): Promise<void>;
  /**
   * Sends a call's signalling to the room (docs/api.md "Calls"); false when the socket is not open.
   * Refusals come back as `call_error` frames.
   */
  call(frame: Omit<CallClientFrame, "type">): boolean;
  close(): void;
}

/**
 * The open conversation's room (`/ws/chat/{id}`): one partysocket that reconnects by itself with
 * backoff, keeps alive with pings the room answers without waking, and parses every frame with the
 * shared union. Conversations that are not open are updated through the member channel instead.
 */
export function connectConversation(
  conversationId: string,
  events: ConversationSocketEvents,
): ConversationSocket {
  const base = window.location.origin.replace(/^http/, "ws");
  const retries = { attempts: 0, hintMs: 0 };
  const socket = new ReconnectingWebSocket(
    () => socketUrl(base, `/ws/chat/${encodeURIComponent(conversationId)}`),
    [],
    jitteredOptions(CONVERSATION_BACKOFF, retries, {
      maxEnqueuedMessages: 0,
      shouldReconnectOnClose: (event) => event.code !== CHAT_CLOSE_FORBIDDEN,
    }),
  );
  const keepalive = new Keepalive(
    () => socket.send(JSON.stringify({ type: "ping" })),
    () => socket.reconnect(4000, "keepalive timeout"),
  );
  const closeOpen = conversationOpened(conversationId);
  // Whether the current connection opened (a close without it is a failed attempt), and whether
  // the page closed the socket.
  let opened = false;
  let closed = false;
  let lastTyping = 0;
  const waiting = new Map<
    string,
    {
      resolve(m: ChatMessageView): void;
      reject(e: unknown): void;
      timer: ReturnType<typeof setTimeout>;
    }
  >();
  const reacting = new Map<
    string,
    {
      emoji: string | null;
      resolve(): void;
      reject(e: unknown): void;
      timer: ReturnType<typeof setTimeout>;
    }
  >();
  const settleReaction = (messageId: string) => {
    const entry = reacting.get(messageId);
    if (entry) {
      clearTimeout(entry.timer);
      reacting.delete(messageId);
    }
    return entry;
  };
  const settle = (clientId: string | null | undefined) => {
    const entry = clientId ? waiting.get(clientId) : undefined;
    if (entry) {
      clearTimeout(entry.timer);
      waiting.delete(clientId!);
    }
    return entry;
  };

  socket.addEventListener("open", () => {
    opened = true;
    retries.attempts = 0;
    retries.hintMs = 0;
    keepalive.activity();
    events.open();
  });
  socket.addEventListener("message", (event: MessageEvent) => {
    keepalive.activity();
    const frame = parseChatServerFrame(event.data);
    if (!frame || frame.type === "pong") return;
    if (frame.type === "send_error") {
      settle(frame.client_id)?.reject(new ApiError(frame.status, frame.message));
      return;
    }
    if (frame.type === "react_error") {
      settleReaction(frame.message_id)?.reject(new ApiError(frame.status, frame.message));
      return;
    }
    if (frame.type === "reaction" && reacting.get(frame.message_id)?.emoji === frame.emoji) {
      settleReaction(frame.message_id)?.resolve();
    }
    events.frame(frame);
    if (frame.type === "message") settle(frame.message.client_id)?.resolve(frame.message);
  });
  socket.addEventListener("close", (event) => {
    if (event.code === SESSION_ENDED_CLOSE) socketTicketRefused();
    retries.hintMs = retryHint(event.code, event.reason);
    keepalive.stop();
    for (const clientId of [...waiting.keys()]) {
      settle(clientId)?.reject(new Error("The chat connection closed."));
    }
    for (const messageId of [...reacting.keys()]) {
      settleReaction(messageId)?.reject(new Error("The chat connection closed."));
    }
    events.down();
    const failedAttempt = !opened;
    opened = false;
    if (event.code === CHAT_CLOSE_FORBIDDEN) events.forbidden();
    else if (failedAttempt && !closed) events.failed();
  });

  return {
    typing() {
      const now = Date.now();
      if (now - lastTyping < TYPING_THROTTLE_MS || socket.readyState !== socket.OPEN) return;
      lastTyping = now;
      socket.send(JSON.stringify({ type: "typing" }));
    },
    read() {
      if (socket.readyState !== socket.OPEN) return false;
      socket.send(JSON.stringify({ type: "read" }));
      return true;
    },
    received(ids) {
      if (socket.readyState !== socket.OPEN || ids.length === 0) return false;
      for (let i = 0; i < ids.length; i += RECEIVED_IDS_MAX) {
        socket.send(JSON.stringify({ type: "received", ids: ids.slice(i, i + RECEIVED_IDS_MAX) }));
      }
      return true;
    },
    send(frame) {
      return new Promise<ChatMessageView>((resolve, reject) => {
        if (socket.readyState !== socket.OPEN) {
          reject(new Error("The chat connection is not open."));
          return;
        }
        settle(frame.client_id)?.reject(new Error("Sent again."));
        const timer = setTimeout(() => {
          settle(frame.client_id)?.reject(new Error("No answer over the chat connection."));
        }, SEND_ACK_TIMEOUT_MS);
        waiting.set(frame.client_id, { resolve, reject, timer });
        socket.send(JSON.stringify({ type: "send", ...frame }));
      });
    },
    react(messageId, emoji) {
      return new Promise<void>((resolve, reject) => {
        if (socket.readyState !== socket.OPEN) {
          reject(new Error("The chat connection is not open."));
          return;
        }
        settleReaction(messageId)?.reject(new Error("Reacted again."));
        const timer = setTimeout(() => {
          settleReaction(messageId)?.reject(new Error("No answer over the chat connection."));
        }, SEND_ACK_TIMEOUT_MS);
        reacting.set(messageId, { emoji, resolve, reject, timer });
        socket.send(JSON.stringify({ type: "react", message_id: messageId, emoji }));
      });
    },
    call(frame) {
      if (socket.readyState !== socket.OPEN) return false;
      socket.send(JSON.stringify({ type: "call", ...frame }));
      return true;
    },
    close() {
      if (closed) return;
      closed = true;
      keepalive.stop();
      closeOpen();
      socket.close(1000, "conversation closed");
    },
  };
}
