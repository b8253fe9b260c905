import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { MatchesPage, searchPageLinks } from "~/components/search/pages";
import { titleMeta } from "~/lib/title";
import { searchPageData } from "~/server/search-pages.server";
import { requireOnboardedUser } from "~/server/guards.server";

export const meta: MetaFunction = () => titleMeta("Discover");
export const links = searchPageLinks;
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** Discover: suggested members to search from, with the filters. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireOnboardedUser(context, request);
  const search = await searchPageData(context.env, user, new URL(request.url), {
    searched: false,
  });
  return json({ search }, { headers: { "Cache-Control": "private, no-store" } });
}

export default function Matches() {
  const data = useLoaderData<typeof loader>();
  return <MatchesPage {...data} />;
}
