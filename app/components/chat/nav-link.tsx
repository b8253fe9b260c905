import { useEffect, type ReactNode } from "react";
import { AppNavLink } from "~/components/link";
import { api } from "~/lib/http";
import { subscribeMemberChannel } from "~/realtime/client";
import { chatUnreadTotalAtom } from "~/state/chat";
import { useAtomValue, useSetAtom } from "~/state/jotai";

/**
 * Keeps the unread message total current: it loads once per page and then follows the member's
 * own channel (every new message, read or deletion carries the total). Mounted once by the shell.
 */
export function ChatUnreadSync() {
  const setUnread = useSetAtom(chatUnreadTotalAtom);
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
  return null;
}

/**
 * "Chat" in the header and the phone's tab bar, with the number of unread messages. Chat needs a
 * verified email, so the link shows for verified members only.
 */
export function ChatNavLink({
  className = "nav-chat",
  icon,
  badgeTestId,
}: {
  className?: string;
  icon?: ReactNode;
  badgeTestId?: string;
}) {
  const count = useAtomValue(chatUnreadTotalAtom) ?? 0;
  return (
    <AppNavLink to="/chat" className={className}>
      {icon}
      <span>Chat</span>
      {count > 0 ? (
        <span className="nav-badge" data-testid={badgeTestId}>
          {count > 99 ? "99+" : count}
        </span>
      ) : null}
      {count > 0 ? <span className="sr-only"> unread</span> : null}
    </AppNavLink>
  );
}
