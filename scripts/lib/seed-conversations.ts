/**
 * The demo account's conversations, with messages, seeded through the running Worker: each member
 * signs in and sends through the chat API, so every message takes the real path (the room stores
 * and orders it, the members' hubs list it, notifications follow). Messages live in the rooms'
 * own storage, which only the Worker reaches (docs/decisions/012-chat-in-rooms.md).
 *
 * Safe to run again: every message carries a client id derived from the script; a line already
 * stored is skipped (and a resend with its client id would store nothing new).
 */
import { ApiSession } from "./api-session";
import { DEMO_EMAIL, DEMO_PASSWORD, DEMO_USERNAME } from "./demo-account";
import { buildMembers, seedUserId } from "./members";
import { sleep } from "./wait";

type Line = readonly ["demo" | "them", string] | readonly ["demo-gift", string, string];

/** Who writes what, in order (at most three lines in a row from one side: the unanswered rule). */
const SCRIPTS: { username: string; lines: Line[] }[] = [
  {
    username: "maya_okafor",
    lines: [
      ["them", "Hi! I saw you like hiking too. Have you done the coastal trail yet?"],
      ["demo", "Not yet! It's been on my list forever. Is it as good as people say?"],
      ["them", "Better. Go early, the fog lifts around nine and the whole bay opens up."],
      ["demo", "Deal. Any coffee spot near the trailhead you'd recommend?"],
      ["them", "The little bakery by the harbour. Their cardamom buns are dangerous 😄"],
      ["them", "Maybe we could go together one Saturday?"],
    ],
  },
  {
    username: "daniel_kim",
    lines: [
      ["demo", "Your photo from the night market looks amazing. Where was that?"],
      ["them", "Taipei! Shilin market, I still dream about the pepper buns."],
      ["demo", "That's on my list. Any tips for a first-timer?"],
      ["them", "Go hungry, bring cash, and don't skip the stinky tofu. Trust me."],
      ["demo-gift", "coffee", "Then the first coffee is on me ☕"],
      ["them", "Ha, thank you! I'll hold you to the second one."],
    ],
  },
  {
    username: "sofia_ramirez",
    lines: [
      ["them", "Hola! Fellow salsa fan here 💃"],
      ["demo", "Guilty! I'm still a beginner though."],
      ["them", "Everyone is at first. There's a social every Thursday downtown."],
      ["them", "No pressure, but the teacher is great with beginners."],
    ],
  },
  {
    username: "priya_nair",
    lines: [
      ["demo", "Hi Priya, I loved your book recommendations in your profile."],
      ["them", "Thank you! Have you read any of them?"],
      ["demo", "Just finished the first one. That ending!"],
      ["them", "Right?? I need to talk to someone about it."],
      ["demo", "Coffee and spoilers this weekend?"],
      ["them", "Sunday works. I'll bring the sequel for you."],
      ["demo", "Perfect, see you then 🙂"],
    ],
  },
];

/** A member signed in through the chat API. */
class Session extends ApiSession {
  /** A send that may be refused for want of credits (402): false then. */
  async trySend(path: string, body: unknown): Promise<boolean> {
    const res = await this.call("POST", path, body);
    if (res.status === 402) return false;
    if (res.status >= 300) throw new Error(`POST ${path} answered ${res.status}`);
    return true;
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.call(method, path, body);
    if (res.status >= 300) {
      throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.json)}`);
    }
    return res.json as T;
  }
}

/** Whether a Worker answers at `baseUrl` (within `waitMs`). */
export async function workerReady(baseUrl: string, waitMs = 0): Promise<boolean> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      const res = await fetch(new URL("/csrf-token", baseUrl), {
        headers: { Accept: "application/json" },
      });
      if (res.ok) return true;
    } catch {
      // Not listening yet.
    }
    if (Date.now() >= until) return false;
    await sleep(500);
  }
}

/**
 * Seeds the demo account's conversations through the Worker at `baseUrl`; returns a line for the
 * seed's summary.
 */
export async function seedConversations(baseUrl: string): Promise<string> {
  if (!(await workerReady(baseUrl))) {
    return `skipped (no Worker at ${baseUrl}; \`npm run dev\` seeds them once it is up)`;
  }
  const members = new Map(buildMembers().map((m) => [m.username, m]));
  const demo = new Session(baseUrl);
  await demo.signIn(DEMO_EMAIL, DEMO_PASSWORD);
  const demoId = seedUserId(DEMO_USERNAME);
  let stored = 0;
  for (const script of SCRIPTS) {
    const member = members.get(script.username);
    if (!member) continue;
    const them = new Session(baseUrl);
    await them.signIn(member.email, DEMO_PASSWORD);
    const theirId = seedUserId(script.username);
    const [opener] = script.lines;
    const starter = opener![0] === "them" ? them : demo;
    const { conversation } = await starter.json<{ conversation: { id: string } }>(
      "POST",
      "/chat/conversations",
      { user_id: starter === them ? demoId : theirId },
    );
    // Lines stored by an earlier run are left as they are (a catch-up page does not mark read).
    const { messages } = await demo.json<{ messages: { client_id: string | null }[] }>(
      "GET",
      `/chat/conversations/${conversation.id}/messages?after=0`,
    );
    const done = new Set(messages.map((m) => m.client_id));
    for (const [i, line] of script.lines.entries()) {
      if (done.has(`seed-${script.username}-${i}`)) continue;
      const from = line[0] === "them" ? them : demo;
      const body =
        line[0] === "demo-gift" ? { message: line[2], gift_id: line[1] } : { message: line[1] };
      // The demo account reads what it answers (its unread counts are what came after).
      if (from === demo) await demo.json("POST", `/chat/conversations/${conversation.id}/read`);
      const path = `/chat/conversations/${conversation.id}/messages`;
      const message = { ...body, client_id: `seed-${script.username}-${i}` };
      // A gift needs the demo account's credits (none when a Stripe key is configured).
      if (line[0] === "demo-gift" && !(await from.trySend(path, message))) continue;
      if (line[0] !== "demo-gift") await from.json("POST", path, message);
      stored += 1;
    }
  }
  return `${SCRIPTS.length} conversations, ${stored} new messages (through the chat API)`;
}
