import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
} from "react";
import { useLocation } from "@remix-run/react";
import { AppLink } from "~/components/link";
import { Avatar, OnlineBadge } from "~/components/profile/member";
import { ConversationMenu, ReportMessageButton } from "~/components/safety";
import { displayName } from "~/lib/members";
import { connectConversation, type ConversationSocket } from "~/realtime/chat-socket";
import { TYPING_DISPLAY_MS } from "~/realtime/chat";
import { MESSAGE_MAX_LENGTH, type ConversationView, type Gift } from "~/schemas/chat";
import {
  archiveAtom,
  catchUpAtom,
  chatMeAtom,
  chatStateAtom,
  chatTransportAtom,
  deleteMessageAtom,
  loadGiftsAtom,
  loadOlderAtom,
  markReadAtom,
  sendMessageAtom,
  unarchiveAtom,
} from "~/state/chat-actions";
import { discardLocal, lastSeq, roomFrameReceived, type ChatMessage } from "~/state/chat";
import { chatTimeline } from "~/state/chat-timeline";
import { useNow } from "~/state/clock";
import { useAtomValue, useSetAtom } from "~/state/jotai";
import { api } from "~/lib/http";
import { ChatTime } from "./time";

/**
 * The open conversation's room: applies its frames to the chat state, catches up on every
 * (re)connect (messages after the last one held, merged by id), and shows the other member typing.
 */
function useConversationRoom(conversationId: string, otherId: string) {
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
function useReadReceipts(conversationId: string, messages: ChatMessage[], me: string) {
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

function Ticks({ message }: { message: ChatMessage }) {
  if (message.status === "pending") {
    return (
      <span className="ticks" aria-label="Sending" data-testid="ticks-pending">
        ◷
      </span>
    );
  }
  if (message.status === "failed") return null;
  return message.read_at ? (
    <span className="ticks ticks-read" aria-label="Read" data-testid="ticks-read">
      ✓✓
    </span>
  ) : (
    <span className="ticks" aria-label="Sent" data-testid="ticks-sent">
      ✓
    </span>
  );
}

/** How long a finger rests on a bubble before its actions show (a long press). */
const LONG_PRESS_MS = 450;

/**
 * One message. Its actions (Delete for my own, Report for theirs) show on hover, on keyboard focus
 * and after a long press, beside the bubble rather than under it. Only the last
 * bubble of a group shows the time (and, for mine, the ticks).
 */
function MessageBubble({
  message,
  mine,
  groupStart,
  groupEnd,
  onRetry,
  onDiscard,
  onDelete,
}: {
  message: ChatMessage;
  mine: boolean;
  groupStart: boolean;
  groupEnd: boolean;
  onRetry: (m: ChatMessage) => void;
  onDiscard: (m: ChatMessage) => void;
  onDelete: (m: ChatMessage) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [pressed, setPressed] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const pointer = useRef("");
  const stored = !message.status;
  const showMeta = groupEnd || Boolean(message.status);
  const cancelPress = () => clearTimeout(timer.current);
  useEffect(() => cancelPress, []);
  const giftOnly = message.gift && message.message === `${message.gift.icon} ${message.gift.name}`;
  return (
    <li
      className="bubble-row"
      data-mine={mine ? "true" : undefined}
      data-status={message.status}
      data-deleting={message.deleting ? "true" : undefined}
      data-group-start={groupStart ? "true" : undefined}
      data-group-end={groupEnd ? "true" : undefined}
      data-actions={pressed || confirming ? "open" : undefined}
      data-testid="message"
      data-seq={stored ? message.seq : undefined}
      // Focusable, so that the keyboard (or a tap) reaches the message's actions.
      tabIndex={0}
      onPointerDown={(event) => {
        pointer.current = event.pointerType;
        if (event.pointerType !== "touch" || !stored) return;
        cancelPress();
        timer.current = setTimeout(() => setPressed(true), LONG_PRESS_MS);
      }}
      onPointerUp={cancelPress}
      onPointerCancel={cancelPress}
      onPointerMove={(event) => {
        if (event.pointerType === "touch" && (event.movementX || event.movementY)) cancelPress();
      }}
      onContextMenu={(event) => {
        // A finger's long press shows the actions instead of the browser's menu; a mouse's
        // right click keeps the browser's menu (copy, select).
        if (!stored || pointer.current !== "touch") return;
        event.preventDefault();
        setPressed(true);
      }}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) {
          setPressed(false);
          setConfirming(false);
        }
      }}
    >
      <div className="bubble-line">
        <div className="bubble">
          {message.gift ? (
            <div className="bubble-gift">
              <span className="bubble-gift-icon" aria-hidden="true">
                {message.gift.icon}
              </span>
              <span>
                {mine ? "You sent" : "Sent you"} a gift: <strong>{message.gift.name}</strong>
              </span>
            </div>
          ) : null}
          {giftOnly ? null : <p className="bubble-text">{message.message}</p>}
          {showMeta ? (
            <span className="bubble-meta">
              <ChatTime iso={message.sent_at} />
              {mine ? <Ticks message={message} /> : null}
            </span>
          ) : (
            // The time stays readable to screen readers inside a group.
            <span className="sr-only">
              <ChatTime iso={message.sent_at} />
            </span>
          )}
        </div>
        {stored ? (
          <div className="bubble-tools">
            {mine ? (
              confirming ? null : (
                <button
                  type="button"
                  className="bubble-action"
                  aria-label="Delete message"
                  title="Delete message"
                  disabled={message.deleting}
                  onClick={() => setConfirming(true)}
                >
                  <span aria-hidden="true">🗑</span>
                </button>
              )
            ) : (
              <ReportMessageButton senderId={message.sender_id} messageId={message.id} />
            )}
          </div>
        ) : null}
      </div>
      {confirming ? (
        <div className="bubble-confirm" role="group" aria-label="Delete this message?">
          <button
            type="button"
            className="btn btn-danger btn-sm"
            disabled={message.deleting}
            onClick={() => {
              setConfirming(false);
              onDelete(message);
            }}
          >
            Delete for everyone
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={() => setConfirming(false)}
          >
            Cancel
          </button>
        </div>
      ) : null}
      {message.deleting ? <span className="bubble-note small">Deleting…</span> : null}
      {message.status === "failed" ? (
        <div className="bubble-failed" role="alert">
          <span>Not sent{message.failureReason ? `: ${message.failureReason}` : ""}.</span>
          <button type="button" className="link-btn" onClick={() => onRetry(message)}>
            Retry
          </button>
          <button type="button" className="link-btn" onClick={() => onDiscard(message)}>
            Discard
          </button>
        </div>
      ) : null}
    </li>
  );
}

