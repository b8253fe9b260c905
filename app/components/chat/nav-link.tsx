import { useEffect } from "react";
import { AppNavLink } from "~/components/link";
import { api } from "~/lib/http";
import { subscribeMemberChannel } from "~/realtime/client";
import { chatUnreadTotalAtom } from "~/state/chat";
import { useAtom } from "~/state/jotai";

/**
 * "Chat" in the header, with the number of unread messages. The count loads once per page and
 * then follows the member's own channel (every new message, read or deletion carries the total).
 * Chat needs a verified email, so the link shows for verified members only.
 */
export function ChatNavLink() {
  const [unread, setUnread] = useAtom(chatUnreadTotalAtom);

  useEffect(() => {
    const reload = () =>
      api<{ unread_count: number }>("/chat/unread")
        .then((res) => setUnread(res.unread_count))
        .catch(() => {});
    void reload();
    return subscribeMemberChannel({
      open: () => void reload(),
      frame: (frame) => {
        if (frame.type === "conversation" && frame.unread_total !== undefined) {
          setUnread(frame.unread_total);
        }
      },
    });
  }, [setUnread]);

  const count = unread ?? 0;
  return (
    <AppNavLink
      to="/chat"
      className="nav-chat"
      aria-label={count > 0 ? `Chat, ${count} unread` : "Chat"}
    >
      Chat
      {count > 0 ? (
        <span className="nav-badge" data-testid="chat-unread" aria-hidden="true">
          {count > 99 ? "99+" : count}
        </span>
      ) : null}
    </AppNavLink>
  );
}
