import type {
  HeadersFunction,
  LinksFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { DashboardSearchPage } from "~/components/discovery/pages";
import { titleMeta } from "~/lib/title";
import { searchPageData } from "~/server/search-pages.server";
import { requireVerifiedUser } from "~/server/guards.server";
import cardStyles from "~/styles/cards.css?url";
import discoveryStyles from "~/styles/discovery.css?url";

export const meta: MetaFunction = () => titleMeta("Dashboard");
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: discoveryStyles },
  { rel: "stylesheet", href: cardStyles },
];
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** GET /dashboard/search in a browser: the dashboard showing the search in the query string. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const search = await searchPageData(context.env, user.id, new URL(request.url), {
    searched: true,
  });
  return json({ search }, { headers: { "Cache-Control": "private, no-store" } });
}

export default function DashboardSearch() {
  const data = useLoaderData<typeof loader>();
  return <DashboardSearchPage search={data.search} />;
}
