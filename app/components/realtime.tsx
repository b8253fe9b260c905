import { Link } from "@remix-run/react";
import { useEffect } from "react";
import { api } from "~/lib/http";
import { NOTIFICATION_ICONS, notificationHref, notificationText } from "~/lib/notifications";
import { useRootData } from "~/lib/root-data";
import { bellSync } from "~/realtime/bell";
import { acquireRealtimeClient, releaseRealtimeClient } from "~/realtime/client";
import { setSocketTicket } from "~/realtime/ticket";
import type { NotificationView } from "~/schemas/notifications";
import { useAtomValue, useSetAtom } from "~/state/jotai";
import {
  LATEST_KEPT,
  notificationDismissed,
  notificationReceived,
  notificationsLoaded,
  notificationsRead,
  notificationsStateAtom,
} from "~/state/notifications";
import {
  applyPresenceFrame,
  ECHO_NOT_INITIALIZED,
  PRESENCE_CONNECTION_ERROR,
  presenceDisconnected,
  presenceError,
  presenceStateAtom,
} from "~/state/presence";

/** How long a live notification stays on screen. */
const TOAST_MS = 6_000;

/**
 * The signed-in layout's realtime provider: connects the tab's realtime client (app/realtime/
 * client.ts) and feeds the presence room and the member channel into the jotai atoms every page
 * reads (online dots, the header's unread count, the live toast). Without websockets the app
 * logs `Echo not initialized` (docs/domain.md "Error messages") and carries on with what the server
 * rendered.
 */
export function RealtimeProvider({ memberId }: { memberId: string }) {
  const setPresence = useSetAtom(presenceStateAtom);
  const setNotifications = useSetAtom(notificationsStateAtom);
  const ticket = useRootData()?.socketTicket;

  // Before the client connects (effects run in order): the page's socket ticket.
  useEffect(() => setSocketTicket(ticket), [ticket]);

  useEffect(() => {
    const reload = () =>
      api<{ notifications: NotificationView[]; unread_count: number; unread_groups?: number }>(
        `/notifications?per_page=${LATEST_KEPT}`,
      )
        .then((res) => setNotifications((s) => notificationsLoaded(s, res)))
        .catch((error: unknown) => console.error("Failed to load notifications", error));

    const client = acquireRealtimeClient(memberId);
    if (!client) {
      console.error(ECHO_NOT_INITIALIZED);
      void reload();
      return;
    }
    const offPresence = client.onPresence({
      frame: (frame, answered) => setPresence((s) => applyPresenceFrame(s, frame, answered)),
      down: (reason) =>
        setPresence((s) =>
          reason === "error"
            ? presenceError(s, PRESENCE_CONNECTION_ERROR)
            : presenceDisconnected(s),
        ),
    });
    // Each (re)connection may have missed frames: the count and the newest are taken afresh,
    // unless the hub's hello says nothing changed on the bell while the socket was down.
    const bell = bellSync(() => void reload());
    const offMember = client.onMemberChannel({
      open: () => bell.opened(),
      frame: (frame) => {
        bell.frame(frame);
        if (frame.type === "notification") {
          setNotifications((s) => notificationReceived(s, frame.notification, frame));
        } else if (frame.type === "notifications_read") {
          setNotifications((s) => notificationsRead(s, frame.ids, frame));
        }
      },
    });
    return () => {
      bell.stop();
      offPresence();
      offMember();
      releaseRealtimeClient(client);
    };
  }, [memberId, setPresence, setNotifications]);

  return <NotificationToast />;
}

/** The notification that just arrived, for a few seconds, announced politely to screen readers. */
function NotificationToast() {
  const { arrived } = useAtomValue(notificationsStateAtom);
  const setNotifications = useSetAtom(notificationsStateAtom);
  useEffect(() => {
    if (!arrived) return;
    const timer = setTimeout(() => setNotifications(notificationDismissed), TOAST_MS);
    return () => clearTimeout(timer);
  }, [arrived, setNotifications]);
  return (
    <div className="toast-region" role="status" aria-live="polite">
      {arrived ? (
        <div className="toast" data-testid="notification-toast">
          <span className="toast-icon" aria-hidden="true">
            {NOTIFICATION_ICONS[arrived.type]}
          </span>
          <Link to={notificationHref(arrived)} className="toast-text">
            {notificationText(arrived)}
          </Link>
          <button
            type="button"
            className="icon-btn toast-close"
            aria-label="Dismiss"
            onClick={() => setNotifications(notificationDismissed)}
          >
            ×
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** The header's link to the notifications page, with the unread count. */
