import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import type { TestProject } from "vitest/node";

/**
 * A stand-in for the error tracker (Sentry's ingestion cannot run here), started once for the
 * workers tests. The Worker's SDK, given a DSN that points here (SENTRY_TEST_DSN), posts its
 * envelopes to `/api/<project>/envelope/` as it would to Sentry; every item is kept, and tests
 * read them back from `GET /__events` (`?since=<n>` for those after the n-th).
 */

declare module "vitest" {
  export interface ProvidedContext {
    errorTrackerStandInPort: number;
  }
}

interface Item {
  type: string;
  payload: unknown;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** An envelope: a header line, then (item header line, payload line) pairs. */
function itemsOf(envelope: string): Item[] {
  const lines = envelope.split("\n").filter((l) => l.length > 0);
  const items: Item[] = [];
  for (let i = 1; i + 1 < lines.length; i += 2) {
    const header = JSON.parse(lines[i]!) as { type: string };
    let payload: unknown = lines[i + 1];
    try {
      payload = JSON.parse(lines[i + 1]!);
    } catch {
      // A payload that is not JSON (an attachment) is kept as text.
    }
    items.push({ type: header.type, payload });
  }
  return items;
}

let server: Server | undefined;

export default async function setup(project: TestProject) {
  const items: Item[] = [];
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    if (req.method === "GET" && url.pathname === "/__events") {
      const since = Number(url.searchParams.get("since") ?? 0);
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(JSON.stringify(items.slice(since)));
    }
    if (req.method === "POST" && /^\/api\/\d+\/envelope\/?$/.test(url.pathname)) {
      let body = await readBody(req);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      items.push(...itemsOf(body.toString("utf8")));
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end("{}");
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  project.provide("errorTrackerStandInPort", (server.address() as AddressInfo).port);
  return async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  };
}
