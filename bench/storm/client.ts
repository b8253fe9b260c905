/**
 * One client process of bench/storm (run.ts forks several, so that no one Node thread holds every
 * socket): it opens the tabs run.ts gives it, each a fresh instance of the app's client modules
 * (bench/storm/tab.ts, bundled by run.ts against the tree under test) with the tab's own window,
 * document, fetch, WebSocket and console, sends the pairs' messages through the chat page's store, and
 * reports, in batches, when each tab's sockets are back and caught up after the restart.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Agent, fetch as undiciFetch, WebSocket as UndiciWebSocket } from "undici";
import type { RootData } from "~/lib/root-data";
import type { ChatMessage } from "~/state/chat";
import type { Tab, TabEvents, TabOptions } from "./tab";

export interface TabSpec {
  i: number;
  id: string;
  cookie: string;
  watch: string[];
  /** The open conversation, and the index of the other member (in the same client). */
  conversation?: { id: string; otherId: string; other: number };
}

export type Command =
  | { t: "init"; bundle: string; treeRoot: string; origin: string }
  | { t: "open"; tabs: TabSpec[] }
  | { t: "storm"; at: number }
  | { t: "send"; everyMs: number }
  | { t: "collect" }
  | { t: "exit" };

/** The sockets a tab has: the member channel, presence, and the open conversation's. */
export type SocketKind = "member" | "presence" | "chat";

/**
 * - ["ready", i]: every socket of tab i opened (and caught up) for the first time;
 * - ["back", i, kind, t]: its `kind` socket was back and caught up at t, after the restart;
 * - ["failed", i, what]: something the page does failed (`what` and the error).
 */
export type Event =
  ["ready", number] | ["back", number, SocketKind, number] | ["failed", number, string];

export interface PairOutcome {
  /** Messages written (the page's send called). */
  written: number;
  /** Written messages the other member's page did not hold at the end. */
  lost: number;
  /** Extra copies the other member's page held (same client id or same id twice). */
  duplicated: number;
  /** Messages held out of the order of their sequence numbers. */
  outOfOrder: number;
  /** Written messages the writer's page still had as pending or failed at the end. */
  unsent: number;
  /**
   * Each lost message: when it was written (ms after the restart), what the writer's page holds
   * of it, and the recipient's page's messages by seq (`w`: the writer's, `r`: its own).
   */
  lostDetail: {
    writtenMs: number;
    writer: string;
    writerSeq: number | null;
    held: number;
    seqs: string;
  }[];
}

export type Report =
  | { t: "events"; events: Event[] }
  | {
      t: "collected";
      pairs: PairOutcome[];
      reloads: number;
      appUpdated: number;
      cpuSeconds: number;
    };

const report = (r: Report) => process.send!(r);
let events: Event[] = [];
setInterval(() => {
  if (events.length === 0) return;
  report({ t: "events", events });
  events = [];
}, 100).unref();

type OpenTab = (options: TabOptions, events: TabEvents) => Promise<Tab>;
let instantiate: (shims: Shims) => { openTab: OpenTab } = () => {
  throw new Error("not initialised");
};
let origin = "";

interface Shims {
  window: EventTarget & { location: Record<string, unknown> };
  document: Record<string, unknown>;
  fetch: typeof fetch;
  WebSocket: new (url: string, protocols?: string | string[]) => UndiciWebSocket;
  console: Pick<Console, "error" | "warn" | "log" | "info" | "debug">;
}

/** The bundle as a function of the tab's globals: each call is a fresh instance of its modules. */
function load(bundle: string, treeRoot: string) {
  const code = readFileSync(bundle, "utf8");
  // Packages other than partysocket are shared by every tab (they keep no tab's state).
  const shared = createRequire(path.join(treeRoot, "package.json"));
  const factory = new Function(
    "require",
    "module",
    "exports",
    "window",
    "document",
    "fetch",
    "WebSocket",
    "console",
    code,
  ) as (...args: unknown[]) => void;
  instantiate = (shims) => {
    const module = { exports: {} as { openTab: OpenTab } };
    factory(
      shared,
      module,
      module.exports,
      shims.window,
      shims.document,
      shims.fetch,
      shims.WebSocket,
      shims.console,
    );
    return module.exports;
  };
}

interface Held {
  spec: TabSpec;
  tab: Tab | null;
  /** Before the restart: what has opened; after it: what is back. */
  up: Set<SocketKind>;
  /** Client ids this tab's member wrote, with when. */
  written: { clientId: string; at: number }[];
  ready: boolean;
  /** After the restart: the conversation socket opened again and the page caught up. */
  chatOpened: boolean;
  /** Checks whether the conversation is back (after the restart). */
  checkChat(): void;
}
const tabs = new Map<number, Held>();
/**
 * The pages' requests, each on a connection of its own: a browser sends a request again that
 * failed on a kept-alive connection the server was closing; undici's fetch does not, and such a
 * failure would be the bench's, not the app's.
 */
