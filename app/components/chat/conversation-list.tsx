import { Avatar } from "~/components/profile/member";
import { displayName } from "~/lib/members";
import type { ConversationView } from "~/schemas/chat";
import { EmptyState } from "~/components/empty-state";
import { OnlineDot } from "~/components/online-dot";
import { ChatTime } from "./time";

export type ListTab = "active" | "archived";

/** One conversation in the list: photo with the online dot, name, last message, time, unread. */
function ConversationItem({
  conversation,
  active,
  onOpen,
}: {
  conversation: ConversationView;
  active: boolean;
  onOpen: (id: string) => void;
}) {
  const { user } = conversation;
  const name = displayName(user);
  const unread = conversation.unread_count;
  return (
    <li>
      <button
        type="button"
        className="conversation-item"
        aria-current={active ? "true" : undefined}
        data-unread={unread > 0 ? "true" : undefined}
        data-testid="conversation-item"
        onClick={() => onOpen(conversation.id)}
      >
        <span className="member-row-photo">
          <Avatar name={name} urls={user.photo_urls} size={46} />
          <OnlineDot memberId={user.id} online={user.online} />
        </span>
        <span className="conversation-item-body">
          <span className="conversation-item-head">
            <strong className="conversation-item-name">{name}</strong>
            {conversation.last_message_time ? (
              <ChatTime iso={conversation.last_message_time} className="muted small" />
            ) : null}
          </span>
          <span className="conversation-item-foot">
            <span className="conversation-item-preview muted small">
              {conversation.last_message ?? "No messages yet"}
            </span>
            {unread > 0 ? (
              <span
                className="unread-badge"
                aria-label={`${unread} unread`}
                data-testid="unread-badge"
              >
                {unread > 99 ? "99+" : unread}
              </span>
            ) : null}
          </span>
        </span>
      </button>
    </li>
  );
}

export function ConversationList({
  tab,
  onTab,
  conversations,
  archived,
  activeId,
  onOpen,
  isLoading,
  hasMore,
  onLoadMore,
}: {
  tab: ListTab;
  onTab: (tab: ListTab) => void;
  conversations: ConversationView[];
  archived: ConversationView[];
  activeId: string | null;
  onOpen: (id: string) => void;
  isLoading: boolean;
  hasMore: boolean;
  onLoadMore: () => void;
}) {
  const list = tab === "active" ? conversations : archived;
  return (
    <section className="chat-list" aria-label="Conversations">
      <div className="chat-list-head">
        <h1 className="chat-title">Chat</h1>
        <div className="chat-tabs" role="tablist" aria-label="Conversation lists">
          <button
            type="button"
            role="tab"
            aria-selected={tab === "active"}
            className="chat-tab"
            onClick={() => onTab("active")}
          >
            Chats
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={tab === "archived"}
            className="chat-tab"
            onClick={() => onTab("archived")}
          >
            Archived
          </button>
        </div>
      </div>
      {list.length === 0 ? (
        isLoading ? (
          <p className="chat-list-empty muted">Loading conversations…</p>
        ) : tab === "active" ? (
          <EmptyState
            className="chat-list-empty"
            actions={[
              { to: "/my/likes?list=matches", label: "Your matches", primary: true },
              { to: "/my/matches", label: "Discover members" },
            ]}
          >
            <p>
              <strong>No conversations yet.</strong> Your matches are waiting for a first message,
              and anyone whose profile you like can get one.
            </p>
          </EmptyState>
        ) : (
          <p className="chat-list-empty muted">
            No archived conversations. Archive one from its ⋯ menu to tidy your list; a new message
            brings it back.
          </p>
        )
      ) : (
        <ul className="conversation-items">
          {list.map((c) => (
            <ConversationItem
              key={c.id}
              conversation={c}
              active={c.id === activeId}
              onOpen={onOpen}
            />
          ))}
        </ul>
      )}
      {tab === "active" && hasMore ? (
        <div className="load-more">
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={onLoadMore}
            disabled={isLoading}
          >
            {isLoading ? "Loading…" : "Show more"}
          </button>
        </div>
      ) : null}
    </section>
  );
}
