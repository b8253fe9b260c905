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
  /** A write whose idempotency key was seen before: answered as the first time, nothing done. */
  replayed: boolean;
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
  /**
   * Answers by idempotency key, as Stripe keeps them: a retry gets the first answer; the same key
   * on another request (another path or other parameters) is refused, as Stripe refuses it.
   */
  const answered = new Map<string, { request: string; status: number; body: unknown }>();
  let sessions = 0;
  let counter = 0;
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const key = req.headers["idempotency-key"] as string | undefined;
    const isWrite = req.method === "POST" || req.method === "DELETE";
    let request = "";
    const send = (status: number, body: unknown) => {
      if (isWrite && key && !answered.has(key)) answered.set(key, { request, status, body });
      res.writeHead(status, { "Content-Type": "application/json", "Request-Id": "req_standin" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && url.pathname === "/__requests") return send(200, recorded);
    const params = Object.fromEntries(new URLSearchParams(await readBody(req)));
    request = JSON.stringify([req.method, url.pathname, params]);
    const earlier = isWrite && key ? answered.get(key) : undefined;
    recorded.push({
      method: req.method ?? "",
      path: url.pathname,
      authorization: req.headers.authorization,
      idempotency_key: key,
      replayed: !!earlier,
      params,
    });
    if (earlier && earlier.request !== request) {
      res.writeHead(400, { "Content-Type": "application/json", "Request-Id": "req_standin" });
      return res.end(
        JSON.stringify({
          error: {
            type: "idempotency_error",
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with (${key}).`,
          },
        }),
      );
    }
    if (earlier) {
      res.writeHead(earlier.status, {
        "Content-Type": "application/json",
        "Request-Id": "req_standin",
        "Idempotent-Replayed": "true",
      });
      return res.end(JSON.stringify(earlier.body));
    }
    // Every write carries an idempotency key of the app's own (the SDK's generated retry keys
    // do not count: they differ between two calls for the same change).
    if (isWrite && (!key || key.startsWith("stripe-node-retry-"))) {
      return send(400, {
        error: {
          type: "invalid_request_error",
          message: "heartline stand-in: every write needs the app's own Idempotency-Key.",
        },
      });
    }
    const id = (prefix: string) => `${prefix}_standin_${++counter}_${Date.now()}`;
    const sub = url.pathname.match(/^\/v1\/subscriptions\/([^/]+)$/);
    if (req.method === "DELETE" && sub) {
      return send(200, { id: sub[1], object: "subscription", status: "canceled", metadata: {} });
    }
    if (req.method === "GET" && sub) {
      return send(200, {
        id: sub[1],
        object: "subscription",
        status: "active",
        metadata: {},
        items: {
          object: "list",
          data: [{ id: `si_${sub[1]}`, price: { id: "price_standin", product: "prod_standin" } }],
        },
      });
    }
    const expire = url.pathname.match(/^\/v1\/checkout\/sessions\/([^/]+)\/expire$/);
    if (req.method === "POST" && expire) {
      return send(200, { id: expire[1], object: "checkout.session", status: "expired" });
    }
    const invoice = url.pathname.match(/^\/v1\/invoices\/([^/]+)$/);
    if (req.method === "GET" && invoice) {
      return send(200, {
        id: invoice[1],
        object: "invoice",
        payments: {
          object: "list",
          data: [
            {
              status: "paid",
              payment: { type: "payment_intent", payment_intent: `pi_of_${invoice[1]}` },
            },
          ],
        },
      });
    }
    if (req.method === "POST" && url.pathname === "/v1/refunds") {
      return send(200, {
        id: id("re"),
        object: "refund",
        payment_intent: params.payment_intent ?? null,
        status: "succeeded",
      });
    }
    if (req.method === "POST" && url.pathname === "/v1/billing_portal/sessions") {
      const portal = id("bps");
      return send(200, {
        id: portal,
        object: "billing_portal.session",
        customer: params.customer,
        return_url: params.return_url,
        url: `https://billing.stripe.com/p/session/${portal}`,
      });
    }
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
    if (req.method === "POST" && sub) {
      return send(200, {
        id: sub[1],
        object: "subscription",
        status: "active",
        cancel_at_period_end: params.cancel_at_period_end === "true",
        metadata: metadataOf(params),
        items: {
          object: "list",
          data: [{ id: `si_${sub[1]}`, price: { id: "price_standin", product: "prod_standin" } }],
        },
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