const connections = new Agent({ pipelining: 0 });
let stormAt: number | null = null;
let reloads = 0;
let appUpdated = 0;

const kindsOf = (spec: TabSpec): SocketKind[] =>
  spec.conversation ? ["member", "presence", "chat"] : ["member", "presence"];

/** Whether tab `held` holds every message its other member wrote before the restart. */
function caughtUp(held: Held): boolean {
  const other = tabs.get(held.spec.conversation!.other);
  if (!other?.tab || !held.tab || stormAt === null) return false;
  const failed = new Set(
    other.tab
      .messages()
      .filter((m) => m.status === "failed")
      .map((m) => m.client_id),
  );
  const have = new Set(
    held.tab
      .messages()
      .filter((m) => !m.status)
      .map((m) => m.client_id),
  );
  return other.written.every(
    (w) => w.at >= stormAt! || failed.has(w.clientId) || have.has(w.clientId),
  );
}

/** Marks `kind` of tab `held` up (the first time before the restart, then back after it). */
function up(held: Held, kind: SocketKind) {
  if (held.up.has(kind)) return;
  held.up.add(kind);
  if (stormAt !== null) events.push(["back", held.spec.i, kind, Date.now()]);
  else if (!held.ready && kindsOf(held.spec).every((k) => held.up.has(k))) {
    held.ready = true;
    events.push(["ready", held.spec.i]);
  }
}

/** The tab's globals: its window (counting reloads), document (the page's meta), fetch, sockets. */
function shimsFor(spec: TabSpec, root: RootData): Shims {
  const leave = () => {
    reloads += 1;
  };
  const window = Object.assign(new EventTarget(), {
    location: {
      origin,
      href: `${origin}/chat`,
      pathname: "/chat",
      search: "",
      hash: "",
      reload: leave,
      assign: leave,
      replace: leave,
    },
  });
  window.addEventListener("heartline:app-updated", () => (appUpdated += 1));
  const meta: Record<string, string> = {
    "csrf-token": root.csrfToken,
    "app-version": root.buildVersion,
  };
  const document = {
    // A tab in the background: it says what it received, and reads later.
    visibilityState: "hidden",
    querySelector: (selector: string) => {
      const name = /meta\[name="([^"]+)"\]/.exec(selector)?.[1];
      const content = name ? meta[name] : undefined;
      return content === undefined ? null : { getAttribute: () => content };
    },
    addEventListener: () => {},
    removeEventListener: () => {},
  };
  const headers = { Cookie: spec.cookie, Origin: origin };
  // The page's requests; each that fails or is refused is reported (by path, ids left out).
  const tabFetch = (async (input: string, init: RequestInit = {}) => {
    const what = `${init.method ?? "GET"} ${input.replace(/\?.*/, "").replace(/[\w-]{16,}/g, ":id")}`;
    try {
      const res = await undiciFetch(new URL(input, origin), {
        ...(init as Parameters<typeof undiciFetch>[1]),
        dispatcher: connections,
        headers: { ...(init.headers as Record<string, string>), ...headers },
      });
      if (!res.ok) events.push(["failed", spec.i, `${what}: ${res.status}`]);
      return res as unknown as Response;
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : error);
      events.push(["failed", spec.i, `${what}: ${String(why)}`]);
      throw error;
    }
  }) as typeof fetch;
  class TabSocket extends UndiciWebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, { protocols, headers } as never);
    }
  }
  // What the page logs as an error is counted with the failures (thousands of tabs would
  // otherwise bury the bench's output in stacks); the rest is dropped.
  const quiet = () => {};
  const console = {
    error: (message: unknown) =>
      events.push(["failed", spec.i, `console.error: ${String(message).slice(0, 80)}`]),
    warn: quiet,
    log: quiet,
    info: quiet,
    debug: quiet,
  };
  return { window, document, fetch: tabFetch, WebSocket: TabSocket, console };
}

async function open(spec: TabSpec) {
  const res = await fetch(`${origin}/?_data=root`, {
    headers: { Cookie: spec.cookie, Accept: "application/json" },
  });
  if (!res.ok) throw new Error(`root data of ${spec.id}: ${res.status}`);
  const root = (await res.json()) as RootData;
  const held: Held = {
    spec,
    tab: null,
    up: new Set(),
    written: [],
    ready: false,
    chatOpened: false,
    checkChat: () => {
      // Back: open again, caught up, and holding what the other member wrote before the restart.
      if (stormAt === null || held.up.has("chat") || !held.chatOpened) return;
      if (caughtUp(held)) up(held, "chat");
    },
  };
  tabs.set(spec.i, held);
  const { openTab } = instantiate(shimsFor(spec, root));
  const conversation = spec.conversation;
  held.tab = await openTab(
    {
      memberId: spec.id,
      root,
      watch: spec.watch,
      conversation: conversation && { id: conversation.id, otherId: conversation.otherId },
    },
    {
      memberBack: () => up(held, "member"),
      presenceBack: () => up(held, "presence"),
      chatBack: () => {
        if (stormAt === null) return up(held, "chat");
        held.chatOpened = true;
        held.checkChat();
        // What this page sent again may be what the other member's page waited for.
        if (conversation) tabs.get(conversation.other)?.checkChat();
      },
      chatFrame: () => held.checkChat(),
      failed: (what, error) =>
        events.push([
          "failed",
          spec.i,
          `${what}: ${error instanceof Error ? error.message : String(error)}`,
        ]),
    },
  );
}

