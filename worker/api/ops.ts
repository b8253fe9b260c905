import { Hono } from "hono";
import { checkHealth } from "~/server/health.server";
import type { AppBindings } from "../types";

/**
 * Operations (docs/api.md "Operations"). Mounted before the session middleware: a health check
 * needs no session, sets no cookie and reads no member data.
 */
export const opsApi = new Hono<AppBindings>();

opsApi.get("/healthz", async (c) => {
  const health = await checkHealth(c.env, c.get("requestId"));
  c.header("Cache-Control", "no-store");
  return c.json(health, health.ok ? 200 : 503);
});