/**
 * The messages, oldest at the top. Opening scrolls to the newest; new messages keep the view at
 * the bottom when it was there (or when they are mine); scrolling to the top loads the page
 * before (infinite scroll upward) without moving what is on screen.
 */
function MessageList({
  conversationId,
  empty,
}: {
  conversationId: string;
  /** What an empty conversation shows (help to start it). */
  empty: ReactNode;
}) {
  const state = useAtomValue(chatStateAtom);
  const now = useNow();
  const me = useAtomValue(chatMeAtom);
  const loadOlder = useSetAtom(loadOlderAtom);
  const send = useSetAtom(sendMessageAtom);
  const remove = useSetAtom(deleteMessageAtom);
  const setState = useSetAtom(chatStateAtom);
  const scroller = useRef<HTMLDivElement>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  const snapshot = useRef({ first: "", last: "", height: 0, top: 0, atBottom: true });
  const { messages, hasMore, isLoadingMore, isLoadingMessages } = state;

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const before = snapshot.current;
    const first = messages[0]?.id ?? "";
    const last = messages.at(-1);
    if (before.first && first !== before.first && (last?.id ?? "") === before.last) {
      // Older messages were prepended: keep the same messages on screen.
      el.scrollTop = el.scrollHeight - before.height + before.top;
    } else if (
      last &&
      last.id !== before.last &&
      (before.atBottom || last.sender_id === me || !before.last)
    ) {
      el.scrollTop = el.scrollHeight;
    }
    snapshot.current = {
      first,
      last: last?.id ?? "",
      height: el.scrollHeight,
      top: el.scrollTop,
      atBottom: true,
    };
  }, [messages, me]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    snapshot.current.top = el.scrollTop;
    snapshot.current.height = el.scrollHeight;
    snapshot.current.atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  };

  useEffect(() => {
    const target = sentinel.current;
    const root = scroller.current;
    if (!target || !root || !hasMore) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) void loadOlder();
      },
      { root, rootMargin: "200px 0px 0px 0px" },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [hasMore, loadOlder, conversationId]);

  return (
    <div className="thread-scroll" ref={scroller} onScroll={onScroll} data-testid="thread-scroll">
      <div ref={sentinel} />
      {hasMore ? (
        <div className="load-more thread-older">
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={() => void loadOlder()}
            disabled={isLoadingMore}
          >
            {isLoadingMore ? "Loading…" : "Load earlier messages"}
          </button>
        </div>
      ) : null}
      {isLoadingMessages && messages.length === 0 ? (
        <p className="muted thread-empty">Loading messages…</p>
      ) : messages.length === 0 ? (
        empty
      ) : null}
      <ol className="bubbles" aria-label="Messages" aria-live="polite" aria-relevant="additions">
        {chatTimeline(messages, now).map((item) =>
          item.kind === "day" ? (
            <li key={`day-${item.key}`} className="day-separator" data-testid="day-separator">
              <span>{item.label}</span>
            </li>
          ) : (
            <MessageBubble
              key={item.message.client_id ?? item.message.id}
              message={item.message}
              mine={item.message.sender_id === me}
              groupStart={item.groupStart}
              groupEnd={item.groupEnd}
              onRetry={(msg) =>
                void send({
                  text:
                    msg.gift && msg.message === `${msg.gift.icon} ${msg.gift.name}`
                      ? ""
                      : msg.message,
                  gift: msg.gift ?? undefined,
                  clientId: msg.client_id ?? undefined,
                })
              }
              onDiscard={(msg) => setState((s) => discardLocal(s, msg.client_id ?? ""))}
              onDelete={(msg) => void remove(msg.id)}
            />
          ),
        )}
      </ol>
    </div>
  );
}

