import { createRequestHandler, type AppLoadContext, type ServerBuild } from "@remix-run/cloudflare";
import * as Sentry from "@sentry/cloudflare";
import { Hono, type Context } from "hono";
import { createMiddleware } from "hono/factory";
import { requestId } from "hono/request-id";
import { HttpError } from "~/server/errors.server";
import { configRefusal, devMailboxOpen } from "~/server/env.server";
import { log, loggedError } from "~/server/log.server";
import { count } from "~/server/metrics.server";
import { authApi } from "./api/auth";
import { blocksApi } from "./api/blocks";
import { travelApi } from "./api/travel";
import { chatApi } from "./api/chat";
import { devApi } from "./api/dev";
import { discoveryApi } from "./api/discovery";
import { moneyApi } from "./api/money";
import { notificationsApi } from "./api/notifications";
import { opsApi } from "./api/ops";
import { profileApi, signedPhotoApi } from "./api/profile";
import { pushApi } from "./api/push";
import { realtimeApi } from "./api/realtime";
import { safetyApi } from "./api/safety";
import { verificationApi } from "./api/verification";
import { addResponseHeaders, wantsJson } from "./http";
import { requestContext } from "./middleware/context";
import { bodyLimit } from "./middleware/body-limit";
import { csrf } from "./middleware/csrf";
import { d1Session } from "./middleware/d1-session";
import { versionCheck } from "./middleware/version";
import { socketTicketAuth, upgradeTokenAuth } from "./realtime";
import { errorPage } from "./error-page";
import { securityHeaders } from "./security-headers";
import type { AppBindings } from "./types";

/**
 * The Worker's one request pipeline: request id, deploy-skew check, session and CSRF, the JSON API
 * of docs/api.md, then Remix for every page and form action.
 */
export function createApp(build: ServerBuild) {
  const app = new Hono<AppBindings>();
  const remix = createRequestHandler(build);
  const buildVersion = build.assets.version;

  app.use(requestId({ headerName: "X-Request-Id" }));
  app.use(async (c, next) => {
    await next();
    addResponseHeaders(c, (headers) => headers.set("X-Request-Id", c.get("requestId")));
  });
  app.use(securityHeaders);
  app.use(productionGuard);
  app.route("/", opsApi);
  // A photo's signed address is answered here, before the session is read (docs/decisions/043).
  app.route("/", signedPhotoApi);
  app.use(d1Session);
  app.use(versionCheck(buildVersion));
  app.use(requestContext(buildVersion));
  app.use(bodyLimit);
  app.use(csrf);
  app.use("/ws/*", socketTicketAuth);
  app.use("/ws/*", upgradeTokenAuth);

  app.route("/", authApi);
  app.route("/", profileApi);
  app.route("/", blocksApi);
  app.route("/", travelApi);
  app.route("/", safetyApi);
  app.route("/", verificationApi);
  app.route("/", realtimeApi);
  app.route("/", notificationsApi);
  app.route("/", pushApi);
  app.route("/", chatApi);
  app.route("/", discoveryApi);
  app.route("/", moneyApi);
  app.use("/dev/*", async (c, next) => {
    if (!devMailboxOpen(c.env)) return c.notFound();
    return next();
  });
  app.route("/", devApi);

  app.all("*", async (c) => {
    const rc = c.get("rc");
    // Remix answers a page's error itself (app/entry.server.tsx): onError below never sees it.
    rc.reportError = (error) => serverFailed(c, error);
    const response = await remix(c.req.raw, rc as AppLoadContext);
    // A JSON client asking for a path no route knows gets the error shape of docs/api.md "Errors",
    // not the 404 page.
    if (response.status === 404 && wantsJson(c)) return c.json({ message: "Not found." }, 404);
    return response;
  });

  app.notFound((c) =>
    wantsJson(c) ? c.json({ message: "Not found." }, 404) : c.html(errorPage(404), 404),
  );

  app.onError((error, c) => {
    if (error instanceof HttpError) {
      for (const [k, v] of Object.entries(error.headers ?? {})) c.header(k, v);
      if (wantsJson(c) || c.req.method !== "GET") {
        return c.json(error.toJSON(), error.status as 400);
      }
      return c.html(errorPage(error.status, error.message), error.status as 400);
    }
    serverFailed(c, error);
    log({
      event: "request_failed",
      level: "error",
      request_id: c.get("requestId"),
      user_id: c.get("rc")?.user?.id,
      method: c.req.method,
      path: c.req.path,
      error: loggedError(error),
    });
    return wantsJson(c)
      ? c.json({ message: "Server Error", request_id: c.get("requestId") }, 500)
      : c.html(errorPage(500, undefined, c.get("requestId")), 500);
  });

  return app;
}

/**
 * A production Worker whose configuration is a development one (the mailbox, test payments, a
 * missing secret) serves nothing: every request gets 503 and the log names each problem
 * (configRefusal).
 */
const productionGuard = createMiddleware<AppBindings>(async (c, next) => {
  const problems = configRefusal(c.env);
  if (problems.length === 0) return next();
  count(c.env, "http_5xx");
  log({ event: "config_refused", level: "error", request_id: c.get("requestId"), problems });
  return wantsJson(c)
    ? c.json({ message: "Service Unavailable", request_id: c.get("requestId") }, 503)
    : c.html(errorPage(503, undefined, c.get("requestId")), 503);
});

/**
 * A request that ends in a 500, an API handler's or a page's: counted (and as a D1 error when D1
 * failed), and sent to the error tracker when it is on (worker/index.ts).
 */
function serverFailed(c: Context<AppBindings>, error: unknown) {
  count(c.env, "http_5xx");
  if (isD1Error(error)) count(c.env, "d1_error");
  if (c.env.SENTRY_DSN) {
    Sentry.captureException(error, { tags: { request_id: c.get("requestId") } });
  }
}

/** A failure of D1 itself (drizzle wraps it: the cause chain says). */
function isD1Error(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (/\bD1_|SQLITE_/.test(e.message)) return true;
  }
  return false;
}
