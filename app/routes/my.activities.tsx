import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { TimeAgo } from "~/components/time-ago";
import { json } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { EmptyState } from "~/components/empty-state";
import { Avatar } from "~/components/profile/member";
import { Pager } from "~/components/pager";
import { AppShell } from "~/components/shell";
import { displayName } from "~/lib/members";
import { titleMeta } from "~/lib/title";
import { ACTIVITY_ICONS, activityText } from "~/lib/activities";
import { activitiesQuerySchema } from "~/schemas/activities";
import { listActivities } from "~/server/activities.server";
import { requireVerifiedUser } from "~/server/guards.server";

export const meta: MetaFunction = () => titleMeta("Activities");

/** Personal pages: never stored by a shared cache or kept for the back button. */
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** The member's own history, newest first, a page at a time (GET /my/activities as JSON too). */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const query = activitiesQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const page = await listActivities(context.env, user.id, {
    page: query.page,
    perPage: query.per_page,
  });
  return json(page, { headers: { "Cache-Control": "private, no-store" } });
}

export default function ActivitiesPage() {
  const { activities, meta } = useLoaderData<typeof loader>();
  return (
    <AppShell>
      <div className="container narrow">
        <div className="page-head">
          <div>
            <h1>Activities</h1>
            <p className="muted">Your likes, matches, gifts, purchases and subscription changes.</p>
          </div>
        </div>
        {activities.length === 0 ? (
          <EmptyState
            className="card empty-state"
            actions={[{ to: "/my/matches", label: "Discover members", primary: true }]}
          >
            <p>Nothing here yet.</p>
            <p className="muted">
              Your likes, matches and gifts will be listed here. Like someone to get started.
            </p>
          </EmptyState>
        ) : (
          <ol className="activity-list" aria-label="Your activities">
            {activities.map((a) => (
              <li key={a.id} className="activity">
                <span className="activity-media">
                  {a.user ? (
                    <Avatar name={displayName(a.user)} urls={a.user.photo_urls} size={40} />
                  ) : (
                    <span className="notification-icon" aria-hidden="true">
                      {ACTIVITY_ICONS[a.type]}
                    </span>
                  )}
                </span>
                <span className="activity-body">
                  {a.user ? (
                    <Link to={`/members/${encodeURIComponent(a.user.username)}`}>
                      {activityText(a)}
                    </Link>
                  ) : (
                    <span>{activityText(a)}</span>
                  )}
                  <time className="muted small" dateTime={a.created_at}>
                    <span aria-hidden="true">{ACTIVITY_ICONS[a.type]} </span>
                    <TimeAgo iso={a.created_at} />
                  </time>
                </span>
              </li>
            ))}
          </ol>
        )}
        <Pager meta={meta} href={(page) => `?page=${page}`} />
      </div>
    </AppShell>
  );
}
