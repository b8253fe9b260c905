/**
 * Every log line of the Worker and its rooms: one JSON object with `event`, `level` and, when a
 * request caused it, `request_id` (docs/decisions/025). Workers Logs indexes the fields, so an
 * operator filters by `event`, follows one `request_id` from the Worker into a room, or finds
 * every line about one conversation or member. The union names each event and the ids it
 * carries; an error becomes `{name, message, stack}`, never `String(error)`.
 */

/** An error as a log line carries it: its stack says where it was thrown. */
export interface LoggedError {
  name: string;
  message: string;
  stack?: string;
}

interface Ids {
  request_id?: string;
  user_id?: string;
  conversation_id?: string;
}

export type LogEvent = Ids &
  (
    | {
        event: "request_failed";
        level: "error";
        method: string;
        path: string;
        error: LoggedError;
      }
    | { event: "config_refused"; level: "error"; problems: string[] }
    | {
        /** A page's loader or action threw (app/entry.server.tsx); a 4xx is a warning. */
        event: "route_error";
        level: "warn" | "error";
        method: string;
        path: string;
        status?: number;
        error: LoggedError;
      }
    | { event: "payments_unavailable"; level: "error"; reason: string }
    | { event: "unknown_checkout_session"; level: "error"; session_id: string }
    | { event: "health_check_failed"; level: "error"; check: string; error: LoggedError }
    | {
        event: "housekeeping";
        level: "info";
        job: string;
        deleted: number;
        batches: number;
        done: boolean;
      }
    | { event: "housekeeping_failed"; level: "error"; job: string; error: LoggedError }
    | { event: "socket_opened"; level: "info"; channel: "chat" | "member" | "presence" }
    | { event: "storage_upgraded"; level: "info"; kind: string; from: number; to: number }
    | {
        event: "storage_newer_than_code";
        level: "warn";
        kind: string;
        version: number;
        known: number;
      }
    | {
        /** A best-effort step that failed without failing the request (logFailure). */
        event: "failure";
        level: "error";
        what: string;
        error: LoggedError;
        [id: string]: unknown;
      }
  );

export function loggedError(error: unknown): LoggedError {
  if (error instanceof Error) {
    return { name: error.name, message: error.message, stack: error.stack };
  }
  return { name: "NonError", message: String(error) };
}

/** Writes one event as one JSON line, on the console stream of its level. */
export function log(entry: LogEvent): void {
  const line = JSON.stringify(entry);
  if (entry.level === "error") console.error(line);
  else if (entry.level === "warn") console.warn(line);
  else console.info(line);
}

/** Where a failure goes besides the log: the error tracker, when it is on (error-tracker.server.ts). */
export type FailureReporter = (error: unknown, tags: Record<string, string>) => void;
let failureReporter: FailureReporter | null = null;

/** Sets this isolate's failure reporter (null: none). */
export function reportFailuresTo(reporter: FailureReporter | null): void {
  failureReporter = reporter;
}

/**
 * A failure that is logged rather than answered (best-effort deliveries, background work): `what`
 * names what failed, `detail` the ids it concerned, and the error keeps its stack. With the error
 * tracker on, it is reported there too, tagged with `what` and the ids.
 */
export function logFailure(what: string, error: unknown, detail: Record<string, unknown> = {}) {
  log({ event: "failure", level: "error", what, ...detail, error: loggedError(error) });
  if (!failureReporter) return;
  const tags: Record<string, string> = { what };
  for (const [key, value] of Object.entries(detail)) {
    if (typeof value === "string" || typeof value === "number") tags[key] = String(value);
  }
  failureReporter(error, tags);
}

/**
 * Runs a Durable Object's alarm: a failure is logged (and reported, with the tracker on) before
 * it is thrown back to the runtime, which tries the alarm again.
 */
export async function loggedAlarm(what: string, alarm: () => Promise<void>): Promise<void> {
  try {
    await alarm();
  } catch (error) {
    logFailure(what, error);
    throw error;
  }
}
