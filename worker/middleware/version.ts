import { createMiddleware } from "hono/factory";
import type { AppBindings } from "../types";

export const VERSION_HEADER = "X-Heartline-Version";

/**
 * A client running the pages of an older deploy sends its build version with every request. When it
 * no longer matches, a GET answers 409 with a Location, and the client does a full page load there
 * (docs/domain.md "Pages, navigation and appearance"). Remix's own navigations get the same through
 * its /__manifest version check.
 */
export const versionCheck = (buildVersion: string) =>
  createMiddleware<AppBindings>(async (c, next) => {
    const clientVersion = c.req.header(VERSION_HEADER);
    if (c.req.method === "GET" && clientVersion && clientVersion !== buildVersion) {
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
