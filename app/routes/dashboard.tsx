import type {
  HeadersFunction,
  LinksFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { DashboardPage } from "~/components/discovery/pages";
import { titleMeta } from "~/lib/title";
import { displayName } from "~/lib/members";
import { DASHBOARD_ITEMS, dashboardSummary } from "~/server/dashboard.server";
import { listProfileViewers } from "~/server/profile-views.server";
import { loadProfile } from "~/server/profiles.server";
import { searchPageData } from "~/server/search-pages.server";
import { requireOnboardedUser } from "~/server/guards.server";
import cardStyles from "~/styles/cards.css?url";
import discoveryStyles from "~/styles/discovery.css?url";

export const meta: MetaFunction = () => titleMeta("Dashboard");
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: discoveryStyles },
  { rel: "stylesheet", href: cardStyles },
];
/** Personal pages: never stored by a shared cache. */
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** The signed-in home, "today": new likes, matches, conversations waiting, viewers, suggestions. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireOnboardedUser(context, request);
  const [search, summary, profile, views] = await Promise.all([
    searchPageData(context.env, user.id, new URL(request.url), { searched: false, perPage: 12 }),
    dashboardSummary(context.env, user.id),
    loadProfile(context.env, user.id),
    listProfileViewers(context.env, user.id, { perPage: DASHBOARD_ITEMS }),
  ]);
  // Members are greeted by their first name once they gave one.
  const name = displayName({ firstName: profile.firstName ?? null, username: user.username });
  return json(
    { username: name, search, summary, viewers: views.viewers },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export default function Dashboard() {
  const data = useLoaderData<typeof loader>();
  return <DashboardPage {...data} />;
}
