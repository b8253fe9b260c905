import { TimeAgo } from "~/components/time-ago";
import type {
  ActionFunctionArgs,
  HeadersFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { Link, useFetcher, useLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import { CsrfInput } from "~/components/form";
import { EmptyState } from "~/components/empty-state";
import { AppLink } from "~/components/link";
import { Avatar } from "~/components/profile/member";
import { AppShell } from "~/components/shell";
import { api } from "~/lib/http";
import { displayName } from "~/lib/members";
import {
  NOTIFICATION_ICONS,
  notificationActor,
  notificationHref,
  notificationText,
} from "~/lib/notifications";
import { titleMeta } from "~/lib/title";
import { subscribeMemberFrames } from "~/realtime/client";
import { notificationsQuerySchema, type NotificationView } from "~/schemas/notifications";
import { formAction } from "~/server/actions.server";
import { ValidationError } from "~/server/errors.server";
import { requireVerifiedUser } from "~/server/guards.server";
import {
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
} from "~/server/notifications.server";
import { readBody } from "~/server/validation.server";
import { useSetAtom } from "~/state/jotai";
import { notificationsRead, notificationsStateAtom } from "~/state/notifications";

export const meta: MetaFunction = () => titleMeta("Notifications");

/** Personal pages: never stored by a shared cache or kept for the back button. */
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

type NotificationsPage = Awaited<ReturnType<typeof listNotifications>>;

/** GET /notifications (API.md "Notifications"); the same path answers JSON when asked. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const query = notificationsQuerySchema.parse(
    Object.fromEntries(new URL(request.url).searchParams),
  );
  const page = await listNotifications(context.env, user.id, {
    page: query.page,
    perPage: query.per_page,
  });
  return json(page, { headers: { "Cache-Control": "private, no-store" } });
}

/** The page's forms (they work without JavaScript too): mark one read, or all. */
export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requireVerifiedUser(context, request);
    const body = await readBody(request);
    if (body.intent === "read-all") {
      return json(await markAllNotificationsRead(context.env, user.id));
    }
    if (body.intent === "read" && typeof body.id === "string") {
      return json(await markNotificationRead(context.env, user.id, body.id));
    }
    throw new ValidationError({ intent: ["Unknown action."] });
  });
}

const markRead = (items: NotificationView[], ids: string[] | null, now: string) =>
  items.map((n) =>
    n.read_at === null && (ids === null || ids.includes(n.id)) ? { ...n, read_at: now } : n,
  );

