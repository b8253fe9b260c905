import { useLoaderData } from "@remix-run/react";
import { DashboardSearchPage } from "~/components/search/pages";
import type { loader } from "./my.matches_.search";

/** The dashboard's title, styles and headers. */
export { headers, links, meta } from "./dashboard";
/**
 * GET /dashboard/search in a browser: the dashboard showing the search in the query string, loaded
 * as GET /my/matches/search loads it.
 */
export { loader } from "./my.matches_.search";

export default function DashboardSearch() {
  const data = useLoaderData<typeof loader>();
  return <DashboardSearchPage search={data.search} />;
}
