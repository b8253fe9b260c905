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
import { groupNotifications, groupText, type NotificationGroup } from "~/lib/notification-groups";
import { NOTIFICATION_ICONS, notificationActor, notificationHref } from "~/lib/notifications";
import { titleMeta } from "~/lib/title";
import { subscribeMemberFrames } from "~/realtime/client";
import {
  notificationsQuerySchema,
  notificationsReadFormSchema,
  type NotificationView,
} from "~/schemas/notifications";
import { formAction } from "~/server/actions.server";
import { ValidationError } from "~/server/errors.server";
import { requireVerifiedUser } from "~/server/guards.server";
import {
  listNotifications,
  markAllNotificationsRead,
  markNotificationsRead,
} from "~/server/notifications.server";
import { parseInput, readBody } from "~/server/validation.server";
import { useSetAtom } from "~/state/jotai";
import { notificationsRead, notificationsStateAtom } from "~/state/notifications";

export const meta: MetaFunction = () => titleMeta("Notifications");

/** Personal pages: never stored by a shared cache or kept for the back button. */
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

type NotificationsPage = Awaited<ReturnType<typeof listNotifications>>;

/** GET /notifications (docs/api.md "Notifications"); the same path answers JSON when asked. */
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

/** The page's forms (they work without JavaScript too): mark one row read, or all. */
export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requireVerifiedUser(context, request);
    const body = await readBody(request);
    if (body.intent === "read-all") {
      return json(await markAllNotificationsRead(context.env, user.id));
    }
    if (body.intent === "read") {
      const { ids, group } = parseInput(notificationsReadFormSchema, body);
      return json(await markNotificationsRead(context.env, user.id, ids, group));
    }
    throw new ValidationError({ intent: ["Unknown action."] });
  });
}

/** Rows that gather a kind or a conversation: marking them read takes the unloaded ones too. */
const GROUPED_KEYS = /^(like|profile_view|conversation:[A-Za-z0-9_-]{1,64})$/;

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
  const readAll = useFetcher<{ unread_count: number; unread_groups?: number }>();

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
    if (readAll.data) setCounts((s) => notificationsRead(s, null, readAll.data!));
  }, [readAll.data, setCounts]);

  const unread = items.filter((n) => n.read_at === null).length;
  const groups = groupNotifications(items);
  const onRead = (ids: string[]) => {
    setItems((list) => markRead(list, ids, new Date().toISOString()));
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
            {groups.map((group) => (
              <NotificationRow key={group.key} group={group} onRead={onRead} />
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

/** One row: a notification, or a group of them (one conversation, the likes, the views). */
function NotificationRow({
  group,
  onRead,
}: {
  group: NotificationGroup;
  onRead: (ids: string[]) => void;
}) {
  const fetcher = useFetcher<{ unread_count: number; unread_groups?: number }>();
  const setCounts = useSetAtom(notificationsStateAtom);
  const latest = group.items[0]!;
  const actor = notificationActor(latest);
  const unreadIds = group.unreadIds;
  const unread = unreadIds.length > 0;
  const text = groupText(group);
  // The ids this row's form marks read, fixed when it was sent (the row changes meanwhile).
  const [sentIds, setSentIds] = useState<string[]>([]);

  useEffect(() => {
    if (fetcher.data) setCounts((s) => notificationsRead(s, sentIds, fetcher.data!));
  }, [fetcher.data, sentIds, setCounts]);

  // Opening a row marks it read on the way out: plain requests, which outlive the page.
  const openRow = () => {
    if (!unread) return;
    const ids = unreadIds;
    onRead(ids);
    Promise.all(
      ids.map((id) =>
        api<{ unread_count: number; unread_groups?: number }>(
          `/notifications/${encodeURIComponent(id)}/read`,
          { method: "POST" },
        ),
      ),
    )
      .then((answers) => {
        // The answer given last counts what is left once all of them were read.
        const last = answers.reduce((a, b) => (b.unread_count < a.unread_count ? b : a));
        setCounts((s) => notificationsRead(s, ids, last));
      })
      .catch((error: unknown) => console.error("Failed to mark the notifications read", error));
  };

  return (
    <li className={unread ? "notification notification-unread" : "notification"}>
      <span className="notification-media">
        {actor ? (
          <Avatar name={displayName(actor)} urls={actor.photo_urls} size={44} />
        ) : (
          <span className="notification-icon" aria-hidden="true">
            {NOTIFICATION_ICONS[latest.type]}
          </span>
        )}
        {unreadIds.length > 1 ? (
          <span className="notification-count" aria-hidden="true">
            {unreadIds.length}
          </span>
        ) : null}
      </span>
      <span className="notification-body">
        <Link to={notificationHref(latest)} onClick={openRow}>
          <span className="notification-text">{text}</span>
        </Link>
        <time className="muted small" dateTime={latest.created_at}>
          <span aria-hidden="true">{NOTIFICATION_ICONS[latest.type]} </span>
          <TimeAgo iso={latest.created_at} />
          {unreadIds.length > 1 ? (
            <span className="sr-only">, {unreadIds.length} unread</span>
          ) : null}
        </time>
      </span>
      {unread ? (
        <fetcher.Form
          method="post"
          onSubmit={() => {
            setSentIds(unreadIds);
            onRead(unreadIds);
          }}
        >
          <CsrfInput />
          <input type="hidden" name="intent" value="read" />
          <input type="hidden" name="ids" value={unreadIds.join(",")} />
          {GROUPED_KEYS.test(group.key) ? (
            <input type="hidden" name="group" value={group.key} />
          ) : null}
          <button type="submit" className="btn btn-ghost btn-sm mark-read">
            <span className="mark-read-icon" aria-hidden="true">
              ✓
            </span>
            <span className="mark-read-text">Mark read</span>
            <span className="sr-only">: {text}</span>
          </button>
        </fetcher.Form>
      ) : (
        <span className="muted small notification-read">Read</span>
      )}
    </li>
  );
}
