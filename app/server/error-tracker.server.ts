import * as Sentry from "@sentry/cloudflare";
import type { Env } from "./env.server";
import { reportFailuresTo } from "./log.server";

/**
 * The error tracker (Sentry, docs/decisions/025), on when SENTRY_DSN is set. The Worker's handlers
 * report what they throw through the SDK's `withSentry` (worker/index.ts). What the Worker and
 * the Durable Objects (the conversation rooms, the members' hubs, presence) log as failed
 * (`logFailure`: the outbox to the hubs, pushes, presence relays, a socket's send, best-effort
 * deliveries) is answered or retried without failing a request, so nothing threw to `withSentry`:
 * it is reported here, tagged with what failed and the ids, through a client of the SDK this
 * module keeps for the isolate. Not the SDK's Durable Object instrumentation, which wraps every
 * method, handler and binding of an object on every message: this costs nothing until something
 * fails (ADR 025).
 */

/** The SDK's options, one set for the Worker and the rooms. */
export function trackerOptions(env: Env) {
  return {
    dsn: env.SENTRY_DSN,
    release: env.SENTRY_RELEASE,
    environment: env.APP_ENV,
    // Errors only: no tracing. The SDK's default sends no cookies, bodies or addresses.
    tracesSampleRate: 0,
  };
}

type Frame = {
  function?: string;
  filename?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
};

/** V8's "    at fn (file:line:col)" and "    at file:line:col", oldest call first (Sentry's order). */
export function parseStack(stack: string, skipFirstLines = 0): Frame[] {
  const frames: Frame[] = [];
  for (const line of stack.split("\n").slice(skipFirstLines)) {
    const match = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?\s*$/.exec(line);
    if (!match) continue;
    const [, fn, filename, lineno, colno] = match;
    frames.push({
      function: fn ?? "?",
      filename,
      lineno: Number(lineno),
      colno: Number(colno),
      in_app: !filename!.includes("node_modules"),
    });
  }
  return frames.slice(0, 50).reverse();
}

let client: Sentry.CloudflareClient | null = null;
let clientDsn: string | undefined;

/** The isolate's client for logged failures (made at the first one). */
function failureClient(env: Env): Sentry.CloudflareClient {
  if (client && clientDsn === env.SENTRY_DSN) return client;
  const made = new Sentry.CloudflareClient({
    ...trackerOptions(env),
    integrations: [Sentry.dedupeIntegration(), Sentry.linkedErrorsIntegration()],
    stackParser: parseStack,
    transport: (options) =>
      Sentry.createTransport(options, async (request) => {
        const res = await fetch(options.url, { method: "POST", body: request.body as BodyInit });
        return {
          statusCode: res.status,
          headers: {
            "x-sentry-rate-limits": res.headers.get("X-Sentry-Rate-Limits"),
            "retry-after": res.headers.get("Retry-After"),
          },
        };
      }),
  });
  made.init();
  client = made;
  clientDsn = env.SENTRY_DSN;
  return made;
}

/**
 * Turns the reporting of logged failures on for this isolate, when the tracker is on: called by
 * each Durable Object as it starts, and by the Worker's handlers.
 */
export function reportFailuresToTracker(env: Env): void {
  if (!env.SENTRY_DSN) return;
  reportFailuresTo((error, tags) => {
    const tracker = failureClient(env);
    const scope = new Sentry.Scope();
    scope.setTags(tags);
    tracker.captureException(error, undefined, scope);
    void tracker.flush(2_000);
  });
}
