import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

/**
 * A stand-in for Stripe's API (Stripe's servers cannot run here), started once for the workers
 * tests: the Worker's Stripe client is pointed at it (STRIPE_API_BASE) and it answers the calls the
 * app makes the way Stripe does. Every request is recorded; tests read them back from
 * `GET /__requests` to assert what the app sent.
 */

interface Recorded {
  method: string;
  path: string;
  authorization: string | undefined;
  idempotency_key: string | undefined;
  /** The form-encoded body as key → value (`line_items[0][price_data][unit_amount]`). */
  params: Record<string, string>;
}

declare module "vitest" {
  export interface ProvidedContext {
    stripeStandInPort: number;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (data += chunk));
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });
}

function metadataOf(params: Record<string, string>) {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    const m = k.match(/^metadata\[(.+)\]$/);
    if (m?.[1]) metadata[m[1]] = v;
  }
  return metadata;
}

let server: Server | undefined;

export default async function setup(project: TestProject) {
  const recorded: Recorded[] = [];
  let sessions = 0;
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json", "Request-Id": "req_standin" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && url.pathname === "/__requests") return send(200, recorded);
    const params = Object.fromEntries(new URLSearchParams(await readBody(req)));
    recorded.push({
      method: req.method ?? "",
      path: url.pathname,
      authorization: req.headers.authorization,
      idempotency_key: req.headers["idempotency-key"] as string | undefined,
      params,
    });
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      sessions += 1;
      const id = `cs_test_standin_${sessions}_${Date.now()}`;
      return send(200, {
        id,
        object: "checkout.session",
        mode: params.mode,
        client_reference_id: params.client_reference_id ?? null,
        metadata: metadataOf(params),
        payment_status: "unpaid",
        status: "open",
        success_url: params.success_url,
        cancel_url: params.cancel_url,
        url: `https://checkout.stripe.com/c/pay/${id}`,
      });
    }
    const sub = url.pathname.match(/^\/v1\/subscriptions\/([^/]+)$/);
    if (req.method === "POST" && sub) {
      return send(200, {
        id: sub[1],
        object: "subscription",
        status: "active",
        cancel_at_period_end: params.cancel_at_period_end === "true",
        metadata: {},
      });
    }
    return send(404, {
      error: {
        type: "invalid_request_error",
        message: `Unrecognized request URL (${req.method}: ${url.pathname}).`,
      },
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  project.provide("stripeStandInPort", (server.address() as AddressInfo).port);
  return async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  };
}
