import type { ReactNode } from "react";
import { AppNavLink } from "~/components/link";
import { chatUnreadTotalAtom } from "~/state/chat-actions";
import { useAtomValue } from "~/state/jotai";

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
