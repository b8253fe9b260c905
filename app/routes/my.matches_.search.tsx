import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { searchPageData } from "~/server/search-pages.server";
import { requireVerifiedUser } from "~/server/guards.server";

/** The matches page itself: the same title, styles, headers and view. */
export { default, headers, links, meta } from "./my.matches";

/** GET /my/matches/search in a browser: the matches page showing the search in the query string. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  const search = await searchPageData(context.env, user, new URL(request.url), {
    searched: true,
  });
  return json({ search }, { headers: { "Cache-Control": "private, no-store" } });
}
