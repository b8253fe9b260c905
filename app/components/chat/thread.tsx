import { useEffect, useRef, useState } from "react";
import { AppLink } from "~/components/link";
import { PushOffer } from "~/components/push-controls";
import { Avatar, OnlineBadge } from "~/components/profile/member";
import { ConversationMenu } from "~/components/safety/menus";
import { displayName } from "~/lib/members";
import type { ConversationView } from "~/schemas/chat";
import { archiveAtom, chatMeAtom, chatStateAtom, unarchiveAtom } from "~/state/chat-actions";
import { lastSeq } from "~/state/chat";
import { chatApi } from "~/state/chat-transport";
import { useAtomValue, useSetAtom } from "~/state/jotai";
import { CallButtons, CallPanel, useCall, type CallControls } from "./call";
import { useConversationRoom, useReadReceipts } from "./conversation-room";
import { Composer } from "./composer";
import { MessageList } from "./message-list";

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
    chatApi
      .starters(username, controller.signal)
      .then((res) => setStarters(res.starters))
      .catch(() => setStarters([]));
    return () => controller.abort();
  }, [username]);
  return (
    <div className="thread-empty" data-testid="thread-empty">
      <Avatar name={name} urls={conversation.user.photo_urls} size={88} />
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
  // The room's call frames go to the call (call.tsx), which sends its own through the room.
  const callFrames = useRef<CallControls["onFrame"]>(() => {});
  const { typing, closed, connected, sendTyping, sendCall } = useConversationRoom(
    conversation.id,
    conversation.user_id,
    callFrames,
  );
  const call = useCall({ me, send: sendCall });
  callFrames.current = call.onFrame;
  useReadReceipts(conversation.id, state.messages, me);
  const name = displayName(conversation.user);
  const [draft, setDraft] = useState("");
  const input = useRef<HTMLTextAreaElement>(null);
  // Once the member has written here, pushes make sense to them: the offer shows (once per
  // browser, never after "Not now", never when the browser was already asked).
  const [wrote, setWrote] = useState(false);
  useEffect(() => setWrote(false), [conversation.id]);

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
          <Avatar name={name} urls={conversation.user.photo_urls} size={40} />
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
          <CallButtons call={call} disabled={closed || !connected} />
          <ConversationMenu
            member={{ id: conversation.user_id, name }}
            onLeave={onBack}
            items={[
              archived
                ? { label: "Unarchive", onSelect: () => void unarchive(conversation.id) }
                : {
                    label: "Archive",
                    // Archiving closes the conversation (docs/domain.md "Client state"): back to
                    // the list.
                    onSelect: () => void archive(conversation.id).then((ok) => ok && onBack()),
                  },
            ]}
          />
        </div>
      </header>
      <CallPanel call={call} name={name} />
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
      {wrote ? <PushOffer name={name} /> : null}
      <Composer
        disabled={closed}
        onSent={() => setWrote(true)}
        onTyping={sendTyping}
        text={draft}
        setText={setDraft}
        inputRef={input}
      />
    </section>
  );
}
