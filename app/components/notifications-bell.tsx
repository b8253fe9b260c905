import { Link } from "@remix-run/react";
import { notificationsStateAtom } from "~/state/notifications";
import { useAtomValue } from "~/state/jotai";
import { Icon } from "./icons";

/** The header's bell: a link to the notifications page with the unread count. */
export function NotificationsBell() {
  const { unreadCount } = useAtomValue(notificationsStateAtom);
  const label =
    unreadCount > 0 ? `Notifications, ${unreadCount} unread` : "Notifications, none unread";
  return (
    <Link to="/notifications" className="bell" aria-label={label} title="Notifications">
      <Icon name="bell" />
      {unreadCount > 0 ? (
        <span className="bell-count" data-testid="unread-count" aria-hidden="true">
          {unreadCount > 99 ? "99+" : unreadCount}
        </span>
      ) : null}
    </Link>
  );
}
