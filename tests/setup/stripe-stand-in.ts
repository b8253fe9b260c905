import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

/**
 * A stand-in for Stripe's API (Stripe's servers cannot run here), started once for the workers
 * tests: the Worker's Stripe client is pointed at it (STRIPE_API_BASE) and it answers the calls the
 * app makes the way Stripe does. Every request is recorded; tests read them back from
 * `GET /__requests` to assert what the app sent.
 *
 * Subscriptions and prices are kept. A test puts a subscription there as a completed Checkout
 * would leave it (`POST /__subscriptions`, JSON: id, customer, price {unit_amount, currency,
 * interval}, metadata, period) and reads it back with `GET /__subscriptions/{id}` (neither is
 * recorded), to deliver it in a signed webhook as Stripe would. A plan change
 * (`POST /v1/subscriptions/{id}` with `items`) is checked as Stripe checks it: an unknown
 * subscription is 404, an item that is not the subscription's or a price that does not exist is
 * 400; one without `items[0][id]` (which Stripe would add as a second item, which the app never
 * means) is refused too. The change moves the item to the price, restarts the period when the
 * interval changes (the billing cycle anchor resets), merges the metadata and may resume a
 * subscription set to cancel. Cancels of subscriptions never put there (tests that start theirs
 * by webhook alone) are answered as before, without state.
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

interface StandInPrice {
  id: string;
  object: "price";
  active: boolean;
  currency: string;
  unit_amount: number;
  recurring: { interval: "month" | "year"; interval_count: 1 };
  lookup_key: string | null;
  product: string;
  metadata: Record<string, string>;
}

interface StandInSubscription {
  id: string;
  object: "subscription";
  status: string;
  customer: string | null;
  cancel_at_period_end: boolean;
  cancel_at: number | null;
  canceled_at: number | null;
  ended_at: number | null;
  start_date: number;
  billing_cycle_anchor: number;
  latest_invoice: string | null;
  metadata: Record<string, string>;
  items: {
    object: "list";
    data: {
      id: string;
      object: "subscription_item";
      quantity: 1;
      price: StandInPrice;
      current_period_start: number;
      current_period_end: number;
    }[];
  };
}

const PRORATION_BEHAVIORS = ["create_prorations", "always_invoice", "none"];

/** One period of `interval` after `from` (unix seconds), on the same day of the month. */
function addInterval(from: number, interval: "month" | "year"): number {
  const d = new Date(from * 1000);
  const months = interval === "year" ? 12 : 1;
  const target = new Date(
    Date.UTC(
      d.getUTCFullYear(),
      d.getUTCMonth() + months,
      1,
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
    ),
  );
  const lastDay = new Date(
    Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0),
  ).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return Math.floor(target.getTime() / 1000);
}

