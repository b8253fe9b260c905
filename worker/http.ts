import type { Context } from "hono";
import type { AppBindings } from "./types";

/**
 * API.md: a documented path answers JSON when the request asks for it; otherwise it is a page and
 * Remix renders it. Remix's own data requests carry `_data` and always go to Remix.
 */
export function wantsJson(c: Context<AppBindings>): boolean {
  if (c.req.query("_data") !== undefined) return false;
  const accept = c.req.header("Accept") ?? "";
  const type = c.req.header("Content-Type") ?? "";
  return accept.includes("application/json") || type.includes("application/json");
}