/** Opens `specs`, `concurrency` at a time (a tab whose page cannot load is reported). */
async function openAll(specs: TabSpec[], concurrency = 8) {
  let next = 0;
  const worker = async () => {
    while (next < specs.length) {
      const spec = specs[next++]!;
      await open(spec).catch((error: unknown) =>
        events.push(["failed", spec.i, `open: ${error instanceof Error ? error.message : error}`]),
      );
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

let sending: ReturnType<typeof setInterval> | null = null;

/** Every pair writes a message each `everyMs`, its members taking turns, pairs spread evenly. */
function startSending(everyMs: number) {
  const leaders = [...tabs.values()].filter(
    (h) => h.spec.conversation && h.spec.i < h.spec.conversation.other,
  );
  if (leaders.length === 0) return;
  let n = 0;
  sending = setInterval(
    () => {
      const leader = leaders[n % leaders.length]!;
      const round = Math.floor(n / leaders.length);
      n += 1;
      const from = round % 2 === 0 ? leader : tabs.get(leader.spec.conversation!.other)!;
      if (!from.tab) return;
      const clientId = crypto.randomUUID();
      from.written.push({ clientId, at: Date.now() });
      from.tab
        .send(`storm message ${round} of ${from.spec.id}`, clientId)
        .catch((error: unknown) =>
          events.push([
            "failed",
            from.spec.i,
            `send: ${error instanceof Error ? error.message : error}`,
          ]),
        );
    },
    Math.max(1, everyMs / leaders.length),
  );
}

/** What the page of `to` holds of the messages `from` wrote. */
function outcome(from: Held, to: Held): PairOutcome {
  const held = to.tab!.messages();
  const count = new Map<string, number>();
  for (const m of held) if (m.client_id) count.set(m.client_id, (count.get(m.client_id) ?? 0) + 1);
  const ids = new Set<string>();
  let duplicated = 0;
  for (const m of held) {
    if (ids.has(m.id)) duplicated += 1;
    ids.add(m.id);
  }
  let lost = 0;
  const lostDetail: PairOutcome["lostDetail"] = [];
  const mine = from.tab!.messages();
  for (const w of from.written) {
    const n = count.get(w.clientId) ?? 0;
    if (n === 0) {
      lost += 1;
      const there = mine.find((m) => m.client_id === w.clientId);
      lostDetail.push({
        writtenMs: w.at - (stormAt ?? 0),
        writer: there ? (there.status ?? `stored seq ${there.seq}`) : "not held",
        writerSeq: there && !there.status ? there.seq : null,
        held: held.length,
        seqs: held
          .map((m) => `${m.seq}${m.sender_id === from.spec.id ? "w" : "r"}${m.status ? "?" : ""}`)
          .join(","),
      });
    }
    duplicated += Math.max(0, n - 1);
  }
  const stored = held.filter((m: ChatMessage) => !m.status);
  let outOfOrder = 0;
  for (let k = 1; k < stored.length; k++) if (stored[k]!.seq <= stored[k - 1]!.seq) outOfOrder += 1;
  const unsent = from
    .tab!.messages()
    .filter((m) => m.status && m.sender_id === from.spec.id).length;
  return { written: from.written.length, lost, duplicated, outOfOrder, unsent, lostDetail };
}

function collect() {
  const pairs: PairOutcome[] = [];
  for (const h of tabs.values()) {
    const c = h.spec.conversation;
    if (!c || !h.tab) continue;
    const other = tabs.get(c.other);
    if (other?.tab) pairs.push(outcome(other, h));
  }
  const cpu = process.cpuUsage();
  report({ t: "collected", pairs, reloads, appUpdated, cpuSeconds: (cpu.user + cpu.system) / 1e6 });
}

process.on("message", (command: Command) => {
  switch (command.t) {
    case "init":
      origin = command.origin;
      load(command.bundle, command.treeRoot);
      break;
    case "open":
      void openAll(command.tabs);
      break;
    case "storm":
      stormAt = command.at;
      for (const held of tabs.values()) {
        held.up.clear();
        held.chatOpened = false;
      }
      break;
    case "send":
      if (sending) clearInterval(sending);
      sending = null;
      if (command.everyMs > 0) startSending(command.everyMs);
      break;
    case "collect":
      collect();
      break;
    case "exit":
      process.exit(0);
  }
});
