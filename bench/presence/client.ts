/**
 * One client process of bench/presence (run.ts forks several, so that no single Node thread
 * limits 10,000 sockets): it holds the sockets of the members run.ts gives it, sends their watch
 * frames, and reports back, in batches, what each socket heard and when (absolute milliseconds,
 * the same clock in every process of the machine).
 */

export type Protocol = "scoped" | "global";

/** What run.ts asks of a client. `i` is a member's index. */
export type Command =
  | { t: "init"; url: string; protocol: Protocol }
  | { t: "open"; i: number; id: string; cookie: string; watch: string[] }
  | { t: "watch"; i: number; ids: string[] }
  | { t: "close"; i: number }
  | { t: "measure"; on: boolean }
  | { t: "stats" }
  | { t: "exit" };

/**
 * What a client reports:
 * - ["open", i, t]: the socket of member i started connecting at t;
 * - ["ready", i, t]: its first watch set was answered (`here`) at t;
 * - ["here", i, t, users]: a later watch set was answered;
 * - ["j", i, memberId, t]: member i's socket heard that memberId joined;
 * - ["drop", i, reason]: the server closed or failed the socket;
 * - ["fail", i, reason]: it could not connect.
 */
export type Event =
  | ["open", number, number]
  | ["ready", number, number]
  | ["here", number, number, string[]]
  | ["j", number, string, number]
  | ["drop", number, string]
  | ["fail", number, string];

export type Report =
  | { t: "events"; events: Event[]; frames: number }
  | { t: "stats"; cpuSeconds: number; frames: number };

const now = () => performance.timeOrigin + performance.now();

let url = "";
let protocol: Protocol = "scoped";
let measuring = false;
let frames = 0;
let events: Event[] = [];

interface Held {
  ws: WebSocket;
  watch: Set<string>;
  /** Whether the contacts' `here` (the first, before any watch) has come. */
  contacts: boolean;
  /** Watch frames sent and not answered yet. */
  awaiting: number;
  /** Whether the first watch set was answered. */
  ready: boolean;
  closing: boolean;
}
const sockets = new Map<number, Held>();

const report = (r: Report) => process.send!(r);

function flush() {
  if (events.length === 0 && frames === 0) return;
  report({ t: "events", events, frames });
  events = [];
  frames = 0;
}
setInterval(flush, 100).unref();

function open(i: number, cookie: string, watch: string[]) {
  const ws = new WebSocket(url, { headers: { Cookie: cookie } } as never);
  const held: Held = {
    ws,
    watch: new Set(watch),
    contacts: false,
    awaiting: 1,
    ready: false,
    closing: false,
  };
  sockets.set(i, held);
  events.push(["open", i, now()]);
  ws.addEventListener("message", (event) => {
    if (measuring) frames += 1;
    const frame = JSON.parse(String(event.data)) as {
      type: string;
      user_id?: string;
      users?: string[];
      joining?: string[];
    };
    const at = now();
    if (frame.type === "here") {
      if (protocol === "scoped" && !held.contacts) {
        // The contacts' `here`: now the page says what it shows.
        held.contacts = true;
        ws.send(JSON.stringify({ type: "watch", user_ids: [...held.watch] }));
        return;
      }
      held.awaiting = Math.max(0, held.awaiting - 1);
      if (held.awaiting > 0) return;
      if (!held.ready) {
        held.ready = true;
        events.push(["ready", i, at]);
        return;
      }
      events.push(["here", i, at, (frame.users ?? []).filter((id) => held.watch.has(id))]);
      return;
    }
    const joined =
      frame.type === "joining"
        ? [frame.user_id!]
        : frame.type === "presence"
          ? (frame.joining ?? [])
          : [];
    for (const id of joined) if (held.watch.has(id)) events.push(["j", i, id, at]);
  });
  ws.addEventListener("error", () => {
    if (!held.closing) events.push(["fail", i, "error"]);
  });
  ws.addEventListener("close", (event) => {
    if (held.closing) return;
    events.push(["drop", i, `${event.code} ${event.reason}`.trim()]);
    sockets.delete(i);
  });
}

process.on("message", (command: Command) => {
  switch (command.t) {
    case "init":
      url = command.url;
      protocol = command.protocol;
      break;
    case "open":
      open(command.i, command.cookie, command.watch);
      break;
    case "watch": {
      const held = sockets.get(command.i);
      if (!held) break;
      held.watch = new Set(command.ids);
      if (protocol === "global") {
        events.push(["here", command.i, now(), []]);
        break;
      }
      held.awaiting += 1;
      held.ws.send(JSON.stringify({ type: "watch", user_ids: command.ids }));
      break;
    }
    case "close": {
      const held = sockets.get(command.i);
      if (!held) break;
      held.closing = true;
      sockets.delete(command.i);
      try {
        held.ws.close(1000, "bench");
      } catch {
        // Already closed.
      }
      break;
    }
    case "measure":
      flush();
      measuring = command.on;
      break;
    case "stats": {
      flush();
      const cpu = process.cpuUsage();
      report({ t: "stats", cpuSeconds: (cpu.user + cpu.system) / 1e6, frames });
      break;
    }
    case "exit":
      for (const held of sockets.values()) {
        held.closing = true;
        try {
          held.ws.close(1000, "bench");
        } catch {
          // Already closed.
        }
      }
      setTimeout(() => process.exit(0), 200);
      break;
  }
});