export default function NotificationsPage() {
  const data = useLoaderData<typeof loader>() as NotificationsPage;
  const [items, setItems] = useState(data.notifications);
  const [meta, setMeta] = useState(data.meta);
  const setCounts = useSetAtom(notificationsStateAtom);
  const more = useFetcher<NotificationsPage>();
  const readAll = useFetcher<{ unread_count: number }>();

  useEffect(() => {
    setItems(data.notifications);
    setMeta(data.meta);
  }, [data]);

  // New notifications appear on top; reads on other pages show here too.
  useEffect(
    () =>
      subscribeMemberFrames((frame) => {
        if (frame.type === "notification") {
          const fresh = frame.notification;
          setItems((list) => (list.some((n) => n.id === fresh.id) ? list : [fresh, ...list]));
        } else if (frame.type === "notifications_read") {
          setItems((list) => markRead(list, frame.ids, new Date().toISOString()));
        }
      }),
    [],
  );

  useEffect(() => {
    const page = more.data;
    if (!page) return;
    setItems((list) => {
      const seen = new Set(list.map((n) => n.id));
      return [...list, ...page.notifications.filter((n) => !seen.has(n.id))];
    });
    setMeta(page.meta);
  }, [more.data]);

  useEffect(() => {
    if (readAll.data) setCounts((s) => notificationsRead(s, null, readAll.data!.unread_count));
  }, [readAll.data, setCounts]);

  const unread = items.filter((n) => n.read_at === null).length;
  const onRead = (id: string) => {
    setItems((list) => markRead(list, [id], new Date().toISOString()));
  };

  return (
    <AppShell>
      <div className="container narrow">
        <div className="page-head">
          <div>
            <h1>Notifications</h1>
            <p className="muted">Likes, matches, gifts, messages and profile views.</p>
          </div>
          <readAll.Form
            method="post"
            onSubmit={() => setItems((list) => markRead(list, null, new Date().toISOString()))}
          >
            <CsrfInput />
            <input type="hidden" name="intent" value="read-all" />
            <button type="submit" className="btn btn-secondary" disabled={unread === 0}>
              Mark all read
            </button>
          </readAll.Form>
        </div>
        {items.length === 0 ? (
          <EmptyState
            className="card empty-state"
            actions={[
              { to: "/my/matches", label: "Discover members", primary: true },
              { to: "/settings/notifications", label: "Choose what you hear about" },
            ]}
          >
            <p>No notifications yet.</p>
            <p className="muted">
              When someone likes you, writes to you or visits your profile, you will see it here.
            </p>
          </EmptyState>
        ) : (
          <ul className="notification-list" aria-label="Notifications">
            {items.map((n) => (
              <NotificationItem key={n.id} notification={n} onRead={onRead} />
            ))}
          </ul>
        )}
        {meta.has_more ? (
          <div className="load-more">
            <Link
              to={`?page=${meta.page + 1}`}
              className="btn btn-secondary"
              onClick={(event) => {
                event.preventDefault();
                more.load(`/notifications?page=${meta.page + 1}`);
              }}
              aria-disabled={more.state === "loading" || undefined}
            >
              {more.state === "loading" ? "Loading…" : "Older notifications"}
            </Link>
          </div>
        ) : null}
        <p className="muted small">
          Choose which notifications you get in{" "}
          <AppLink to="/settings/notifications">notification settings</AppLink>.
        </p>
      </div>
    </AppShell>
  );
}

function NotificationItem({
  notification: n,
  onRead,
}: {
  notification: NotificationView;
  onRead: (id: string) => void;
}) {
  const fetcher = useFetcher<{ unread_count: number }>();
  const setCounts = useSetAtom(notificationsStateAtom);
  const actor = notificationActor(n);
  const unread = n.read_at === null;

  useEffect(() => {
    if (fetcher.data) setCounts((s) => notificationsRead(s, [n.id], fetcher.data!.unread_count));
  }, [fetcher.data, n.id, setCounts]);

  const openIt = () => {
    if (!unread) return;
    onRead(n.id);
    api<{ unread_count: number }>(`/notifications/${encodeURIComponent(n.id)}/read`, {
      method: "POST",
    })
      .then((res) => setCounts((s) => notificationsRead(s, [n.id], res.unread_count)))
      .catch((error: unknown) => console.error("Failed to mark the notification read", error));
  };

  return (
    <li className={unread ? "notification notification-unread" : "notification"}>
      <span className="notification-media">
        {actor ? (
          <Avatar name={displayName(actor)} url={actor.photo_url} size={44} />
        ) : (
          <span className="notification-icon" aria-hidden="true">
            {NOTIFICATION_ICONS[n.type]}
          </span>
        )}
      </span>
      <span className="notification-body">
        <Link to={notificationHref(n)} onClick={openIt}>
          {notificationText(n)}
        </Link>
        <time className="muted small" dateTime={n.created_at}>
          <span aria-hidden="true">{NOTIFICATION_ICONS[n.type]} </span>
          <TimeAgo iso={n.created_at} />
        </time>
      </span>
      {unread ? (
        <fetcher.Form method="post" onSubmit={() => onRead(n.id)}>
          <CsrfInput />
          <input type="hidden" name="intent" value="read" />
          <input type="hidden" name="id" value={n.id} />
          <button type="submit" className="btn btn-ghost btn-sm mark-read">
            <span className="mark-read-icon" aria-hidden="true">
              ✓
            </span>
            <span className="mark-read-text">Mark read</span>
            <span className="sr-only">: {notificationText(n)}</span>
          </button>
        </fetcher.Form>
      ) : (
        <span className="muted small notification-read">Read</span>
      )}
    </li>
  );
}
