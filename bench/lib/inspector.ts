/**
 * A DevTools protocol session over the Worker isolate's inspector websocket (BenchWorker's
 * `inspectorUrl`, wrangler's inspector proxy): what bench/profile and bench/chat --profile send
 * their Profiler commands through.
 */
import { WebSocket } from "undici";

export type InspectorSession = Awaited<ReturnType<typeof connectInspector>>;

/** Connects to `url`; `send` answers with a command's result, or fails with its error. */
export async function connectInspector(url: string) {
  // wrangler's inspector proxy takes a local Origin (as DevTools and IDEs send).
  const socket = new WebSocket(url, { headers: { Origin: "http://127.0.0.1" } });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error(`cannot connect to ${url}`)), {
      once: true,
    });
  });
  let next = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
    };
    // workerd answers with the command itself, and its result when there is one.
    if (message.id === undefined) return;
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id!);
    if (message.error) waiting.reject(new Error(message.error.message));
    else waiting.resolve(message.result);
  });
  return {
    send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
      const id = next++;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise<T>((resolve, reject) =>
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject }),
      );
    },
    close: () => socket.close(),
  };
}
