import { createServer, type IncomingMessage, type ServerResponse, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

/**
 * A stand-in for the mail provider (Resend's HTTP API cannot be reached here), started once for the
 * workers tests. It checks what it receives as Resend does: `POST /emails` needs a bearer API key
 * and a JSON body with `from`, `to` (one address or up to 50), `subject` and `html` or `text`
 * (422 otherwise); an `Idempotency-Key` sent again with the same body answers the first answer
 * without sending again, and with another body answers 409. What it sends is kept; tests read it
 * back from `GET /__emails?to=<address>`. `POST /__fail {to, times, status}` makes the next
 * `times` emails to that address fail with `status`, as a provider in trouble would.
 */

declare module "vitest" {
  export interface ProvidedContext {
    mailProviderStandInPort: number;
  }
}

export interface SentEmail {
  id: string;
  from: string;
  to: string[];
  subject: string;
  text?: string;
  html?: string;
  idempotency_key?: string;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

function answer(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

const error = (statusCode: number, name: string, message: string) => ({
  statusCode,
  name,
  message,
});

/** Resend's checks of a send request: the problem, or null when it would be sent. */
function problemOf(body: Record<string, unknown>): string | null {
  const to = typeof body.to === "string" ? [body.to] : body.to;
  if (typeof body.from !== "string" || !/@/.test(body.from)) return "The `from` field is invalid.";
  if (!Array.isArray(to) || to.length === 0 || to.length > 50) return "The `to` field is invalid.";
  if (!to.every((a) => typeof a === "string" && /^[^@\s]+@[^@\s]+$/.test(a))) {
    return "The `to` field must hold email addresses.";
  }
  if (typeof body.subject !== "string" || body.subject.length === 0) {
    return "The `subject` field is missing.";
  }
  if (typeof body.html !== "string" && typeof body.text !== "string") {
    return "Either `html` or `text` must be provided.";
  }
  const headers = body.headers;
  if (
    headers !== undefined &&
    (typeof headers !== "object" ||
      headers === null ||
      Array.isArray(headers) ||
      !Object.values(headers).every((v) => typeof v === "string"))
  ) {
    return "The `headers` field must be an object of strings.";
  }
  return null;
}

let server: Server | undefined;

export default async function setup(project: TestProject) {
  const sent: SentEmail[] = [];
  const failures = new Map<string, { times: number; status: number; retryAfter?: number }>();
  const byKey = new Map<string, { body: string; status: number; answer: unknown }>();

  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    if (req.method === "GET" && url.pathname === "/__emails") {
      const to = url.searchParams.get("to")?.toLowerCase();
      return answer(res, 200, to ? sent.filter((e) => e.to.includes(to)) : sent);
    }
    if (req.method === "POST" && url.pathname === "/__fail") {
      const { to, times, status, retry_after } = JSON.parse(await readBody(req)) as {
        to: string;
        times: number;
        status: number;
        retry_after?: number;
      };
      failures.set(to.toLowerCase(), { times, status, retryAfter: retry_after });
      return answer(res, 200, {});
    }
    if (req.method !== "POST" || url.pathname !== "/emails") {
      return answer(res, 404, error(404, "not_found", "The requested endpoint does not exist."));
    }
    if (!/^Bearer re_\S+$/.test(req.headers.authorization ?? "")) {
      return answer(res, 401, error(401, "missing_api_key", "Missing API key in the request."));
    }
    if (!String(req.headers["content-type"]).startsWith("application/json")) {
      return answer(res, 422, error(422, "validation_error", "Content-Type must be JSON."));
    }
    const raw = await readBody(req);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return answer(res, 422, error(422, "validation_error", "The body is not JSON."));
    }
    const problem = problemOf(body);
    if (problem) return answer(res, 422, error(422, "validation_error", problem));

    const key = req.headers["idempotency-key"];
    const idempotencyKey = typeof key === "string" ? key : undefined;
    if (idempotencyKey !== undefined) {
      if (idempotencyKey.length === 0 || idempotencyKey.length > 256) {
        return answer(res, 422, error(422, "validation_error", "Invalid idempotency key."));
      }
      const earlier = byKey.get(idempotencyKey);
      if (earlier && earlier.body !== raw) {
        const message = "This idempotency key was used with a different request body.";
        return answer(res, 409, error(409, "invalid_idempotent_request", message));
      }
      if (earlier) return answer(res, earlier.status, earlier.answer);
    }

    const to = (typeof body.to === "string" ? [body.to] : (body.to as string[])).map((a) =>
      a.toLowerCase(),
    );
    const failing = to.map((a) => failures.get(a)).find((f) => f && f.times > 0);
    if (failing) {
      // A provider in trouble: nothing is sent, and nothing is remembered under the key.
      failing.times -= 1;
      // Over the rate limit (2 requests a second by default), Resend says when to come back.
      if (failing.retryAfter !== undefined)
        res.setHeader("Retry-After", String(failing.retryAfter));
      const name = failing.status === 429 ? "rate_limit_exceeded" : "application_error";
      return answer(res, failing.status, error(failing.status, name, "Try again."));
    }
    const email: SentEmail = {
      id: crypto.randomUUID(),
      from: body.from as string,
      to,
      subject: body.subject as string,
      text: body.text as string | undefined,
      html: body.html as string | undefined,
      idempotency_key: idempotencyKey,
    };
    sent.push(email);
    if (idempotencyKey !== undefined) {
      byKey.set(idempotencyKey, { body: raw, status: 200, answer: { id: email.id } });
    }
    return answer(res, 200, { id: email.id });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  project.provide("mailProviderStandInPort", (server.address() as AddressInfo).port);
  return async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  };
}
