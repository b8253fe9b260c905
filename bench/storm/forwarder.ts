/**
 * The address bench/storm's tabs know the app by, as a browser knows a domain: a TCP forwarder on
 * a fixed port of 127.0.0.1 in front of the Worker. A restart starts a new workerd on another
 * port; `cut` drops every connection at once, as a deploy drops every socket, and refuses new
 * ones until `to` names the new Worker.
 */
import { createServer, connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface Forwarder {
  url: string;
  /** Sends new connections to the Worker at `url` (http://127.0.0.1:PORT). */
  to(url: string): void;
  /** Drops every connection and refuses new ones until `to`. */
  cut(): void;
  close(): Promise<void>;
}

export async function startForwarder(): Promise<Forwarder> {
  let target: { host: string; port: number } | null = null;
  const open = new Set<Socket>();
  const server = createServer({ noDelay: true }, (client) => {
    if (!target) {
      client.destroy();
      return;
    }
    const upstream = connect({ ...target, noDelay: true });
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.maxConnections = 100_000;
  const listen = (port: number) =>
    new Promise<void>((resolve) => server.listen(port, "127.0.0.1", 4096, resolve));
  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    to(url) {
      const { hostname, port: p } = new URL(url);
      target = { host: hostname, port: Number(p) };
      if (!server.listening) void listen(port);
    },
    cut() {
      target = null;
      server.close();
      for (const socket of open) socket.destroy();
      open.clear();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  };
}
