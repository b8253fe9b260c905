import type { TestClient } from "./client";

/** A websocket opened through the Worker, collecting the JSON frames it receives. */
export interface TestSocket {
  ws: WebSocket;
  frames: Record<string, unknown>[];
  /** Resolves with the first frame (already received or still to come) matching `predicate`. */
  next(
    predicate: (f: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  close(): void;
}

export async function openSocket(
  client: TestClient,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; socket: TestSocket | null }> {
  const res = await client.fetch(path, { headers: { Upgrade: "websocket", ...headers } });
  const ws = res.webSocket;
  if (res.status !== 101 || !ws) return { status: res.status, socket: null };
  ws.accept();
  const frames: Record<string, unknown>[] = [];
  const waiters: {
    predicate: (f: Record<string, unknown>) => boolean;
    resolve: (f: Record<string, unknown>) => void;
  }[] = [];
  ws.addEventListener("message", (event) => {
    const frame = JSON.parse(String(event.data)) as Record<string, unknown>;
    frames.push(frame);
    for (const w of [...waiters]) {
      if (w.predicate(frame)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(frame);
      }
    }
  });
  const socket: TestSocket = {
    ws,
    frames,
    next(predicate, timeoutMs = 2000) {
      const seen = frames.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no matching frame")), timeoutMs);
        waiters.push({
          predicate,
          resolve: (f) => {
            clearTimeout(timer);
            resolve(f);
          },
        });
      });
    },
    close() {
      try {
        ws.close(1000, "done");
      } catch {
        // Already closed.
      }
    },
  };
  return { status: 101, socket };
}