function GiftPicker({ onPick, onClose }: { onPick: (gift: Gift) => void; onClose: () => void }) {
  const { gifts, userCredits } = useAtomValue(chatStateAtom);
  const loadGifts = useSetAtom(loadGiftsAtom);
  // Buying credits comes back here afterwards.
  const location = useLocation();
  useEffect(() => {
    void loadGifts();
  }, [loadGifts]);
  return (
    <div className="gift-picker" role="dialog" aria-label="Send a gift">
      <div className="gift-picker-head">
        <strong>Send a gift</strong>
        <span className="muted small" data-testid="credits">
          You have {userCredits} credits
        </span>
        <button type="button" className="icon-btn" aria-label="Close gifts" onClick={onClose}>
          ×
        </button>
      </div>
      <ul className="gift-grid">
        {gifts.map((gift) => {
          const affordable = gift.price_credits <= userCredits;
          return (
            <li key={gift.id}>
              <button
                type="button"
                className="gift"
                disabled={!affordable}
                title={affordable ? undefined : "Not enough credits"}
                onClick={() => onPick(gift)}
              >
                <span className="gift-icon" aria-hidden="true">
                  {gift.icon}
                </span>
                <span>{gift.name}</span>
                <span className="muted small">{gift.price_credits} credits</span>
              </button>
            </li>
          );
        })}
      </ul>
      {gifts.some((gift) => gift.price_credits > userCredits) ? (
        <p className="muted small gift-picker-buy">
          {userCredits === 0 ? "Gifts are paid with credits. " : "Need more credits? "}
          <AppLink
            to={`/my/credits?return_to=${encodeURIComponent(`${location.pathname}${location.search}`)}`}
            className="btn btn-sm btn-primary"
          >
            Buy credits
          </AppLink>
        </p>
      ) : null}
    </div>
  );
}

function Composer({
  disabled,
  onTyping,
  text,
  setText,
  inputRef,
}: {
  disabled: boolean;
  onTyping: () => void;
  /** The draft, kept by the thread so that a suggested first line can fill it. */
  text: string;
  setText: (text: string) => void;
  inputRef: RefObject<HTMLTextAreaElement>;
}) {
  const send = useSetAtom(sendMessageAtom);
  const [gifts, setGifts] = useState(false);
  const remaining = MESSAGE_MAX_LENGTH - text.length;

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (!text.trim() || remaining < 0 || disabled) return;
    void send({ text });
    setText("");
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) submit(event);
  };

  return (
    <form className="composer" onSubmit={submit}>
      {gifts ? (
        <GiftPicker
          onClose={() => setGifts(false)}
          onPick={(gift) => {
            setGifts(false);
            void send({ text, gift });
            setText("");
          }}
        />
      ) : null}
      <button
        type="button"
        className="icon-btn composer-gift"
        aria-label="Send a gift"
        aria-expanded={gifts}
        disabled={disabled}
        onClick={() => setGifts((v) => !v)}
      >
        🎁
      </button>
      <label className="sr-only" htmlFor="composer-text">
        Message
      </label>
      <textarea
        ref={inputRef}
        id="composer-text"
        className="input composer-input"
        rows={1}
        placeholder={disabled ? "You can no longer message this member" : "Write a message…"}
        value={text}
        disabled={disabled}
        maxLength={MESSAGE_MAX_LENGTH + 100}
        aria-invalid={remaining < 0 ? true : undefined}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value) onTyping();
        }}
        onKeyDown={onKeyDown}
      />
      {remaining < 200 ? (
        <span className="composer-count small" data-over={remaining < 0 ? "true" : undefined}>
          {remaining}
        </span>
      ) : null}
      <button
        type="submit"
        className="btn btn-primary composer-send"
        disabled={disabled || !text.trim() || remaining < 0}
      >
        Send
      </button>
    </form>
  );
}

