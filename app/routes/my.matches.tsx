import type {
  HeadersFunction,
  LinksFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { MatchesPage } from "~/components/discovery/pages";
import { titleMeta } from "~/lib/title";
import { searchPageData } from "~/server/search-pages.server";
import { requireOnboardedUser } from "~/server/guards.server";
import cardStyles from "~/styles/cards.css?url";
import discoveryStyles from "~/styles/discovery.css?url";

export const meta: MetaFunction = () => titleMeta("Discover");
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: discoveryStyles },
  { rel: "stylesheet", href: cardStyles },
];
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** Discover: suggested members to search from, with the filters. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireOnboardedUser(context, request);
  const search = await searchPageData(context.env, user.id, new URL(request.url), {
    searched: false,
  });
  return json({ search }, { headers: { "Cache-Control": "private, no-store" } });
}

export default function Matches() {
  const data = useLoaderData<typeof loader>();
  return <MatchesPage {...data} />;
}
