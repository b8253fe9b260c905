import { Link } from "@remix-run/react";
import { useEffect } from "react";
import { showAppBadge } from "~/lib/service-worker";
import { bellCount, notificationsStateAtom } from "~/state/notifications";
import { useAtomValue } from "~/state/jotai";
import { Icon } from "./icons";

/**
 * The header's bell: a link to the notifications page with how many of its rows are unread (nine
 * likes are one row, a conversation's messages one: docs/decisions/028), and the same count on
 * the installed app's icon.
 */
export function NotificationsBell() {
  const count = bellCount(useAtomValue(notificationsStateAtom));
  // The installed app's icon shows the bell's count too.
  useEffect(() => showAppBadge(count), [count]);
  const label = count > 0 ? `Notifications, ${count} unread` : "Notifications, none unread";
  return (
    <Link to="/notifications" className="bell" aria-label={label} title="Notifications">
      <Icon name="bell" />
      {count > 0 ? (
        <span className="bell-count" data-testid="unread-count" aria-hidden="true">
          {count > 99 ? "99+" : count}
        </span>
      ) : null}
    </Link>
  );
}