/**
 * A conversation without messages: who it is with, and first lines drawn from both profiles
 * (GET /chat/starters/{username}); choosing one puts it in the composer to send or change.
 */
function EmptyThread({
  conversation,
  name,
  onPick,
}: {
  conversation: ConversationView;
  name: string;
  onPick: (text: string) => void;
}) {
  const [starters, setStarters] = useState<string[]>([]);
  const username = conversation.user.username;
  useEffect(() => {
    const controller = new AbortController();
    api<{ starters: string[] }>(`/chat/starters/${encodeURIComponent(username)}`, {
      signal: controller.signal,
    })
      .then((res) => setStarters(res.starters))
      .catch(() => setStarters([]));
    return () => controller.abort();
  }, [username]);
  return (
    <div className="thread-empty" data-testid="thread-empty">
      <Avatar name={name} url={conversation.user.photo_url} size={88} />
      <h2 className="h3">No messages yet. Say hello!</h2>
      <p className="muted">A question about something {name} loves goes further than “hey”.</p>
      {starters.length ? (
        <ul className="starters" aria-label="Ideas to start with">
          {starters.map((text) => (
            <li key={text}>
              <button type="button" className="starter" onClick={() => onPick(text)}>
                {text}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function ChatThread({
  conversation,
  archived,
  onBack,
}: {
  conversation: ConversationView;
  archived: boolean;
  onBack: () => void;
}) {
  const state = useAtomValue(chatStateAtom);
  const me = useAtomValue(chatMeAtom);
  const archive = useSetAtom(archiveAtom);
  const unarchive = useSetAtom(unarchiveAtom);
  const { typing, closed, connected, sendTyping } = useConversationRoom(
    conversation.id,
    conversation.user_id,
  );
  useReadReceipts(conversation.id, state.messages, me);
  const name = displayName(conversation.user);
  const [draft, setDraft] = useState("");
  const input = useRef<HTMLTextAreaElement>(null);

  return (
    <section
      className="thread"
      aria-label={`Conversation with ${name}`}
      data-last-seq={lastSeq(state)}
      data-connected={connected ? "true" : "false"}
    >
      <header className="thread-head">
        <button
          type="button"
          className="icon-btn thread-back"
          aria-label="Back to conversations"
          onClick={onBack}
        >
          ←
        </button>
        <AppLink
          to={`/members/${encodeURIComponent(conversation.user.username)}`}
          className="thread-who"
        >
          <Avatar name={name} url={conversation.user.photo_url} size={40} />
          <span className="thread-who-text">
            <strong>{name}</strong>
            <span className="thread-status" aria-live="polite">
              {typing ? (
                <span className="typing" data-testid="typing">
                  typing…
                </span>
              ) : (
                <OnlineBadge
                  memberId={conversation.user_id}
                  online={conversation.user.online}
                  lastSeenAt={conversation.user.last_seen_at}
                />
              )}
            </span>
          </span>
        </AppLink>
        <div className="thread-actions">
          <ConversationMenu
            member={{ id: conversation.user_id, name }}
            onLeave={onBack}
            items={[
              archived
                ? { label: "Unarchive", onSelect: () => void unarchive(conversation.id) }
                : {
                    label: "Archive",
                    // Archiving closes the conversation (SPEC.md §4): back to the list.
                    onSelect: () => void archive(conversation.id).then((ok) => ok && onBack()),
                  },
            ]}
          />
        </div>
      </header>
      {closed ? (
        <div className="alert alert-warning thread-notice" role="status">
          This conversation is no longer available.
        </div>
      ) : null}
      <MessageList
        conversationId={conversation.id}
        empty={
          <EmptyThread
            conversation={conversation}
            name={name}
            onPick={(text) => {
              setDraft(text);
              input.current?.focus();
            }}
          />
        }
      />
      <Composer
        disabled={closed}
        onTyping={sendTyping}
        text={draft}
        setText={setDraft}
        inputRef={input}
      />
    </section>
  );
}
