import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { ReportMessageButton } from "~/components/safety/menus";
import { SafetyWarning } from "~/components/safety/warning";
import {
  chatMeAtom,
  chatStateAtom,
  deleteMessageAtom,
  discardMessageAtom,
  loadOlderAtom,
  reactAtom,
  sendAttachmentAtom,
  sendMessageAtom,
} from "~/state/chat-actions";
import { typedText, type ChatMessage } from "~/state/chat";
import { chatTimeline } from "~/state/chat-timeline";
import { useDateZone, useNow } from "~/state/clock";
import { useAtomValue, useSetAtom } from "~/state/jotai";
import { QUICK_REACTIONS } from "~/schemas/chat";
import { AttachmentBubble } from "./attachments";
import { ChatTime } from "./time";

function Ticks({ message }: { message: ChatMessage }) {
  if (message.status === "pending") {
    return (
      <span className="ticks" aria-label="Sending" data-testid="ticks-pending">
        ◷
      </span>
    );
  }
  if (message.status === "failed") return null;
  if (message.read_at) {
    return (
      <span className="ticks ticks-read" aria-label="Read" data-testid="ticks-read">
        ✓✓
      </span>
    );
  }
  return message.delivered_at ? (
    <span className="ticks ticks-delivered" aria-label="Delivered" data-testid="ticks-delivered">
      ✓✓
    </span>
  ) : (
    <span className="ticks" aria-label="Sent" data-testid="ticks-sent">
      ✓
    </span>
  );
}

/**
 * The reactions under a bubble: each emoji once, with how many reacted with it. Mine is a button
 * that takes it back.
 */
function Reactions({
  message,
  me,
  onReact,
}: {
  message: ChatMessage;
  me: string;
  onReact: (emoji: string | null) => void;
}) {
  if (message.reactions.length === 0) return null;
  const byEmoji = new Map<string, string[]>();
  for (const r of message.reactions)
    byEmoji.set(r.emoji, [...(byEmoji.get(r.emoji) ?? []), r.user_id]);
  return (
    <ul className="reactions" aria-label="Reactions" data-testid="reactions">
      {[...byEmoji].map(([emoji, users]) => {
        const mine = users.includes(me);
        const who = mine ? (users.length > 1 ? "You and them" : "You") : "They";
        return (
          <li key={emoji}>
            <button
              type="button"
              className="reaction"
              aria-pressed={mine}
              disabled={!mine}
              aria-label={`${who} reacted ${emoji}${mine ? ". Remove your reaction" : ""}`}
              title={mine ? "Remove your reaction" : undefined}
              onClick={() => onReact(null)}
              data-testid="reaction"
            >
              <span aria-hidden="true">{emoji}</span>
              {users.length > 1 ? <span className="reaction-count">{users.length}</span> : null}
            </button>
          </li>
        );
      })}
    </ul>
  );
}

