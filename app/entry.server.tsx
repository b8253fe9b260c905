import type { AppLoadContext, EntryContext, HandleErrorFunction } from "@remix-run/cloudflare";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToReadableStream } from "react-dom/server";
import { NonceProvider } from "~/lib/nonce";
import { log, loggedError } from "~/server/log.server";
import { preloadsAtLowPriority } from "~/server/preload-priority.server";

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  let status = responseStatusCode;
  const nonce = loadContext.cspNonce;
  const body = await renderToReadableStream(
    <NonceProvider nonce={nonce}>
      <RemixServer context={remixContext} url={request.url} nonce={nonce} />
    </NonceProvider>,
    {
      nonce,
      signal: request.signal,
      onError(error: unknown) {
        if (!request.signal.aborted) logError(error, request, loadContext.requestId);
        status = 500;
      },
    },
  );
  if (isbot(request.headers.get("user-agent") || "")) await body.allReady;
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  return new Response(body.pipeThrough(preloadsAtLowPriority()), {
    headers: responseHeaders,
    status,
  });
}

/**
 * One JSON line per problem. A thrown 4xx response (a page that does not exist, a POST to a page
 * without an action) is the visitor's, logged as a warning; anything else is an error.
 */
function logError(error: unknown, request: Request, requestId: string) {
  const where = {
    request_id: requestId,
    method: request.method,
    path: new URL(request.url).pathname,
  };
  if (isRouteErrorResponse(error)) {
    log({
      event: "route_error",
      level: error.status < 500 ? "warn" : "error",
      ...where,
      status: error.status,
      error: { name: "ErrorResponse", message: error.statusText },
    });
    return;
  }
  log({ event: "route_error", level: "error", ...where, error: loggedError(error) });
}

export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  logError(error, request, context.requestId);
  // Anything but a thrown 4xx response is a 500.
  if (!(isRouteErrorResponse(error) && error.status < 500)) context.reportError?.(error);
};
