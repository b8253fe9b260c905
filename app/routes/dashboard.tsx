import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { DashboardPage, searchPageLinks } from "~/components/search/pages";
import { useRootData } from "~/lib/root-data";
import { titleMeta } from "~/lib/title";
import { dashboardSummary } from "~/server/dashboard.server";
import { searchPageData } from "~/server/search-pages.server";
import { requireOnboardedUser } from "~/server/guards.server";

export const meta: MetaFunction = () => titleMeta("Dashboard");
export const links = searchPageLinks;
/** Personal pages: never stored by a shared cache. */
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** The signed-in home, "today": new likes, matches, conversations waiting, viewers, suggestions. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireOnboardedUser(context, request);
  const [search, { summary, viewers }] = await Promise.all([
    searchPageData(context.env, user, new URL(request.url), {
      searched: false,
      perPage: 12,
      withOrigin: false,
    }),
    dashboardSummary(context.env, user.id),
  ]);
  return json({ search, summary, viewers }, { headers: { "Cache-Control": "private, no-store" } });
}

export default function Dashboard() {
  const data = useLoaderData<typeof loader>();
  // Members are greeted as the whole app names them: by their first name once they gave one.
  const name = useRootData()?.user?.name ?? "";
  return <DashboardPage {...data} name={name} />;
}