/** Stripe's error answer. */
const stripeError = (message: string, extra: Record<string, string> = {}) => ({
  error: { type: "invalid_request_error", message, ...extra },
});

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
  const subscriptions = new Map<string, StandInSubscription>();
  /** Customers' balances (cents; negative is credit the customer holds), as a test put them. */
  const balances = new Map<string, number>();
  const prices = new Map<string, StandInPrice>();
  const newPrice = (p: {
    currency: string;
    unit_amount: number;
    interval: "month" | "year";
    lookup_key?: string | null;
    metadata?: Record<string, string>;
  }): StandInPrice => {
    const n = ++counter;
    const price: StandInPrice = {
      id: `price_standin_${n}_${Date.now()}`,
      object: "price",
      active: true,
      currency: p.currency,
      unit_amount: p.unit_amount,
      recurring: { interval: p.interval, interval_count: 1 },
      lookup_key: p.lookup_key ?? null,
      product: `prod_standin_${n}`,
      metadata: p.metadata ?? {},
    };
    prices.set(price.id, price);
    return price;
  };
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
    // A test's own fixtures: not Stripe's API, not recorded.
    if (req.method === "POST" && url.pathname === "/__subscriptions") {
      const body = JSON.parse(await readBody(req)) as {
        id: string;
        customer?: string;
        status?: string;
        price: { unit_amount: number; currency: string; interval: "month" | "year" };
        metadata?: Record<string, string>;
        current_period_start: number;
        current_period_end: number;
      };
      const subscription: StandInSubscription = {
        id: body.id,
        object: "subscription",
        status: body.status ?? "active",
        customer: body.customer ?? null,
        cancel_at_period_end: false,
        cancel_at: null,
        canceled_at: null,
        ended_at: null,
        start_date: body.current_period_start,
        billing_cycle_anchor: body.current_period_start,
        latest_invoice: `in_first_${body.id}`,
        metadata: body.metadata ?? {},
        items: {
          object: "list",
          data: [
            {
              id: `si_${body.id}`,
              object: "subscription_item",
              quantity: 1,
              price: newPrice(body.price),
              current_period_start: body.current_period_start,
              current_period_end: body.current_period_end,
            },
          ],
        },
      };
      subscriptions.set(body.id, subscription);
      return send(200, subscription);
    }
    const customerFixture = url.pathname.match(/^\/__customers\/([^/]+)$/);
    if (req.method === "POST" && customerFixture) {
      const body = JSON.parse(await readBody(req)) as { balance: number };
      balances.set(customerFixture[1]!, body.balance);
      return send(200, { id: customerFixture[1], balance: body.balance });
    }
    const fixture = url.pathname.match(/^\/__subscriptions\/([^/]+)$/);
    if (req.method === "GET" && fixture) {
      const known = subscriptions.get(fixture[1]!);
      return known ? send(200, known) : send(404, stripeError("not put here"));
    }
    const params = Object.fromEntries(new URLSearchParams(await readBody(req)));
    if (req.method === "GET") Object.assign(params, Object.fromEntries(url.searchParams));
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
    // A customer, as Stripe answers it: its balance (0 unless a test put one).
    const customer = url.pathname.match(/^\/v1\/customers\/([^/]+)$/);
    if (req.method === "GET" && customer) {
      return send(200, {
        id: customer[1],
        object: "customer",
        balance: balances.get(customer[1]!) ?? 0,
        currency: "usd",
        deleted: undefined,
      });
    }
    const sub = url.pathname.match(/^\/v1\/subscriptions\/([^/]+)$/);
    const known = sub ? subscriptions.get(sub[1]!) : undefined;
    const noSuchSubscription = () =>
      send(
        404,
        stripeError(`No such subscription: '${sub?.[1]}'`, {
          code: "resource_missing",
          param: "id",
        }),
      );
    if (req.method === "DELETE" && sub) {
      if (known) {
        known.status = "canceled";
        known.canceled_at = known.ended_at = Math.floor(Date.now() / 1000);
        return send(200, known);
      }
      return send(200, { id: sub[1], object: "subscription", status: "canceled", metadata: {} });
    }
    if (req.method === "GET" && sub) {
      return known ? send(200, known) : noSuchSubscription();
    }
    if (req.method === "GET" && url.pathname === "/v1/prices") {
      const keys = Object.entries(params)
        .filter(([k]) => /^lookup_keys\[\d*\]$/.test(k))
        .map(([, v]) => v);
      const data = [...prices.values()].filter(
        (p) =>
          (keys.length === 0 || (p.lookup_key !== null && keys.includes(p.lookup_key))) &&
          (params.active === undefined || String(p.active) === params.active),
      );
      return send(200, { object: "list", data, has_more: false, url: "/v1/prices" });
    }
    if (req.method === "POST" && url.pathname === "/v1/prices") {
      const interval = params["recurring[interval]"];
      const amount = Number(params.unit_amount);
      if (!params.currency || !Number.isInteger(amount) || amount < 0) {
        return send(400, stripeError("Missing required param: currency or unit_amount."));
      }
      if (interval !== "month" && interval !== "year") {
        return send(
          400,
          stripeError("Invalid recurring[interval].", { param: "recurring[interval]" }),
        );
      }
      if (!params.product && !params["product_data[name]"]) {
        return send(400, stripeError("Missing required param: product.", { param: "product" }));
      }
      const lookupKey = params.lookup_key ?? null;
      const holder = [...prices.values()].find((p) => p.active && p.lookup_key === lookupKey);
      if (lookupKey && holder) {
        if (params.transfer_lookup_key !== "true") {
          return send(
            400,
            stripeError(`A price (\`${holder.id}\`) already uses that lookup key.`, {
              param: "lookup_key",
            }),
          );
        }
        holder.lookup_key = null;
      }
      return send(
        200,
        newPrice({
          currency: params.currency,
          unit_amount: amount,
          interval,
          lookup_key: lookupKey,
          metadata: metadataOf(params),
        }),
      );
    }
    const changesItems = Object.keys(params).some((k) => k.startsWith("items["));
    if (req.method === "POST" && sub && (known || changesItems)) {
      if (!known) return noSuchSubscription();
      if (changesItems) {
        const item = known.items.data[0]!;
        const itemId = params["items[0][id]"];
        if (!itemId) {
          return send(
            400,
            stripeError(
              "heartline stand-in: a plan change replaces the subscription's one item: items[0][id] is required (without it Stripe adds a second item).",
              { param: "items[0][id]" },
            ),
          );
        }
        if (itemId !== item.id) {
          return send(
            400,
            stripeError(`No such subscription item: '${itemId}'`, {
              code: "resource_missing",
              param: "items[0][id]",
            }),
          );
        }
        const priceId = params["items[0][price]"];
        const price = priceId ? prices.get(priceId) : undefined;
        if (!price) {
          return send(
            400,
            stripeError(
              priceId ? `No such price: '${priceId}'` : "Missing required param: items[0][price].",
              {
                code: priceId ? "resource_missing" : "parameter_missing",
                param: "items[0][price]",
              },
            ),
          );
        }
        const behavior = params.proration_behavior;
        if (behavior !== undefined && !PRORATION_BEHAVIORS.includes(behavior)) {
          return send(
            400,
            stripeError(
              `Invalid proration_behavior: must be one of ${PRORATION_BEHAVIORS.join(", ")}`,
              {
                param: "proration_behavior",
              },
            ),
          );
        }
        if (!["active", "trialing", "past_due"].includes(known.status)) {
          return send(
            400,
            stripeError(`A subscription whose status is ${known.status} cannot be updated.`),
          );
        }
        const now = Math.floor(Date.now() / 1000);
        const newInterval = price.recurring.interval !== item.price.recurring.interval;
        if (newInterval) {
          // A change of interval resets the billing cycle anchor and invoices at once.
          item.current_period_start = now;
          item.current_period_end = addInterval(now, price.recurring.interval);
          known.billing_cycle_anchor = now;
        }
        if (newInterval || behavior === "always_invoice") {
          known.latest_invoice = `in_standin_${++counter}_${Date.now()}`;
        }
        item.price = price;
      }
      const metadata = metadataOf(params);
      for (const [k, v] of Object.entries(metadata)) {
        if (v === "") delete known.metadata[k];
        else known.metadata[k] = v;
      }
      if (params.cancel_at_period_end !== undefined) {
        known.cancel_at_period_end = params.cancel_at_period_end === "true";
        known.canceled_at = known.cancel_at_period_end ? Math.floor(Date.now() / 1000) : null;
      }
      return send(200, known);
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
