import { createMiddleware } from "hono/factory";
import type { AppBindings } from "../types";

export const VERSION_HEADER = "X-Heartline-Version";

/**
 * Pages from an older deploy (docs/decisions/030-versions-across-a-deploy.md).
 *
 * - A background request (the app's JSON calls: `X-Requested-With: XMLHttpRequest`, or a JSON
 *   `Accept`) is answered as usual, whatever version it names: the API stays compatible across
 *   one version. When the page's version is not this build's, the answer names this build in the
 *   same header, and the page offers a quiet refresh and takes the new version on its next
 *   navigation (app/components/app-update.tsx). Nothing reloads by itself.
 * - A page request naming an older version (a navigation) answers 409 with a Location: the
 *   client loads that page in full, on the new version (docs/domain.md "Pages, navigation and
 *   appearance"). Remix's own navigations get the same through its /__manifest version check.
 */
export const versionCheck = (buildVersion: string) =>
  createMiddleware<AppBindings>(async (c, next) => {
    const clientVersion = c.req.header(VERSION_HEADER);
    if (!clientVersion || clientVersion === buildVersion) return next();
    if (isBackground(c.req.raw)) {
      await next();
      c.header(VERSION_HEADER, buildVersion);
      return;
    }
    if (c.req.method === "GET") {
      const url = new URL(c.req.url);
      const referer = c.req.header("Referer");
      let location = `${url.pathname}${url.search}`;
      if (referer) {
        const ref = new URL(referer, url);
        if (ref.origin === url.origin) location = `${ref.pathname}${ref.search}`;
      }
      return c.body(null, 409, { Location: location });
    }
    return next();
  });

function isBackground(request: Request): boolean {
  if (request.headers.get("X-Requested-With") === "XMLHttpRequest") return true;
  return /\bapplication\/json\b/.test(request.headers.get("Accept") ?? "");
}
