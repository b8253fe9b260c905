import type { Context } from "hono";
import type { AppBindings } from "./types";

/**
 * docs/api.md "JSON or page": a documented path answers JSON when the request asks for it;
 * otherwise it is a page and Remix renders it. Remix's own data requests carry `_data` and always
 * go to Remix.
 */
export function wantsJson(c: Context<AppBindings>): boolean {
  if (c.req.query("_data") !== undefined) return false;
  const accept = c.req.header("Accept") ?? "";
  const type = c.req.header("Content-Type") ?? "";
  return accept.includes("application/json") || type.includes("application/json");
}

/**
 * Adds to the headers of the response a middleware got back from `next()`. In place when they can
 * change (every Response the Worker makes itself), else on one copy of the response (one fetched
 * from a binding, whose headers are immutable). Hono's `c.header()` after a response copies the
 * whole Response on every call: with a header per call, that was most of a request's CPU.
 */
export function addResponseHeaders(c: Context<AppBindings>, add: (headers: Headers) => void) {
  try {
    add(c.res.headers);
  } catch (error) {
    // Immutable headers refuse the first change: nothing was added yet.
    if (!(error instanceof TypeError)) throw error;
    const copy = new Response(c.res.body, c.res);
    add(copy.headers);
    // Cleared first: replacing a response otherwise copies it once more, merging the old headers.
    c.res = undefined;
    c.res = copy;
  }
}