/** The reactions one tap away; the one already chosen takes it back. */
function ReactionPicker({
  current,
  onPick,
}: {
  current: string | null;
  onPick: (emoji: string | null) => void;
}) {
  return (
    <div className="reaction-picker" role="group" aria-label="React to this message">
      {QUICK_REACTIONS.map((emoji) => (
        <button
          key={emoji}
          type="button"
          className="reaction-choice"
          aria-pressed={current === emoji}
          aria-label={current === emoji ? `Remove ${emoji}` : `React ${emoji}`}
          onClick={() => onPick(current === emoji ? null : emoji)}
        >
          <span aria-hidden="true">{emoji}</span>
        </button>
      ))}
    </div>
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
  me,
  onRetry,
  onDiscard,
  onDelete,
  onReact,
}: {
  message: ChatMessage;
  me: string;
  mine: boolean;
  groupStart: boolean;
  groupEnd: boolean;
  onRetry: (m: ChatMessage, confirm?: boolean) => void;
  onDiscard: (m: ChatMessage) => void;
  onDelete: (m: ChatMessage) => void;
  onReact: (m: ChatMessage, emoji: string | null) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [picking, setPicking] = useState(false);
  const myReaction = message.reactions.find((r) => r.user_id === me)?.emoji ?? null;
  const [pressed, setPressed] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const pointer = useRef("");
  const stored = !message.status;
  const showMeta = groupEnd || Boolean(message.status);
  const cancelPress = () => clearTimeout(timer.current);
  useEffect(() => cancelPress, []);
  const giftOnly = message.gift !== null && typedText(message) === "";
  return (
    <li
      className="bubble-row"
      data-mine={mine ? "true" : undefined}
      data-status={message.status}
      data-deleting={message.deleting ? "true" : undefined}
      data-group-start={groupStart ? "true" : undefined}
      data-group-end={groupEnd ? "true" : undefined}
      data-arrived={message.live ? "true" : undefined}
      data-actions={pressed || confirming || picking ? "open" : undefined}
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
          setPicking(false);
        }
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape" && picking) setPicking(false);
      }}
    >
      <div className="bubble-line">
        <div
          className="bubble"
          // A double tap (or click) on the other member's message is a heart, as in every
          // messaging app; again takes it back.
          onDoubleClick={
            stored && !mine && !message.deleting
              ? () => onReact(message, myReaction === "❤️" ? null : "❤️")
              : undefined
          }
        >
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
          {message.attachment ? (
            <AttachmentBubble messageId={message.id} attachment={message.attachment} mine={mine} />
          ) : giftOnly ? null : (
            <p className="bubble-text">{message.message}</p>
          )}
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
            <button
              type="button"
              className="bubble-action"
              aria-label="React to message"
              title="React"
              aria-expanded={picking}
              disabled={message.deleting}
              onClick={() => setPicking((p) => !p)}
            >
              <span aria-hidden="true">☺</span>
            </button>
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
      {picking ? (
        <ReactionPicker
          current={myReaction}
          onPick={(emoji) => {
            setPicking(false);
            onReact(message, emoji);
          }}
        />
      ) : null}
      <Reactions message={message} me={me} onReact={(emoji) => onReact(message, emoji)} />
      {!mine && stored && message.safety ? (
        <SafetyWarning
          senderId={message.sender_id}
          messageId={message.id}
          safety={message.safety}
        />
      ) : null}
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
      {message.status === "pending" && message.waiting ? (
        <div className="bubble-note small" data-testid="message-waiting">
          <span>Not sent yet: it goes as soon as you are back online.</span>{" "}
          <button type="button" className="link-btn" onClick={() => onRetry(message)}>
            Retry now
          </button>{" "}
          <button type="button" className="link-btn" onClick={() => onDiscard(message)}>
            Discard
          </button>
        </div>
      ) : null}
      {message.status === "failed" && message.needsConfirm ? (
        <div className="bubble-failed bubble-confirm-send" role="alert">
          <span>{message.failureReason}</span>
          <button type="button" className="link-btn" onClick={() => onRetry(message, true)}>
            Send anyway
          </button>
          <button type="button" className="link-btn" onClick={() => onDiscard(message)}>
            Don't send
          </button>
        </div>
      ) : message.status === "failed" ? (
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
export function MessageList({
  conversationId,
  empty,
}: {
  conversationId: string;
  /** What an empty conversation shows (help to start it). */
  empty: ReactNode;
}) {
  const state = useAtomValue(chatStateAtom);
  const now = useNow();
  const zone = useDateZone();
  const me = useAtomValue(chatMeAtom);
  const loadOlder = useSetAtom(loadOlderAtom);
  const send = useSetAtom(sendMessageAtom);
  const sendAttachment = useSetAtom(sendAttachmentAtom);
  const remove = useSetAtom(deleteMessageAtom);
  const react = useSetAtom(reactAtom);
  const discard = useSetAtom(discardMessageAtom);
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
        {chatTimeline(messages, now, zone).map((item) =>
          item.kind === "day" ? (
            <li key={`day-${item.key}`} className="day-separator" data-testid="day-separator">
              <span>{item.label}</span>
            </li>
          ) : (
            <MessageBubble
              key={item.message.client_id ?? item.message.id}
              message={item.message}
              me={me}
              mine={item.message.sender_id === me}
              groupStart={item.groupStart}
              groupEnd={item.groupEnd}
              onRetry={(msg, confirm) =>
                msg.attachment
                  ? void sendAttachment({ clientId: msg.client_id ?? undefined })
                  : void send({
                      confirm,
                      text: typedText(msg),
                      gift: msg.gift ?? undefined,
                      clientId: msg.client_id ?? undefined,
                    })
              }
              onDiscard={(msg) => discard(msg.client_id ?? "")}
              onDelete={(msg) => void remove(msg.id)}
              onReact={(msg, emoji) => void react({ messageId: msg.id, emoji })}
            />
          ),
        )}
      </ol>
    </div>
  );
}
